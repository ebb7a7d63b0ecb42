import FleetCore
import XCTest
@testable import FleetClient
@testable import FleetHTTP
import FleetMetrics
import FleetReport

/// A hostile error envelope reaches the report escaped and cut, not as markup or a megabyte cell.
final class ClientServerTextReportTests: XCTestCase {
    func testHostileCodeAndMessageAreEscapedAndCutInHTMLAndCSV() async throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let message = "<img src=x onerror=alert(1)>,\"quoted\"\n" + String(repeating: "m", count: 100_000)
        let envelope = "{\"error\":{\"code\":\"<script>alert(1)</script>\",\"message\":\(JSONValue.string(message).serialized()),\"retryable\":false}}"
        let server = try ScriptedServer { _, _ in Wire.json(400, envelope) }
        defer { server.stop() }
        let client = testClient(server.baseURL, engine: engine)
        var random = SeededRandom(seed: 1)
        _ = await client.me(signedIn(), intended: MonotonicClock.now(), random: &random)
        let results = client.recorder.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "now"))
        let html = ReportWriter.renderHTML(results)
        XCTAssertFalse(html.contains("<script>alert"), "code reached the HTML unescaped")
        XCTAssertFalse(html.contains("<img src=x"), "message reached the HTML unescaped")
        XCTAssertTrue(html.contains("invalid_code:&lt;script&gt;"), "the code is shown, escaped")
        XCTAssertFalse(html.contains(String(repeating: "m", count: ServerText.maxMessage + 1)), "message not cut")
        let csv = CSVTables.errors(results)
        let row = try XCTUnwrap(csv.split(separator: "\n").first { $0.contains("invalid_code") })
        XCTAssertTrue(row.contains("\"<img src=x onerror=alert(1)>,\"\"quoted\"\""), "the message is one quoted CSV field: \(row.prefix(120))")
        XCTAssertLessThan(row.count, 400)
    }
}
