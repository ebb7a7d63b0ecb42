import FleetCore
import Foundation
import Synchronization

/// A recording of the requests an engine sends, to replay the same sequence through the bare
/// engine (`fleet blast --replay FILE`, bench/overhead.sh): what the journey layer costs is the
/// difference between sending these through the journeys and sending them as they are.
///
/// On when `FLEET_HTTP_RECORD=PATH` is set: the first `FLEET_HTTP_RECORD_MAX` (default 2,000)
/// requests go to PATH, one JSON object per line: `method`, `url`, `headers` ([[name, value]]),
/// `timeout`, and `body` (base64) or `blob` (a file `PATH.blob-N` holding a shared body such as a
/// clip, written once however often it is sent). Never on unless asked for.
///
/// Each line also says when it was sent, so that a replay can keep the journeys' timing
/// (`fleet blast --replay FILE --as-recorded`): `chain` numbers the task that sent it (a user's
/// walk sends one request after another's answer; requests sent outside a task share chain 0),
/// and `after` + `gap` say what it followed — the chain's previous answer (`answer`), its previous
/// send while that was still unanswered (`send`), or the recording's first request (`start`) —
/// and by how many seconds; `waited` says whether the task paused (a think, a poll interval) in
/// that gap: without a pause the gap was the sender's own work (decoding, checks), which a replay
/// sends through at once.
final class RequestLog: Sendable {
    static let shared: RequestLog? = {
        let env = ProcessInfo.processInfo.environment
        guard let path = env["FLEET_HTTP_RECORD"], !path.isEmpty,
              let log = RequestLog(path: path, limit: env["FLEET_HTTP_RECORD_MAX"].flatMap(Int.init) ?? 2000) else { return nil }
        Pause.observe { log.paused() }
        return log
    }()

    private struct State {
        var out: FileHandle?
        var left: Int
        var blobs: [ObjectIdentifier: (SharedBytes, Int)] = [:]
        /// The first request's time, and per sending task its number, last send and last answer.
        var start: UInt64?
        var chains: [Int: Chain] = [:]
        var nextChain = 1
    }
    private struct Chain {
        var number: Int
        var sent: UInt64
        var answered: UInt64?
        /// The task paused (a think, a poll interval) since its last request.
        var paused = false
    }
    private let path: String
    private let state: Mutex<State>

