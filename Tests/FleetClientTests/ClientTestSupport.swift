import FleetCore
import FleetMetrics
import Foundation
import FleetTestSupport
@testable import FleetClient
@testable import FleetHTTP

/// A scripted server for the client's retry rules: the n-th request to a path gets the n-th
/// reply of its script (the last one repeats), so "bad once, then good" is one line.
final class ScriptedServer: @unchecked Sendable {
    let raw: RawHTTPServer
    private let counts = Box<[String: Int]>([:])

    init(_ script: @escaping @Sendable (_ path: String, _ n: Int) -> RawHTTPServer.Reply) throws {
        let counts = self.counts
        raw = try RawHTTPServer { req in
            let path = String(req.path.prefix { $0 != "?" })
            let n = counts.mutate { c -> Int in c[path, default: 0] += 1; return c[path]! - 1 }
            return script(path, n)
        }
    }

    var baseURL: String { raw.baseURL }
    func requests(_ path: String) -> [RawHTTPServer.Request] { raw.requests.filter { $0.path.hasPrefix(path) } }
    func stop() { raw.stop() }
}

/// JSON replies and hostile ones, as bytes on the wire.
enum Wire {
    static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> RawHTTPServer.Reply {
        .http(status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }

    static func envelope(_ status: Int, _ code: String, retryable: Bool, headers: [(String, String)] = []) -> RawHTTPServer.Reply {
        json(status, "{\"error\":{\"code\":\"\(code)\",\"message\":\"m\",\"retryable\":\(retryable)}}", headers: headers)
    }

    /// `{"id":"<bytes>"}` with raw bytes inside the string (for invalid UTF-8).
    static func jsonWithRawString(_ bytes: [UInt8]) -> RawHTTPServer.Reply {
        .http(200, headers: [("Content-Type", "application/json")], body: Array("{\"id\":\"".utf8) + bytes + Array("\"}".utf8))
    }
}

/// A client with quick backoff against `base`, and the recorder it writes to.
func testClient(_ base: String, engine: HTTPEngine, patience: Double = 20, timeout: Double = 2) -> APIClient {
    var s = ClientSettings(baseURL: base)
    s.backoffBaseMs = 5
    s.backoffCapMs = 20
    s.requestTimeout = timeout
    s.patienceS = patience
    return APIClient(settings: s, engine: engine, recorder: Recorder())
}

func signedIn() -> Credentials {
    let c = Credentials(installId: "install-1", locale: "en", timezone: "UTC")
    c.userId = "u1"
    c.accessToken = "old"
    c.refreshToken = "r1"
    return c
}

/// Error codes the client recorded, over all endpoints.
func recordedCodes(_ client: APIClient) -> [String: Int64] {
    let r = client.recorder.snapshot(RunMetadata(runId: "t", profile: "p", seed: 1, target: "x", startedAt: "now"))
    var out: [String: Int64] = [:]
    for e in r.endpoints { for (k, v) in e.errorCodes { out[k, default: 0] += v } }
    return out
}
