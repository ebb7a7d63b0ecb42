#if canImport(Glibc)
import Glibc
#endif

/// A small, fast, seedable generator (xoshiro256**), one per virtual user.
///
/// Determinism is a feature of the bench: a user's every choice comes from the generator seeded
/// by `(run seed, user index)`, so one seed replays one sequence of decisions. The state is
/// expanded from the two inputs with SplitMix64, as the xoshiro authors recommend, so that
/// neighbouring user indices do not give correlated streams.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64, stream: UInt64 = 0) {
        var sm = seed ^ (stream &* 0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03
        func splitmix(_ x: inout UInt64) -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitmix(&sm); s1 = splitmix(&sm); s2 = splitmix(&sm); s3 = splitmix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }  // the all-zero state is a fixed point
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Exponential with the given mean (inter-arrival times of a Poisson process).
    public mutating func exponential(mean: Double) -> Double {
        -mean * log(1.0 - unit())
    }

    /// Standard normal by Box–Muller (one value per call; simplicity over speed).
    public mutating func normal() -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return sqrt(-2.0 * log(u1)) * cos(2.0 * Double.pi * u2)
    }

    /// Lognormal parameterised the way service times are described: by median and sigma.
    public mutating func lognormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * normal())
    }

    /// Index chosen with probability proportional to `weights` (which need not sum to 1).
    /// Any collection of weights: `Corpus.pick` passes a stack buffer, to draw without an array.
    public mutating func weightedIndex(_ weights: some Collection<Double>) -> Int {
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        var x = unit() * total
        for (i, w) in weights.enumerated() {
            x -= w
            if x < 0 { return i }
        }
        return weights.count - 1
    }
}
