import Foundation
import Synchronization

/// A timezone as the API names it: an IANA name or a `±HH:MM` offset; UTC when unknown
/// (API.md "Streak"). Gives the local calendar day of an instant, for streak-day checks.
public struct LocalTimeZone: Sendable {
    /// What a name resolves to, made once per name per process and shared by every value of it:
    /// every checked user holds its zone, and 200,000 of them held 48 bytes each (a reference is 8),
    /// and `TimeZone(identifier:)` reads and parses the zone's file each time it is called.
    private final class Storage: Sendable {
        let identifier: String
        let fixedOffsetS: Int?
        let zone: TimeZone?

        init(_ raw: String) {
            let s = LocalTimeZone.trimmed(raw)
            if let off = LocalTimeZone.parseOffset(s) {
                identifier = s; fixedOffsetS = off; zone = nil
            } else if !s.isEmpty, let tz = TimeZone(identifier: s) {
                identifier = s; fixedOffsetS = nil; zone = tz
            } else {
                identifier = "UTC"; fixedOffsetS = 0; zone = nil
            }
        }
    }

    private let storage: Storage

    public init(_ raw: String) {
        if let known = Self.zones.withLock({ $0[raw] }) {
            storage = known
            return
        }
        let made = Storage(raw)
        storage = Self.zones.withLock { z in
            if let known = z[raw] { return known }  // made meanwhile by another thread
            z[raw] = made
            return made
        }
    }

    /// The names a process has met (a run's population names a handful; names come from the
    /// bench's own profiles, never from a server).
    private static let zones = Mutex<[String: Storage]>([:])

    public var identifier: String { storage.identifier }
    /// Equal for every value made from the same name: they share one storage.
    public var storageID: ObjectIdentifier { ObjectIdentifier(storage) }

    /// `raw` without leading and trailing whitespace (`CharacterSet.whitespaces`). A name whose
    /// first and last bytes are visible ASCII has none to trim, and is every name in practice:
    /// Foundation's trim costs ~10k instructions on Linux, paid by every checked user.
    static func trimmed(_ raw: String) -> String {
        if let f = raw.utf8.first, let l = raw.utf8.last, (0x21...0x7e).contains(f), (0x21...0x7e).contains(l) { return raw }
        return raw.trimmingCharacters(in: .whitespaces)
    }

    /// `+05:45` → 20700; anything else nil.
    public static func parseOffset(_ s: String) -> Int? {
        // Over the string's buffer, each two-byte part read as `Int(_:)` reads it (a sign
        // allowed): an array and two strings per user made were most of a user's timezone.
        var s = s
        return s.withUTF8 { b -> Int? in
            guard b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58,
                  let h = DecimalInt.parse(UnsafeBufferPointer(rebasing: b[1..<3])),
                  let m = DecimalInt.parse(UnsafeBufferPointer(rebasing: b[4..<6])), h <= 14, m < 60 else { return nil }
            return (h * 3600 + m * 60) * (b[0] == 45 ? -1 : 1)
        }
    }

    /// `20700` → `+05:45`.
    public static func formatOffset(seconds: Int) -> String {
        let a = abs(seconds) / 60
        let h = a / 60, m = a % 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    public func offsetSeconds(atMs ms: Int64) -> Int {
        if let fixed = storage.fixedOffsetS { return fixed }
        return storage.zone?.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000)) ?? 0
    }

    /// Days since 1970-01-01 in local time of the instant `ms` (floor division).
    public func localDay(atMs ms: Int64) -> Int64 {
        let local = ms + Int64(offsetSeconds(atMs: ms)) * 1000
        return local >= 0 ? local / 86_400_000 : -((-local + 86_400_000 - 1) / 86_400_000)
    }
}
