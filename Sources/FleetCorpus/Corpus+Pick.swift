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
        // Runs for every take: the language's clips come from the index built with the corpus.
        // The filters keep clip indices, not clips: copying a Clip (its manifest entry's strings)
        // into each filtered array was most of a take's cost.
        let want = LanguageTag.primary(language)
        let ofLanguage = want.isEmpty ? [] : byLanguage[want] ?? []
        let pool = ofLanguage.isEmpty ? Array(clips.indices) : ofLanguage
        var classes: [ClipClass] = []
        var weights: [Double] = []
        for name in classMix.keys.sorted() {
            guard let w = classMix[name], w > 0, let c = ClipClass(rawValue: name),
                  pool.contains(where: { clips[$0].clipClass == c }) else { continue }
            classes.append(c)
            weights.append(w)
        }
        let chosen: ClipClass? = classes.isEmpty ? nil : classes[random.weightedIndex(weights)]
        let ofClass = pool.filter { clips[$0].clipClass == (chosen ?? .speech) }
        let candidates: [Int]
        if let inRound = Optional(ofClass.filter { clips[$0].round == round }), !inRound.isEmpty {
            candidates = inRound
        } else if !ofClass.isEmpty {
            candidates = ofClass
        } else {
            candidates = pool
        }
        let i = min(candidates.count - 1, Int(random.unit() * Double(candidates.count)))
        return clips[candidates[i]]
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
