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
final class RequestLog: Sendable {
    static let shared: RequestLog? = {
        let env = ProcessInfo.processInfo.environment
        guard let path = env["FLEET_HTTP_RECORD"], !path.isEmpty else { return nil }
        return RequestLog(path: path, limit: env["FLEET_HTTP_RECORD_MAX"].flatMap(Int.init) ?? 2000)
    }()

    private struct State {
        var out: FileHandle?
        var left: Int
        var blobs: [ObjectIdentifier: (SharedBytes, Int)] = [:]
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

    /// Appends `request` while the limit lasts.
    func append(_ request: HTTPRequest) {
        state.withLock { s in
            guard s.left > 0, let out = s.out else { return }
            s.left -= 1
            var line: [String: Any] = ["method": request.method, "url": request.url, "timeout": request.timeout,
                                       "headers": request.headers.map { [$0.name, $0.value] }]
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
        }
    }

    /// The requests of a recording, for replay; a clear error names the line that is wrong.
    static func load(_ path: String) throws -> [HTTPRequest] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HTTPError(kind: .other, message: "\(path): cannot read the recording")
        }
        let dir = (path as NSString).deletingLastPathComponent
        var blobs: [String: SharedBytes] = [:]
        var requests: [HTTPRequest] = []
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
            requests.append(HTTPRequest(method: method, url: url, headers: headers, body: body,
                                        timeout: o["timeout"] as? Double ?? 30))
        }
        return requests
    }
}

extension HTTPEngine {
    /// The requests recorded in `path` by `FLEET_HTTP_RECORD` (see `RequestLog`).
    public static func loadRecording(_ path: String) throws -> [HTTPRequest] { try RequestLog.load(path) }
}
