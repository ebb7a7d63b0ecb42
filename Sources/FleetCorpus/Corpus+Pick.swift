import FleetCore

extension Corpus {
    /// The clips of one language (matched by primary subtag: `zh-Hans` finds the `zh` clips),
    /// class and round.
    public func clips(language: String, clipClass: ClipClass? = nil, round: Int? = nil) -> [Clip] {
        clips.filter {
            LanguageTag.sameLanguage($0.language, language) && (clipClass == nil || $0.clipClass == clipClass) && (round == nil || $0.round == round)
        }
    }

    /// A seeded choice of clip for a user who reads in `language` and records round `round`.
    /// `language` is the server's code (a session's `language`); clips are matched to it by
    /// primary subtag, since servers name a language differently (`zh`, `zh-Hans`).
    ///
    /// First a class is drawn with probability proportional to `classMix` (for example
    /// `["speech": 0.98, "silence": 0.02]`; unknown names and weights ≤ 0 are ignored, classes
    /// without a clip in `language` drop out), then a clip uniformly among that class's clips of
    /// the language and round, or of any round when the round has none (edge cases exist for
    /// one round only). Keys are taken in sorted order, so the same generator state gives the
    /// same clip in every process. Falls back to speech, then to any clip of the language, then
    /// to any clip; a loaded corpus is never empty.
    public func pick(language: String, round: Int, classMix: [String: Double],
                     using random: inout SeededRandom) -> Clip {
        // Runs for every take: what it needs was indexed with the corpus (`PickIndex`), so a take
        // is a few lookups and no allocation. It used to filter the language's clips by class
        // and round on every take (a scan and two arrays each, ~1.5k instructions per request of
        // the daily quest, bench/instructions.sh). The draws are the same: the classes in the
        // order of their names, the generator advanced as `SeededRandom.weightedIndex` does.
        let want = LanguageTag.primary(language)
        let pool = want.isEmpty ? everyClip : (byLanguage[want] ?? everyClip)
        let chosen = Self.drawClass(in: pool, classMix: classMix, using: &random)
        let ofClass = pool.byClass[chosen ?? .speech]
        let candidates = ofClass?.byRound[round] ?? ofClass?.all ?? pool.all
        let i = min(candidates.count - 1, Int(random.unit() * Double(candidates.count)))
        return clips[candidates[i]]
    }

    /// A class drawn with probability proportional to its weight in `classMix` among the classes
    /// `pool` has; nil (and no draw) when none has a positive weight. What the plain definition
    /// draws (`weightedIndex` over those weights in the order of the classes' names), with the
    /// weights gathered on the stack instead of in two arrays per take.
    private static func drawClass(in pool: PickIndex.Pool, classMix: [String: Double], using random: inout SeededRandom) -> ClipClass? {
        let n = ClipClass.byName.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { w -> ClipClass? in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { rank -> ClipClass? in
                w.initialize(repeating: 0)
                for (name, weight) in classMix where weight > 0 {
                    guard let c = ClipClass(rawValue: name), pool.byClass[c] != nil,
                          let r = ClipClass.byName.firstIndex(of: c) else { continue }
                    w[r] = weight
                }
                // The positive weights moved to the front, in name order (k <= r: nothing unread
                // is overwritten), each with its class's rank.
                var k = 0
                for r in 0..<n where w[r] > 0 { w[k] = w[r]; rank[k] = r; k += 1 }
                guard k > 0 else { return nil }
                return ClipClass.byName[rank[random.weightedIndex(UnsafeBufferPointer(rebasing: w[..<k]))]]
            }
        }
    }

    /// Problems with a profile's class mix, each naming the key: unknown classes, negative
    /// weights, or nothing left to pick. Empty when the mix is usable.
    public static func problems(inClassMix mix: [String: Double]) -> [String] {
        var p: [String] = []
        for (name, w) in mix.sorted(by: { $0.key < $1.key }) {
            if ClipClass(rawValue: name) == nil {
                p.append("clip_mix.\(name): unknown class (expected one of \(ClipClass.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if w < 0 || !w.isFinite { p.append("clip_mix.\(name): weight \(w) must be a finite number ≥ 0") }
        }
        if !mix.isEmpty && !mix.values.contains(where: { $0 > 0 }) { p.append("clip_mix: every weight is 0") }
        return p
    }

    /// The key a clip's language is found under, the one a session's language looks up:
    /// its primary subtag, lower-cased (`LanguageTag.primary`; computed once per clip, at load).
    static func languageKey(_ tag: String) -> String { LanguageTag.primary(tag) }
}

extension ClipClass {
    /// The classes in the order of their names: the order `pick` weighs a class mix in.
    static let byName: [ClipClass] = allCases.sorted { $0.rawValue < $1.rawValue }
}

/// Clip indices as `Corpus.pick` looks them up, built once with the corpus.
struct PickIndex: Sendable {
    /// One pool (a language's clips, or every clip): all of them, and by class, then round.
    struct Pool: Sendable {
        var all: [Int] = []
        /// Only classes the pool has a clip of.
        var byClass: [ClipClass: Class] = [:]
    }

    struct Class: Sendable {
        var all: [Int] = []
        /// Only rounds the class has a clip of.
        var byRound: [Int: [Int]] = [:]
    }

    /// The pool of `indices` of `clips`, each list in corpus order.
    static func pool(_ indices: some Sequence<Int>, of clips: [Clip]) -> Pool {
        var p = Pool()
        for i in indices {
            let c = clips[i]
            p.all.append(i)
            p.byClass[c.clipClass, default: Class()].all.append(i)
            p.byClass[c.clipClass]!.byRound[c.round, default: []].append(i)
        }
        return p
    }
}
