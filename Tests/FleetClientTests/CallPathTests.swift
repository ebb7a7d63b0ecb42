@testable import FleetClient
import XCTest

/// The id a call's path was made from stands for reading it back off the path (`Exchange.pathID`).
final class CallPathTests: XCTestCase {
    func testTheKnownIDIsWhatThePathSays() {
        let routes = Route.allCases.filter { $0.rawValue.contains("{id}") }
        XCTAssertGreaterThan(routes.count, 10)
        for route in routes {
            let template = String(route.rawValue.split(separator: " ", maxSplits: 1)[1])
            let parts = template.components(separatedBy: "{id}")
            for id in ["s_12", "0b5e4c1e-9f3a-4d8e-b2c1-7a6f5e4d3c2b", "a/b", "/", "", "é", "x?y=1"] {
                let p = CallPath(parts[0], id, parts[1])
                XCTAssertEqual(p.path, parts[0] + id + parts[1])
                var e = Exchange(route: route, path: p.path, status: 200, body: nil, intended: 0, sent: 0, received: 0)
                let read = e.pathID  // no known id: read off the path
                e.knownPathID = p.id
                XCTAssertEqual(e.pathID, read, "\(route) with id \(id.debugDescription)")
            }
        }
    }

    func testALiteralPathCarriesNoID() {
        let p: CallPath = "/home"
        XCTAssertEqual(p.path, "/home")
        XCTAssertNil(p.id)
    }
}
