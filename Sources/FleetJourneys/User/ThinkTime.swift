import FleetCore

/// A distribution of pauses (think times, relaunch delays, offline spells), in milliseconds.
///
/// Profiles name one per step; `sample` draws from the user's own generator so that a seed gives
/// the same pauses in every run.
public enum ThinkTime: Sendable, Equatable {
    case constant(ms: Double)
    case uniform(minMs: Double, maxMs: Double)
    case exponential(meanMs: Double)
    case lognormal(medianMs: Double, sigma: Double)

    public func sample(_ random: inout SeededRandom) -> Double {
        switch self {
        case let .constant(ms): return ms
        case let .uniform(lo, hi): return lo + (hi - lo) * random.unit()
        case let .exponential(mean): return random.exponential(mean: mean)
        case let .lognormal(median, sigma): return random.lognormal(median: median, sigma: sigma)
        }
    }

    public var meanMs: Double {
        switch self {
        case let .constant(ms): return ms
        case let .uniform(lo, hi): return (lo + hi) / 2
        case let .exponential(mean): return mean
        case let .lognormal(median, sigma): return median * exp(sigma * sigma / 2)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
