import Foundation

/// The two-proportion z-test: are `x1/n1` and `x2/n2` the same rate? Used for error rates and
/// journey completion, where each request (journey) is one Bernoulli trial.
public struct ProportionTest: Sendable, Codable, Equatable {
    public var baseRate: Double
    public var newRate: Double
    /// Two-sided p-value of "both rates are equal" (1 when either side has no trials or both rates are 0 or 1).
    public var pValue: Double
    /// 95 % interval of `newRate - baseRate` (unpooled standard error).
    public var low: Double
    public var high: Double

    public init(successes x1: Int64, of n1: Int64, versus x2: Int64, of n2: Int64) {
        let p1 = n1 > 0 ? Double(x1) / Double(n1) : 0
        let p2 = n2 > 0 ? Double(x2) / Double(n2) : 0
        baseRate = p1
        newRate = p2
        guard n1 > 0, n2 > 0 else { pValue = 1; low = p2 - p1; high = p2 - p1; return }
        let pooled = Double(x1 + x2) / Double(n1 + n2)
        let se0 = (pooled * (1 - pooled) * (1 / Double(n1) + 1 / Double(n2))).squareRoot()
        pValue = se0 > 0 ? 2 * (1 - Normal.cdf(abs(p2 - p1) / se0)) : 1
        let se = (p1 * (1 - p1) / Double(n1) + p2 * (1 - p2) / Double(n2)).squareRoot()
        low = p2 - p1 - 1.959964 * se
        high = p2 - p1 + 1.959964 * se
    }
}

enum Normal {
    /// Standard normal CDF through erfc, accurate to double precision in the tails we use.
    static func cdf(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }
}
