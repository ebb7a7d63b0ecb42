import FleetAudio
import FleetCorpus
import FleetCore
import Foundation
import FleetTestSupport
import XCTest
@testable import FleetStack

/// Every clip of the committed corpus, uploaded through the API of a real reference stack, ends
/// as its manifest says: assessed, unreliable or failed (with the listed reason), or rejected
/// when the attempt is created.
final class CorpusAssessmentTests: XCTestCase {
    private static var corpusDirectory: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("audio-corpus").path
    }

    func testEveryManifestClipIsAssessedAsMarked() throws {
        // The manifest and raw files, not `Corpus.load`: FleetAudioTests check the loader, and
        // decoding everything twice would double this test's time.
        let clips = try Corpus.manifest(directory: Self.corpusDirectory)
        XCTAssertGreaterThan(clips.count, 80)
        let app = try AppStack { s in s.workers = 4 }
        let threads = 6
        let results = Box<[String?]>([])
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for i in stride(from: t, to: clips.count, by: threads) {
                    do {
                        results.append(try Self.upload(clips[i], to: app))
                    } catch {
                        results.append("\(clips[i].file): \(error)")
                    }
                }
            }
        }
        // Bounded: a stuck upload fails the test instead of hanging it.
        XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "uploads did not finish within 300 s")
        let all = results.value
        let problems = all.compactMap { $0 }.sorted()
        XCTAssertEqual(all.count, clips.count, "every clip was tried")
        XCTAssertEqual(problems, [], "\(problems.count) clips not assessed as marked:\n" + problems.joined(separator: "\n"))
    }

    /// Creates, uploads, submits and polls one clip; nil when it ends as marked, else what happened.
    private static func upload(_ info: ClipInfo, to app: AppStack) throws -> String? {
        guard let bytes = FileBytes.read(corpusDirectory + "/" + info.file) else { return "\(info.file): cannot be read" }
        let user = try app.signIn(locale: info.language == "zh" ? "zh-CN" : "en-US")
        let session = try app.startSession(user)
        let created = try app.call("POST", "/sessions/\(session)/attempts",
                                   json: ["round": 1, "sha256": .string(info.sha256), "size_bytes": .number(Double(bytes.count)),
                                          "content_type": .string(info.contentType), "duration_ms": .number(Double(info.durationMs))],
                                   token: user.token, key: UUID().uuidString)
        if info.expectedOutcome == .rejected {
            let code = created.json["error"]?["code"]?.string
            if created.status == 400 && code == info.expectedReason { return nil }
            return "\(info.file): expected 400 \(info.expectedReason ?? "") at attempt creation, got \(created.status) \(created.text)"
        }
        guard created.status == 201, let attempt = created.json["attempt_id"]?.string,
              let url = created.json["upload"]?["url"]?.string else {
            return "\(info.file): attempt creation gave \(created.status) \(created.text)"
        }
        let put = try app.call("PUT", AppStack.target(of: url), headers: [("Content-Type", info.contentType)], body: bytes)
        guard [200, 204].contains(put.status) else { return "\(info.file): PUT gave \(put.status) \(put.text)" }
        let submit = try app.call("POST", "/attempts/\(attempt)/submit", token: user.token)
        guard submit.status == 202 else { return "\(info.file): submit gave \(submit.status) \(submit.text)" }
        let last = try app.waitTerminal(user, attempt: attempt, timeoutS: 60, everyMs: 20).last
        let status = last["status"]?.string ?? "?"
        let reason = last["reason"]?.string
        guard status == info.expectedOutcome.rawValue else {
            return "\(info.file): \(info.clipClass.rawValue) clip ended \(status) (\(reason ?? "no reason")), manifest expects \(info.expectedOutcome.rawValue)"
        }
        // The stack's reason starts with the quality (`silence: level …`); assessed clips carry
        // one only when clipped.
        if let expected = info.expectedReason {
            guard let reason, reason.hasPrefix(expected) else {
                return "\(info.file): reason '\(reason ?? "none")', manifest expects '\(expected)'"
            }
        } else if status == "assessed", reason != nil {
            return "\(info.file): assessed with reason '\(reason!)', manifest expects none"
        }
        return nil
    }
}
