import Foundation

/// Maps data values to pixels along one axis and chooses readable ticks for it.
///
/// Three kinds: linear (time, counts), log10 (latencies spanning decades) and "nines" — the
/// HdrHistogram percentile axis where 90 %, 99 %, 99.9 % … are equally spaced, so the tail that
/// matters gets as much room as the body.
struct ChartScale {
    enum Kind { case linear, log10, nines }

    let kind: Kind
    /// Domain in transformed units (for nines: number of nines, for log: log10 of the value).
    let low: Double
    let high: Double
    let pixelLow: Double
    let pixelHigh: Double
    let ticks: [(value: Double, label: String)]

    /// A scale covering `values`, with ~`tickCount` ticks; `includeZero` for counts and latencies.
    init(kind: Kind, values: [Double], pixelLow: Double, pixelHigh: Double, tickCount: Int = 5, includeZero: Bool = false,
         integerSteps: Bool = false) {
        self.kind = kind
        self.pixelLow = pixelLow
        self.pixelHigh = pixelHigh
        let finite = values.filter { $0.isFinite }
        switch kind {
        case .linear:
            var lo = finite.min() ?? 0, hi = finite.max() ?? 1
            if includeZero { lo = Swift.min(lo, 0) }
            if hi <= lo { hi = lo + 1 }
            var step = ChartScale.niceStep((hi - lo) / Double(Swift.max(tickCount, 1)))
            if integerSteps { step = Swift.max(1, step.rounded(.up)) }
            lo = (lo / step).rounded(.down) * step
            hi = (hi / step).rounded(.up) * step
            low = lo; high = hi
            ticks = stride(from: lo, through: hi + step / 2, by: step).map { ($0, Format.tick($0)) }
        case .log10:
            let positive = finite.filter { $0 > 0 }
            let lo = (Foundation.log10(positive.min() ?? 1)).rounded(.down)
            var hi = (Foundation.log10(positive.max() ?? 10)).rounded(.up)
            if hi <= lo { hi = lo + 1 }
            low = lo; high = hi
            ticks = stride(from: lo, through: hi, by: 1).map { ($0, Format.tick(Foundation.pow(10, $0))) }
        case .nines:
            // Values are already in nines (see `nines(ofPercentile:)`).
            let hi = Swift.max(1, (finite.max() ?? 2).rounded(.up))
            low = 0; high = hi
            ticks = stride(from: 0, through: hi, by: 1).map { ($0, ChartScale.ninesLabel(Int($0))) }
        }
    }

    /// The pixel position of a data value.
    func pixel(_ value: Double) -> Double {
        var t: Double
        switch kind {
        case .linear, .nines: t = value
        case .log10: t = value > 0 ? Foundation.log10(value) : low
        }
        t = Swift.min(Swift.max(t, low), high)
        return pixelLow + (t - low) / (high - low) * (pixelHigh - pixelLow)
    }

    /// The pixel of a tick (ticks are in transformed units already).
    func tickPixel(_ tick: Double) -> Double {
        pixelLow + (tick - low) / (high - low) * (pixelHigh - pixelLow)
    }

    /// 1, 2 or 5 × a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = Foundation.pow(10, Foundation.log10(raw).rounded(.down))
        for m in [1.0, 2.0, 2.5, 5.0, 10.0] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    /// Percentile (0…100) → number of nines: 90 % → 1, 99 % → 2, 99.9 % → 3.
    static func nines(ofPercentile p: Double) -> Double {
        p >= 100 ? .infinity : -Foundation.log10(1 - p / 100)
    }

    static func ninesLabel(_ n: Int) -> String {
        switch n {
        case 0: return "0%"
        case 1: return "90%"
        case 2: return "99%"
        default: return "99." + String(repeating: "9", count: n - 2) + "%"
        }
    }
}
