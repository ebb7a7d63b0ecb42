import FleetCore
import Foundation
import XCTest

/// `StreamingJSON` writes what `JSONEncoder` writes (as parsed JSON: keys may come in another
/// order) and refuses, with an error, what it cannot write in one pass.
final class StreamingJSONTests: XCTestCase {
    enum Kind: String, Codable, Equatable { case plain, odd = "odd \"kind\"" }

    struct Inner: Codable, Equatable {
        var name: String
        var counts: [Int: Int64]
        var ratio: Double
        var tags: [String]
    }

    struct Outer: Codable, Equatable {
        var id: Int
        var big: UInt64
        var negative: Int64
        var small: Int8
        var flag: Bool
        var note: String?
        var absent: Double?
        var kind: Kind
        var inner: Inner
        var list: [Inner]
        var byName: [String: [Int]]
        var nested: [[Double]]
        var empty: [String: Int]
        var float: Float
    }

    private func sample() -> Outer {
        let a = Inner(name: "tab\tquote\" back\\ nl\n ctl\u{1} é 日本", counts: [200: 5, 503: 1, -1: 2], ratio: 0.1,
                      tags: ["", "/path/{id}"])
        let b = Inner(name: "b", counts: [:], ratio: 1e-7, tags: [])
        return Outer(id: -42, big: UInt64.max, negative: Int64.min, small: -8, flag: true, note: "naïve", absent: nil,
                     kind: .odd, inner: a, list: [a, b, b], byName: ["x": [1, 2], "": []], nested: [[1.5, 2, 1e20], []],
                     empty: [:], float: 0.25)
    }

    func testRoundTripsThroughJSONDecoderAndMatchesJSONEncodersDocument() throws {
        let value = sample()
        let bytes = try StreamingJSON.encode(value)
        XCTAssertEqual(try JSONDecoder().decode(Outer.self, from: Data(bytes)), value)
        // The same document JSONEncoder writes: a nil optional left out, not null; an int key a string.
        let ours = try JSONValue.parse(bytes), theirs = try JSONValue.parse(Array(try JSONEncoder().encode(value)))
        XCTAssertEqual(ours, theirs)
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("absent"))
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\"503\":1"))
    }

    /// A subclass that encodes its superclass's members into the same container, as Codable
    /// classes do: one object, not two.
    class Base: Encodable {
        var a = 1
        enum K: String, CodingKey { case a, b }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode(a, forKey: .a)
        }
    }

    final class Derived: Base {
        override func encode(to encoder: Encoder) throws {
            try super.encode(to: encoder)
            var c = encoder.container(keyedBy: K.self)
            try c.encode("two", forKey: .b)
        }
    }

    func testASecondRequestForTheSameContainerWritesIntoIt() throws {
        let bytes = try StreamingJSON.encode([Derived(), Derived()])
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), #"[{"a":1,"b":"two"},{"a":1,"b":"two"}]"#)
    }

    /// Nested containers filled in order, then the parent: the nested ones close in time.
    struct Manual: Encodable {
        enum K: String, CodingKey { case first, second, after }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            var first = c.nestedContainer(keyedBy: K.self, forKey: .first)
            try first.encode(1, forKey: .first)
            var second = c.nestedUnkeyedContainer(forKey: .second)
            try second.encode(true)
            var deeper = second.nestedUnkeyedContainer()
            try deeper.encodeNil()
            XCTAssertEqual(second.count, 2)
            try c.encode(3.5, forKey: .after)
        }
    }

    func testNestedContainersCloseWhenTheirParentGoesOn() throws {
        XCTAssertEqual(String(decoding: try StreamingJSON.encode(Manual()), as: UTF8.self),
                       #"{"first":{"first":1},"second":[true,[null]],"after":3.5}"#)
    }

    /// Goes back to a nested container after writing to its parent: not writable in one pass.
    struct BackToNested: Encodable {
        enum K: String, CodingKey { case a, b, c }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            var nested = c.nestedContainer(keyedBy: K.self, forKey: .a)
            try c.encode(1, forKey: .b)
            try nested.encode(2, forKey: .c)
        }
    }

    /// Goes back to a nested container after opening its sibling, which sits at the same depth.
    struct BackToSibling: Encodable {
        enum K: String, CodingKey { case a, b, c }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            var first = c.nestedUnkeyedContainer(forKey: .a)
            var second = c.nestedUnkeyedContainer(forKey: .b)
            try second.encode(1)
            try first.encode(2)
        }
    }

    struct SuperUser: Encodable {
        enum K: String, CodingKey { case a }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try 5.encode(to: c.superEncoder())
        }
    }

    struct Dated: Encodable { var at = Date(timeIntervalSince1970: 0) }
    struct Blob: Encodable { var bytes = Data([1, 2]) }
    struct Twice: Encodable {
        func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(1)
            try c.encode(2)
        }
    }

    func testWhatOnePassCannotWriteThrowsUnsupported() {
        for (name, value) in [("back to a nested container", BackToNested()), ("back to a sibling", BackToSibling()),
                              ("super encoder", SuperUser()),
                              ("Date", Dated()), ("Data", Blob()), ("two single values", Twice())] as [(String, any Encodable)] {
            XCTAssertThrowsError(try StreamingJSON.encode(value), name) { error in
                XCTAssertTrue(error is StreamingJSON.Unsupported, "\(name): \(error)")
            }
        }
    }

    /// What one pass declines goes through the JSONEncoder given; what neither can write still throws.
    func testTheFallbackWritesWhatOnePassDeclines() throws {
        struct Both: Codable, Equatable { var at: Date; var n: Int }
        let value = [Both(at: Date(timeIntervalSinceReferenceDate: 12.5), n: 3)]
        XCTAssertThrowsError(try StreamingJSON.encode(value))
        let bytes = try StreamingJSON.encode(value, orWith: JSONEncoder())
        XCTAssertEqual(try JSONDecoder().decode([Both].self, from: Data(bytes)), value)
        XCTAssertEqual(String(decoding: try StreamingJSON.encode([3], orWith: JSONEncoder()), as: UTF8.self), "[3]")
        XCTAssertThrowsError(try StreamingJSON.encode([Double.nan], orWith: JSONEncoder()))
    }

    func testANonFiniteNumberThrowsAsJSONEncoderDoes() {
        XCTAssertThrowsError(try StreamingJSON.encode([1.0, .nan]))
        XCTAssertThrowsError(try JSONEncoder().encode([1.0, .nan]))
        XCTAssertThrowsError(try StreamingJSON.encode(["x": Double.infinity]))
    }
}
