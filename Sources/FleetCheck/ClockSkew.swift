import FleetCore
import Synchronization

/// Bounds on the stack's clock minus the bench's, from `Date` headers, so that a local-day check
/// is never fooled by skew: a `Date` of second `d` was stamped between the request going out and
/// the answer arriving, so the offset lies in `(d − received, d + 1 s − sent)`. Intersecting every
/// answer's interval narrows it; without a `Date` header the profile's tolerance applies.
public final class ClockSkew: Sendable {
    private let bounds = Mutex<(lo: Int64, hi: Int64, samples: Int)>((Int64.min, Int64.max, 0))
    private let toleranceMs: Int64

    public init(toleranceS: Double) { toleranceMs = Int64(toleranceS * 1000) }

    public func observe(serverDateMs d: Int64, sentWallMs: Int64, receivedWallMs: Int64) {
        bounds.withLock { b in
            let lo = max(b.lo, d - receivedWallMs), hi = min(b.hi, d + 1000 - sentWallMs)
            // A server whose Date headers contradict each other is not trusted to narrow anything.
            if lo <= hi { b = (lo, hi, b.samples + 1) }
        }
    }

    /// The offset range in milliseconds (server − bench), with a 50 ms margin for rounding.
    public var rangeMs: ClosedRange<Int64> {
        bounds.withLock { b in
            b.samples == 0 ? (-toleranceMs)...toleranceMs : (b.lo - 50)...(b.hi + 50)
        }
    }
}

/// The run's time base: monotonic instants to wall milliseconds, seconds since start.
public struct RunClock: Sendable {
    public let startMono: UInt64
    public let startWallMs: Int64

    public init(startMono: UInt64, startWallMs: Int64) {
        self.startMono = startMono
        self.startWallMs = startWallMs
    }

    public func wallMs(_ mono: UInt64) -> Int64 {
        mono >= startMono ? startWallMs + Int64((mono - startMono) / 1_000_000) : startWallMs - Int64((startMono - mono) / 1_000_000)
    }

    public func secondsSinceStart(_ mono: UInt64) -> Double {
        mono >= startMono ? Double(mono - startMono) / 1e9 : -Double(startMono - mono) / 1e9
    }
}
