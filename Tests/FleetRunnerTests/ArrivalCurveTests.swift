import XCTest
import FleetCore
@testable import FleetRunner

final class ArrivalCurveTests: XCTestCase {
    func spec(_ zones: [(String, Double)], curve: PopulationSpec.Curve = .reminder(reminderMin: 510, spreadMin: 30, baseShare: 0.2),
              dau: Int = 100_000) -> PopulationSpec {
        var s = PopulationSpec(dailyActiveUsers: dau)
        s.timezones = zones
        s.curve = curve
        s.sessionsPerUser = [(1, 0.5), (2, 0.5)]
        return s
    }

    func testADaysArrivalsAddUpToTheVisitsAndPeakAtTheLocalReminder() {
        let c = ArrivalCurve(spec: spec([("UTC", 1)]))
        let visits = c.perMinute.reduce(0) { $0 + $1 * 60 }
        XCTAssertEqual(visits, 150_000, accuracy: 150, "100 000 users × 1.5 sessions")
        // 08:30:00 is the boundary of two minutes that hold the same arrivals: either is the peak minute.
        XCTAssertTrue([8 * 60 + 29, 8 * 60 + 30].contains(c.peak.minute), "\(c.peak.minute)")
        // 80 % of visits in a normal of σ = 30 min: density 0.8 / (σ√2π) per second, plus the floor.
        let expected = 150_000 * (0.8 / (1800 * (2 * Double.pi).squareRoot()) + 0.2 / 86_400)
        XCTAssertEqual(c.peak.rate, expected, accuracy: expected * 0.01)
    }

    func testThePeakMovesWithTheTimezoneMix() {
        // Local 08:30 in UTC+05:30 is 03:00 UTC; in UTC−05:00 it is 13:30 UTC.
        XCTAssertTrue([179, 180].contains(ArrivalCurve(spec: spec([("+05:30", 1)])).peak.minute))
        let two = ArrivalCurve(spec: spec([("+05:30", 3), ("-05:00", 1)]))
        XCTAssertTrue([179, 180].contains(two.peak.minute))
        XCTAssertGreaterThan(two.perMinute[13 * 60 + 30], 5 * two.perMinute[20 * 60], "the second zone's own peak")
        let seven = ArrivalCurve(spec: spec([("-08:00", 1), ("-05:00", 1), ("UTC", 1), ("+01:00", 1), ("+05:30", 1),
                                             ("+08:00", 1), ("+09:00", 1)]))
        // Seven zones spread the same visits: a lower peak than one zone's.
        XCTAssertLessThan(seven.peak.rate, ArrivalCurve(spec: spec([("UTC", 1)])).peak.rate / 2)
    }

    func testHourlyWeightsGiveThatShareOfVisitsPerHour() {
        var w = [Double](repeating: 0, count: 24)
        w[9] = 3; w[18] = 1
        let c = ArrivalCurve(spec: spec([("UTC", 1)], curve: .hourly(w), dau: 3600))
        // 5400 visits, 3/4 of them between 09:00 and 10:00: 4050 per 3600 s.
        XCTAssertEqual(c.perMinute[9 * 60 + 10], 4050.0 / 3600, accuracy: 1e-9)
        XCTAssertEqual(c.perMinute[18 * 60], 1350.0 / 3600, accuracy: 1e-9)
        XCTAssertEqual(c.perMinute[12 * 60], 0)
        XCTAssertEqual(c.peakHourStartMinute, 9 * 60)
    }

    func testACompressedDayPutsTheVisitsWhereTheCurveDoes() {
        let s = spec([("UTC", 1), ("+08:00", 1)])
        let visits = PopulationSchedule.visits(s, seed: 3, users: 4000, window: .day, compression: 60)
        XCTAssertTrue(visits.allSatisfy { $0.t >= 0 && $0.t < 1440 })
        // Arrivals per run minute = UTC hour (compression 60): peaks at 08 UTC (08:30 local) and 00 UTC (08:30 in +08:00).
        var perMinute = [Int](repeating: 0, count: 24)
        for v in visits { perMinute[Int(v.t / 60)] += 1 }
        let top = perMinute.enumerated().sorted { $0.element > $1.element }.prefix(2).map(\.offset).sorted()
        XCTAssertEqual(top, [0, 8])
        // Returning visits are the same users again, each at least min_gap_h after the first.
        let byUser = Dictionary(grouping: visits, by: \.user)
        let twice = byUser.values.filter { $0.count == 2 }
        XCTAssertGreaterThan(twice.count, 1500, "half of the users have two sessions")
        for v in twice {
            XCTAssertEqual(v.map(\.visit).sorted(), [0, 1])
            let d = abs(v[0].t - v[1].t) * 60
            XCTAssertGreaterThanOrEqual(min(d, 86_400 - d), 2 * 3600 - 1e-6)
        }
    }

    func testAPeakHourRunHoldsOnlyThatHoursVisits() {
        let s = spec([("UTC", 1)])
        let all = PopulationSchedule.visits(s, seed: 3, users: 2000, window: .day, compression: 1)
        let hour = PopulationSchedule.visits(s, seed: 3, users: 2000, window: .peakHour, compression: 60)
        let start = Double(ArrivalCurve(spec: s).peakHourStartMinute * 60)
        XCTAssertEqual(hour.count, all.filter { $0.t >= start && $0.t < start + 3600 }.count)
        XCTAssertTrue(hour.allSatisfy { $0.t < 60 })
    }

    func testAUsersTraitsAreTheSameOnEveryVisitAndFollowTheMixes() {
        var s = spec([("UTC", 1), ("Asia/Tokyo", 1)])
        s.appVersions = [("1.4.0", 0.9), ("0.9.0", 0.1)]
        s.cohorts = ["new": 1, "subscriber": 1]
        XCTAssertEqual(PopulationUser.draw(s, seed: 9, index: 17), PopulationUser.draw(s, seed: 9, index: 17))
        let users = (0..<2000).map { PopulationUser.draw(s, seed: 9, index: $0) }
        let old = users.filter { $0.appVersion == "0.9.0" }.count
        XCTAssertEqual(Double(old) / 2000, 0.1, accuracy: 0.025)
        XCTAssertEqual(Set(users.map(\.zone)), ["UTC", "Asia/Tokyo"])
        let c = users[0].credentials()
        XCTAssertEqual(c.installId, users[0].installId)
        XCTAssertEqual(c.sameInstall().appVersion, users[0].appVersion)
        XCTAssertEqual(PopulationUser.decode(PopulationUser.encode(user: 12345, visit: 2)).user, 12345)
        XCTAssertEqual(PopulationUser.decode(PopulationUser.encode(user: 12345, visit: 2)).visit, 2)
    }
}
