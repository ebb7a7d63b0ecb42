import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics
import Foundation
import XCTest

/// Journey A's additions to the shared journey harness: users of any cohort and locale, a walk
/// with an error-rich message, read-backs as typed values.
extension JourneyBHarness {
    func user(_ index: Int, world: FleetWorld, cohort: String, locale: String = "en-US") -> VirtualUser {
        let device = Device(credentials: Credentials(installId: "inst-ja-\(index)-\(UUID().uuidString.prefix(8))", locale: locale,
                                                     timezone: "UTC"))
        return VirtualUser(index: index, seed: 42, world: world, device: device, cohort: cohort, start: MonotonicClock.now())
    }

    /// Warms `user` up to its cohort (asserting it worked) with its own trace, then walks `journey`.
    func prepareAndWalk(_ journey: any Journey, _ user: VirtualUser, file: StaticString = #filePath,
                        line: UInt = #line) async -> (JourneyOutcome, RequestTrace) {
        let ready = await Population.prepare(user)
        XCTAssertTrue(ready, "warm-up of cohort \(user.cohort) failed", file: file, line: line)
        return await walk(journey, user)
    }

    func me(_ user: VirtualUser) async throws -> MeInfo {
        let body = try await get("GET /me", "/me", as: user)
        return try XCTUnwrap(MeInfo(body))
    }

    func growth(_ user: VirtualUser) async throws -> GrowthInfo {
        let body = try await get("GET /growth", "/growth", as: user)
        return try XCTUnwrap(GrowthInfo(body))
    }

    /// The journey's ending as recorded (step and code of its exit), for failure messages and checks.
    func exit(of journey: String) -> JourneyExit? {
        recorder.snapshot(RunMetadata.testing).journeys.first { $0.journey == journey }?.exits.first
    }
}

extension RequestTrace {
    /// The trace as lines, for assertion messages.
    var dump: String { entries.map(\.description).joined(separator: "\n") }
}
