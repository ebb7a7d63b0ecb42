import XCTest
@testable import FleetCore

final class SeededRandomTests: XCTestCase {
    func testSeededRandomIsDeterministicPerStream() {
        var a = SeededRandom(seed: 42, stream: 7), b = SeededRandom(seed: 42, stream: 7), c = SeededRandom(seed: 42, stream: 8)
        let xa = (0..<5).map { _ in a.next() }, xb = (0..<5).map { _ in b.next() }, xc = (0..<5).map { _ in c.next() }
        XCTAssertEqual(xa, xb)
        XCTAssertNotEqual(xa, xc)
        var r = SeededRandom(seed: 1)
        let mean = (0..<100_000).map { _ in r.exponential(mean: 2.0) }.reduce(0, +) / 100_000
        XCTAssertEqual(mean, 2.0, accuracy: 0.05)
    }
}
