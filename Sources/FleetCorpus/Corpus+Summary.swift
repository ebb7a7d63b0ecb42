import FleetAudio
extension Corpus {
    /// Clips whose audio, run through `AudioAnalysis.assess` at load, does not give the manifest's
    /// expectation: the outcome must match, and so must the reason where one is listed.
    /// A `rejected` clip is refused by the API before any audio is heard; when its class decodes
    /// (a clip that is only too long) its audio must be `ok`, so that the refusal is the only thing
    /// it tests.
    public func expectationProblems() -> [CorpusError.Problem] {
        var problems: [CorpusError.Problem] = []
        for clip in clips {
            let verdict = clip.verdict
            let outcome = verdict.quality.outcome.rawValue
            let info = clip.info
            let detail = verdict.detail.map { " (\($0))" } ?? ""
            if info.expectedOutcome == .rejected {
                if info.clipClass.decodes && verdict.quality != .ok {
                    problems.append(.init(file: clip.file, "rejected clips should hold good audio, but it is \(verdict.quality.rawValue)\(detail)"))
                }
                continue
            }
            if outcome != info.expectedOutcome.rawValue {
                problems.append(.init(file: clip.file, "assesses as \(outcome) (\(verdict.quality.rawValue))\(detail), manifest expects \(info.expectedOutcome.rawValue)"))
            } else if let reason = info.expectedReason, reason != verdict.quality.rawValue {
                problems.append(.init(file: clip.file, "reason is \(verdict.quality.rawValue)\(detail), manifest expects \(reason)"))
            }
        }
        return problems
    }

    /// A few lines for `fleet corpus validate`: counts by language, class, outcome and format.
    public func summary() -> String {
        func counts(_ key: (Clip) -> String) -> String {
            var c: [String: Int] = [:]
            for clip in clips { c[key(clip), default: 0] += 1 }
            return c.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        let seconds = clips.filter { $0.clipClass.decodes }.reduce(0) { $0 + $1.durationMs } / 1000
        let mb = Double(totalBytes) / 1_000_000
        var s = "corpus \(directory): \(clips.count) clips, \((mb * 10).rounded() / 10) MB, \(seconds / 60) min \(seconds % 60) s of audio"
        s += "\n  languages: " + counts { $0.language }
        s += "\n  rounds:    " + counts { "round \($0.round)" }
        s += "\n  formats:   " + counts { $0.info.format }
        s += "\n  classes:   " + counts { $0.clipClass.rawValue }
        s += "\n  expected:  " + counts { $0.info.expectedOutcome.rawValue }
        return s
    }
}
