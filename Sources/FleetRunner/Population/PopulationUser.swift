import FleetClient
import FleetCore
import FleetJourneys
import Synchronization

/// What one daily active user is, drawn from its own generator: the same traits whichever
/// visit asks (the schedule needs the zone and the session count, the visit the rest).
public struct PopulationUser: Sendable, Equatable {
    public var index: Int
    public var installId: String
    public var zone: String
    public var locale: String
    public var appVersion: String?
    public var cohort: String
    public var sessions: Int

    public static func draw(_ spec: PopulationSpec, seed: UInt64, index: Int) -> PopulationUser {
        var r = SeededRandom(seed: seed ^ 0x9097_1A7E, stream: UInt64(index))
        let id = "pop-" + Hex.encode((0..<12).map { _ in UInt8(truncatingIfNeeded: r.next()) })
        let zone = spec.timezones[r.weightedIndex(spec.timezones.map(\.weight))].zone
        let locale = spec.locales[r.weightedIndex(spec.locales.map(\.weight))].value
        let version = spec.appVersions.isEmpty ? nil : spec.appVersions[r.weightedIndex(spec.appVersions.map(\.weight))].value
        let cohorts = spec.cohorts.sorted { $0.key < $1.key }
        let cohort = cohorts[r.weightedIndex(cohorts.map(\.value))].key
        let sessions = spec.sessionsPerUser[r.weightedIndex(spec.sessionsPerUser.map(\.weight))].count
        return PopulationUser(index: index, installId: id, zone: zone, locale: locale, appVersion: version, cohort: cohort,
                              sessions: sessions)
    }

    /// The user's install as the app keeps it (tokens added at its first sign-in).
    public func credentials() -> Credentials {
        let c = Credentials(installId: installId, locale: locale, timezone: zone)
        c.appVersion = appVersion
        return c
    }

    /// A `launch(index:)` index carries the user and the visit number: user << 8 | visit.
    public static func encode(user: Int, visit: Int) -> Int { user << 8 | min(visit, 255) }
    public static func decode(_ local: Int) -> (user: Int, visit: Int) { (local >> 8, local & 0xFF) }
}

/// Devices of returning users, so that a later visit is the same install with its tokens and
/// state, not a new one. A device is lent to one visit at a time.
final class ReturningDevices: Sendable {
    private struct Shelf {
        var devices: [Int: Device] = [:]
        var busy: Set<Int> = []
    }
    private let shelf = Mutex(Shelf())

    enum Lease { case new, returning(Device), busy }

    func lease(_ user: Int) -> Lease {
        shelf.withLock { s in
            if s.busy.contains(user) { return .busy }
            s.busy.insert(user)
            if let d = s.devices[user] { return .returning(d) }
            return .new
        }
    }

    func giveBack(_ user: Int, _ device: Device) {
        shelf.withLock { s in
            s.busy.remove(user)
            s.devices[user] = device
        }
    }
}