    init?(path: String, limit: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path) else {
            FileHandle.standardError.write(Data("FLEET_HTTP_RECORD: cannot write \(path)\n".utf8))
            return nil
        }
        self.path = path
        state = Mutex(State(out: out, left: limit))
    }

    /// Appends `request` while the limit lasts, sent now by the current task; returns the key to
    /// pass to `answered` when its answer (or error) comes, nil when it was not recorded.
    @discardableResult
    func append(_ request: HTTPRequest) -> Int? {
        append(request, chain: Self.currentTask, now: MonotonicClock.now())
    }

    /// `append` with the chain and the time given (what the tests drive).
    @discardableResult
    func append(_ request: HTTPRequest, chain task: Int, now: UInt64) -> Int? {
        state.withLock { s in
            guard s.left > 0, let out = s.out else { return nil }
            s.left -= 1
            let start = s.start ?? now
            s.start = start
            var line: [String: Any] = ["method": request.method, "url": request.url, "timeout": request.timeout,
                                       "headers": request.headers.map { [$0.name, $0.value] }]
            if var c = s.chains[task] {
                let answeredLast = c.answered.map { $0 >= c.sent } ?? false
                line["after"] = answeredLast ? "answer" : "send"
                line["gap"] = Double(now &- (answeredLast ? c.answered! : c.sent)) / 1e9
                line["chain"] = c.number
                line["waited"] = c.paused
                c.sent = now
                c.paused = false
                s.chains[task] = c
            } else {
                // A task that ended may leave its address to a new one: that task then continues
                // the chain, as if the same user walked on after a pause.
                let number = task == 0 ? 0 : s.nextChain
                if task != 0 { s.nextChain += 1 }
                s.chains[task] = Chain(number: number, sent: now)
                line["after"] = "start"
                line["gap"] = Double(now &- start) / 1e9
                line["chain"] = number
            }
            if let body = request.body {
                if body.count <= 4096 {
                    line["body"] = Data(body.storage.copyBytes(body.range)).base64EncodedString()
                } else {
                    let id = ObjectIdentifier(body.storage)
                    let n = s.blobs[id]?.1 ?? s.blobs.count
                    if s.blobs[id] == nil {
                        s.blobs[id] = (body.storage, n)
                        _ = FileManager.default.createFile(atPath: "\(path).blob-\(n)", contents: Data(body.storage.copyBytes()))
                    }
                    line["blob"] = "\((path as NSString).lastPathComponent).blob-\(n)"
                    line["range"] = [body.range.lowerBound, body.range.upperBound]
                }
            }
            if let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) {
                out.write(data + Data([0x0a]))
            }
            if s.left == 0 { try? out.close(); s.out = nil }
            return task
        }
    }

    /// Records `request` (while the limit lasts) and returns its completion, wrapped to note when
    /// the answer came: the chain's next request's gap counts from there.
    func recording(_ request: HTTPRequest, _ completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void)
        -> @Sendable (Result<HTTPResponse, HTTPError>) -> Void {
        guard let key = append(request) else { return completion }
        return { [self] in answered(key); completion($0) }
    }

    /// The current task paused (`Pause.until`): its next request's gap is a wait.
    func paused() {
        paused(chain: Self.currentTask)
    }

    /// The current task's identity (0 outside any): a user walks in one task, so its requests
    /// form one chain.
    private static var currentTask: Int { withUnsafeCurrentTask { $0?.hashValue } ?? 0 }

    func paused(chain task: Int) {
        state.withLock { s in s.chains[task]?.paused = true }
    }

    /// The answer to a request of chain `key` came now.
    func answered(_ key: Int, now: UInt64 = MonotonicClock.now()) {
        state.withLock { s in s.chains[key]?.answered = now }
    }

    /// The requests of a recording, for replay, each with its chain and timing (nil when a line has
    /// none: a recording made before they were written); a clear error names the line that is wrong.
    static func loadTimed(_ path: String) throws -> [RecordedRequest] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HTTPError(kind: .other, message: "\(path): cannot read the recording")
        }
        let dir = (path as NSString).deletingLastPathComponent
        var blobs: [String: SharedBytes] = [:]
        var requests: [RecordedRequest] = []
        for (i, line) in text.split(separator: "\n").enumerated() {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let method = o["method"] as? String, let url = o["url"] as? String else {
                throw HTTPError(kind: .other, message: "\(path):\(i + 1): expected {method, url, headers, …}")
            }
            let headers = (o["headers"] as? [[String]] ?? []).compactMap { $0.count == 2 ? HTTPHeader($0[0], $0[1]) : nil }
            var body: HTTPBody?
            if let b64 = o["body"] as? String, let data = Data(base64Encoded: b64) {
                body = HTTPBody(bytes: [UInt8](data))
            } else if let name = o["blob"] as? String {
                let file = (dir as NSString).appendingPathComponent(name)
                if blobs[name] == nil {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        throw HTTPError(kind: .other, message: "\(path):\(i + 1): blob \(file) is missing")
                    }
                    blobs[name] = SharedBytes(data)
                }
                let storage = blobs[name]!
                let r = o["range"] as? [Int] ?? [0, storage.count]
                guard r.count == 2, r[0] >= 0, r[0] <= r[1], r[1] <= storage.count else {
                    throw HTTPError(kind: .other, message: "\(path):\(i + 1): range \(r) outside blob \(name)")
                }
                body = HTTPBody(storage, range: r[0]..<r[1])
            }
            var timing: RecordedRequest.Timing?
            if let chain = o["chain"] as? Int, let gap = o["gap"] as? Double, let after = o["after"] as? String {
                guard gap >= 0, let a = RecordedRequest.After(rawValue: after) else {
                    throw HTTPError(kind: .other, message: "\(path):\(i + 1): expected after start|answer|send and gap ≥ 0, got '\(after)' and \(gap)")
                }
                timing = RecordedRequest.Timing(chain: chain, after: a, gap: gap, waited: o["waited"] as? Bool ?? true)
            }
            requests.append(RecordedRequest(request: HTTPRequest(method: method, url: url, headers: headers, body: body,
                                                                 timeout: o["timeout"] as? Double ?? 30), timing: timing))
        }
        return requests
    }
}

/// One request of a recording and, when recorded, when it was sent (see `RequestLog`).
public struct RecordedRequest: Sendable {
    public enum After: String, Sendable { case start, answer, send }
    public struct Timing: Sendable, Equatable {
        /// The sending task's number in the recording (0: sent outside any task).
        public var chain: Int
        /// What the send followed: the recording's start, the chain's previous answer or its previous send.
        public var after: After
        public var gap: Double
        /// The sender paused in the gap (false: the gap was its own work). Recordings made before
        /// this was written say nothing: taken as a wait.
        public var waited = true
    }
    public var request: HTTPRequest
    public var timing: Timing?
}

extension HTTPEngine {
    /// The requests recorded in `path` by `FLEET_HTTP_RECORD`, each with its chain and timing (see
    /// `RequestLog`): `fleet blast --replay` sends the requests, `--as-recorded` with their timing.
    public static func loadTimedRecording(_ path: String) throws -> [RecordedRequest] { try RequestLog.loadTimed(path) }
}
