import XCTest
import FleetClient

/// Routes and recorded endpoint labels: one spelling, one place that knows the scope prefixes.
final class RouteTests: XCTestCase {
    func testRoutesKeepTheirTemplatesAndMethods() {
        XCTAssertEqual(Route.allCases.count, 30)
        XCTAssertEqual(Set(Route.allCases.map(\.rawValue)).count, Route.allCases.count, "no two routes share a template")
        XCTAssertEqual(Route.completeSession.rawValue, "POST /sessions/{id}/complete")
        XCTAssertEqual(Route.upload.rawValue, "PUT upload")
        XCTAssertEqual(Route.deleteTrainingData.method, "DELETE")
        XCTAssertEqual(Dictionary(grouping: Route.allCases, by: \.method).mapValues(\.count),
                       ["GET": 12, "POST": 12, "PUT": 2, "PATCH": 1, "DELETE": 3])
        XCTAssertEqual(Route(rawValue: "GET /sessions/{id}"), .getSession)
        XCTAssertNil(Route(rawValue: "GET /sessions/s1"), "a concrete path is not a template")
        XCTAssertEqual(Endpoints.templates, Set(Route.allCases.map(\.rawValue)))
    }

    func testEndpointLabelsParseTheirScopeAndRejectUnknownRoutes() {
        XCTAssertEqual(EndpointLabel(parsing: "GET /home"), EndpointLabel(.getHome))
        XCTAssertEqual(EndpointLabel(parsing: "warmup:POST /onboarding"), EndpointLabel(.postOnboarding, scope: .warmup))
        XCTAssertEqual(EndpointLabel(parsing: "audit:GET /me"), EndpointLabel(.getMe, scope: .audit))
        XCTAssertEqual(EndpointLabel(.getMe, scope: .audit).description, "audit:GET /me")
        XCTAssertEqual(EndpointLabel(.getHome).description, "GET /home")
        XCTAssertNil(EndpointLabel(parsing: "GET /nowhere"))
        XCTAssertNil(EndpointLabel(parsing: "setup:GET /home"), "an unknown prefix")
        XCTAssertNil(EndpointLabel(parsing: "http:GET /home"), "the latency metric's prefix is not a scope")
        XCTAssertTrue(EndpointLabel.isScoped("warmup:GET /config"))
        XCTAssertTrue(EndpointLabel.isScoped("audit:GET /me"))
        XCTAssertFalse(EndpointLabel.isScoped("GET /config"))
    }

    func testExchangesKnowTheirRoute() {
        XCTAssertEqual(Exchange(template: "POST /attempts/{id}/submit", path: "/attempts/a1/submit", status: 200, body: nil, intended: 0, sent: 0, received: 0).route, .submitAttempt)
        let made = Exchange(route: .getAttempt, path: "/attempts/a1", status: 200, body: nil, intended: 0, sent: 0, received: 0)
        XCTAssertEqual(made.route, .getAttempt)
        XCTAssertEqual(made.template, "GET /attempts/{id}")
        let elsewhere = Exchange(template: "GET /elsewhere", path: "/elsewhere", status: 200, body: nil, intended: 0, sent: 0, received: 0)
        XCTAssertNil(elsewhere.route)
        XCTAssertEqual(elsewhere.template, "GET /elsewhere", "a template that names no route is kept as given")
    }
}
