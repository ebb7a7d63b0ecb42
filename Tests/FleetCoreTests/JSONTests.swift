import XCTest
@testable import FleetCore

final class JSONTests: XCTestCase {
    func testParsesNestedDocumentAndReadsFields() throws {
        let v = try JSONValue.parse(#"{"a": [1, 2.5, -3e2], "b": {"c": "x\"y\u00e9\ud83d\ude00"}, "d": null, "e": true}"#)
        XCTAssertEqual(v["a"]?[0]?.int, 1)
        XCTAssertEqual(v["a"]?[1]?.double, 2.5)
        XCTAssertEqual(v["a"]?[2]?.double, -300)
        XCTAssertEqual(v["b"]?["c"]?.string, "x\"yé😀")
        XCTAssertEqual(v["d"]?.isNull, true)
        XCTAssertEqual(v["e"]?.bool, true)
        XCTAssertNil(v["missing"])
    }

    /// Integers of up to 15 digits are read digit by digit, the rest by the standard library's
    /// `Double(String)`: every literal must give what `Double(String)` gives, the sign of zero too.
    func testNumbersReadAsTheStandardLibraryReadsThem() throws {
        var literals = ["0", "-0", "7", "-7", "999999999999999", "-999999999999999", "1000000000000000",
                        "9007199254740993", "12345678901234567890", "0.5", "-0.0", "1e3", "1E-3", "2.5e+2", "-1.25E2",
                        "100", "123456789012345", "1234567890123456"]
        var r = SeededRandom(seed: 18)
        for _ in 0..<2000 {
            let digits = 1 + Int(r.next() % 19)
            var s = r.chance(0.5) ? "-" : ""
            s += String(1 + r.next() % 9) + (1..<digits).map { _ in String(r.next() % 10) }.joined()
            if r.chance(0.2) { s += "." + String(r.next() % 1000) }
            if r.chance(0.1) { s += "e" + String(Int(r.next() % 40) - 20) }
            literals.append(s)
        }
        for lit in literals {
            let want = try XCTUnwrap(Double(lit), lit)
            for doc in [lit, "[\(lit)]", "{\"n\":\(lit)}", " \(lit) "] {
                let v = try JSONValue.parse(doc)
                let got = try XCTUnwrap((v.array?.first ?? v["n"] ?? v).double, doc)
                XCTAssertEqual(got, want, doc)
                XCTAssertEqual(got.sign, want.sign, doc)
            }
        }
    }

    /// Objects are built from the members read, at their final size: every member arrives, nested
    /// objects keep their own members, and a repeated key keeps its last value.
    func testObjectsKeepEveryMemberAtAnyDepthAndTheLastOfARepeatedKey() throws {
        let v = try JSONValue.parse(#"{"a":1,"b":{"c":{"d":[{"e":2,"f":3},{}],"g":4},"h":5},"a":6,"i":{"j":7},"k":[]}"#)
        let want: JSONValue = ["a": 6, "b": ["c": ["d": [["e": 2, "f": 3], [:]], "g": 4], "h": 5], "i": ["j": 7], "k": []]
        XCTAssertEqual(v, want)
        var many = "{"
        for n in 0..<300 { many += (n > 0 ? "," : "") + "\"k\(n)\":{\"v\":\(n)}" }
        let big = try JSONValue.parse(many + "}")
        XCTAssertEqual(big.object?.count, 300)
        for n in [0, 1, 150, 299] { XCTAssertEqual(big["k\(n)"]?["v"]?.int, n) }
    }

    /// Objects keep their members in document order, each key once with its last value, on both
    /// paths the parser takes (pairwise up to 32 members, a hash set beyond); equality ignores order.
    func testObjectMembersKeepDocumentOrderAndTheLastOfARepeatedKeyOnBothPaths() throws {
        for size in [3, 32, 33, 500] {
            var doc = "{"
            for n in 0..<size { doc += "\"k\(size - n)\":\(n)," }
            doc += "\"k1\":\"last\",\"k\(size)\":\"again\"}"
            let o = try XCTUnwrap(JSONValue.parse(doc).object, "\(size)")
            XCTAssertEqual(o.count, size, "\(size)")
            XCTAssertEqual(o.keys, (0..<size).map { "k\(size - $0)" }, "\(size)")
            XCTAssertEqual(o["k1"], "last", "\(size)")
            XCTAssertEqual(o["k\(size)"], "again", "\(size)")
            if size > 3 { XCTAssertEqual(o["k2"]?.int, size - 2, "\(size)") }
            XCTAssertNil(o["k0"], "\(size)")
        }
        var a: JSONObject = ["x": 1, "y": 2, "x": 3]
        XCTAssertEqual(a.keys, ["x", "y"])
        XCTAssertEqual(a["x"], 3)
        XCTAssertEqual(a, ["y": 2, "x": 3])
        XCTAssertNotEqual(a, ["y": 2, "x": 4])
        XCTAssertNotEqual(a, ["y": 2, "z": 3])
        XCTAssertNotEqual(a, ["y": 2])
        a["y"] = nil
        a["z"] = "new"
        XCTAssertEqual(a.keys, ["x", "z"])
        XCTAssertEqual(a.removeValue(forKey: "x"), 3)
        XCTAssertNil(a.removeValue(forKey: "x"))
        XCTAssertEqual(Array(a.map(\.key)), ["z"])
        XCTAssertEqual(a.filter { $0.key != "z" }.count, 0)
    }

    /// A document over 64 KiB (where objects get no room reserved) reads as a small one does.
    func testALargeDocumentOfSmallObjectsReadsLikeASmallOne() throws {
        let count = 12_000
        var doc = "["
        for n in 0..<count { doc += (n > 0 ? "," : "") + "{\"a\":\(n),\"b\":[\(n)],\"a\":\(n + 1)}" }
        doc += "]"
        XCTAssertGreaterThan(doc.utf8.count, 64 << 10)
        let large = try XCTUnwrap(JSONValue.parse(doc).array)
        XCTAssertEqual(large.count, count)
        for n in [0, 1, 6_000, count - 1] {
            XCTAssertEqual(large[n].object?.keys, ["a", "b"], "\(n)")
            XCTAssertEqual(large[n]["a"]?.int, n + 1, "\(n): the last of a repeated key")
            XCTAssertEqual(large[n]["b"]?[0]?.int, n, "\(n)")
        }
        let small = try JSONValue.parse(#"[{"a":0,"b":[0],"a":1}]"#)
        XCTAssertEqual(small, .array([large[0]]))
    }

    func testSerialisationIsSortedAndRoundTrips() throws {
        let v: JSONValue = ["z": 1, "a": ["s": "line\nbreak", "n": nil], "m": [true, 1.5]]
        XCTAssertEqual(v.serialized(), #"{"a":{"n":null,"s":"line\nbreak"},"m":[true,1.5],"z":1}"#)
        XCTAssertEqual(try JSONValue.parse(v.serialized()), v)
        // In order but for the last pair, and in order throughout (sent as it is).
        XCTAssertEqual((["a": 1, "c": 2, "d": 3, "b": 4] as JSONValue).serialized(), #"{"a":1,"b":4,"c":2,"d":3}"#)
        XCTAssertEqual((["a": 1, "b": 2, "c": 3] as JSONValue).serialized(), #"{"a":1,"b":2,"c":3}"#)
    }

    func testSerialisationEscapesControlAndQuoteBytesAndKeepsUTF8() throws {
        let v: JSONValue = ["k": "a\"b\\c\u{01}\u{1f}\t\r é😀", "n": -1234567, "z": 0, "f": -0.5]
        XCTAssertEqual(v.serialized(), #"{"f":-0.5,"k":"a\"b\\c\u0001\u001f\t\r é😀","n":-1234567,"z":0}"#)
        XCTAssertEqual(try JSONValue.parse(v.serialized()), v)
        XCTAssertEqual(v.serializedBytes(), Array(v.serialized().utf8))
    }

    func testRedactingSerialisationReplacesNamedMembersAtAnyDepth() {
        let v: JSONValue = ["access_token": "secret1", "user": ["token": ["nested": 1], "name": "x"], "list": [["token": "t"]]]
        let out = String(decoding: v.serializedBytes(redacting: ["access_token", "token"], as: "<r>"), as: UTF8.self)
        XCTAssertEqual(out, #"{"access_token":"<r>","list":[{"token":"<r>"}],"user":{"name":"x","token":"<r>"}}"#)
    }

    func testRejectsMalformedInputWithOffset() {
        for bad in ["{", "[1,]", "{\"a\" 1}", "01x", "\"abc", "tru", "{\"a\":1} x", "[\"\u{01}\"]"] {
            XCTAssertThrowsError(try JSONValue.parse(bad), bad)
        }
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        XCTAssertThrowsError(try JSONValue.parse(deep)) { e in
            XCTAssertTrue("\(e)".contains("nesting"), "\(e)")
        }
    }
}

/// Hostile servers send anything: parsers answer nil or an error, never a crash.
final class HostileInputTests: XCTestCase {
    func testRandomBytesNeverCrashTheParsers() {
        var r = SeededRandom(seed: 2026)
        let alphabet = Array("0123456789-:.TZ+ {}[]\",:truefalsnul\\u\u{7f}é".utf8)
        for n in 0..<20_000 {
            let len = Int(r.next() % 40)
            let bytes = (0..<len).map { _ in n % 2 == 0 ? alphabet[Int(r.next() % UInt64(alphabet.count))] : UInt8(truncatingIfNeeded: r.next()) }
            _ = try? JSONValue.parse(bytes)
            _ = RFC3339.parseMillis(String(decoding: bytes, as: UTF8.self))
            _ = RFC3339.parseMillis("2026-11-29T15:08:48" + String(decoding: bytes, as: UTF8.self))
            _ = Base64URL.decode(String(decoding: bytes, as: UTF8.self))
            _ = Hex.decode(String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertEqual(RFC3339.parseMillis("2026-11-29T15:08:48Z"), 1_795_964_928_000)
    }

    /// The parser reads its input through an unchecked buffer, so every read must check the end
    /// itself: every prefix of a document using each construct (a truncated answer), and the document
    /// with each byte removed or replaced by a quote or backslash, must parse or fail — never read
    /// past the end (the tests' debug build traps on an out-of-bounds buffer read).
    func testEveryTruncationAndOneByteEditOfADocumentFailsCleanly() throws {
        let doc = Array(#"{"a":[1,-2.5e-3,0,true,false,null],"s":"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00é","o":{"k":{}},"e":[],"n":-0,"b":12345678901234567}"#.utf8)
        XCTAssertNoThrow(try JSONValue.parse(doc))
        for n in 0..<doc.count {
            XCTAssertThrowsError(try JSONValue.parse(Array(doc[..<n])), "prefix of \(n) bytes")
            var cut = doc; cut.remove(at: n)
            _ = try? JSONValue.parse(cut)
            for b in [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "e")] {
                var edited = doc; edited[n] = b
                _ = try? JSONValue.parse(edited)
            }
        }
    }

    /// Strings are scanned eight bytes a step: a quote, backslash, control byte or non-ASCII
    /// character at each position of a 20-byte string (every offset within and across words)
    /// is read, written and rejected as it would be one byte at a time.
    func testEveryPositionOfASpecialByteInALongStringIsReadAndWritten() throws {
        let plain = Array("abcdefghijklmnopqrst")
        // (the character, its escaped JSON spelling)
        let specials: [(Character, String)] = [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{01}", #"\u0001"#), ("é", "é"), ("😀", "😀")]
        for at in 0...plain.count {
            for (c, spelled) in specials {
                let text = String(plain[..<at]) + String(c) + String(plain[at...])
                let json = "\"" + String(plain[..<at]) + spelled + String(plain[at...]) + "\""
                XCTAssertEqual(JSONValue.string(text).serialized(), json, "written, at \(at)")
                XCTAssertEqual(try JSONValue.parse(json), .string(text), "read, at \(at)")
            }
            // A raw control byte and a lone UTF-8 continuation byte are errors wherever they are.
            for bad: UInt8 in [0x01, 0x1f, 0x80] {
                var bytes = Array(("\"" + String(plain) + "\"").utf8)
                bytes.insert(bad, at: 1 + at)
                XCTAssertThrowsError(try JSONValue.parse(bytes), "byte \(bad) at \(at)")
            }
        }
    }
}
