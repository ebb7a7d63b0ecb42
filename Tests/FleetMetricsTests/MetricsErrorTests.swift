import XCTest
@testable import FleetMetrics

/// FleetMetrics' errors: one documented enum, with the messages the structs it replaced had.
final class MetricsErrorTests: XCTestCase {
    func testMessagesNameTheFileTheRuleOrTheShards() throws {
        XCTAssertEqual(MetricsError.resultsFile(path: "r.json", problem: "windowNanos must be > 0").description, "r.json: windowNanos must be > 0")
        XCTAssertThrowsError(try Threshold.parse("p99 8000")) {
            XCTAssertEqual($0 as? MetricsError,
                           .threshold(expression: "p99 8000", problem: "expected 'STAT OP NUMBER' with OP one of <, <=, >, >="))
            XCTAssertEqual("\($0)", "threshold 'p99 8000': expected 'STAT OP NUMBER' with OP one of <, <=, >, >=")
        }
        XCTAssertThrowsError(try RunResults.load(path: "/nonexistent/results.json")) {
            guard case let .resultsFile(path, problem)? = $0 as? MetricsError else { return XCTFail("\($0)") }
            XCTAssertEqual(path, "/nonexistent/results.json")
            XCTAssertTrue(problem.hasPrefix("cannot read"), problem)
        }
        XCTAssertThrowsError(try ShardMerge.merge([])) { XCTAssertEqual("\($0)", "no results to merge") }
    }
}
