import FleetCore
import FleetTestSupport
import XCTest
@testable import FleetClient
@testable import FleetHTTP

/// Cancelling a task ends its exchange in flight at once (an app kill, the end of a run), whether
/// the exchange's task owns a `TransferScope` (one handler for the walk) or not (its own handler),
/// and an unstructured task made inside a scope and cancelled on its own ends its exchange too.
final class TransferScopeTests: XCTestCase {
    /// One `GET /config` against a server that never answers, in a task that is cancelled once the
    /// request has arrived; what it ended with, and how long after the cancel.
    private func cancelledCall(_ make: @escaping @Sendable (APIClient) -> Task<Result<JSONValue, APIError>, Never>,
                               cancel: @escaping @Sendable (Task<Result<JSONValue, APIError>, Never>) async -> Void)
        async throws -> (Result<JSONValue, APIError>, Double) {
        let server = try ScriptedServer { _, _ in .silence }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let client = testClient(server.baseURL, engine: engine, timeout: 30)
        let task = make(client)
        let arrived = await eventuallyAsync(within: 10) { !server.requests("/config").isEmpty }
        XCTAssertTrue(arrived, "the request reached the server")
        let t0 = MonotonicClock.now()
        await cancel(task)
        let result = await task.value
        return (result, Double(MonotonicClock.now() - t0) / 1e9)
    }

    private static func config(_ client: APIClient) async -> Result<JSONValue, APIError> {
        var random = SeededRandom(seed: 1)
        return await client.config(signedIn(), intended: MonotonicClock.now(), random: &random)
    }

    private func assertAborted(_ r: (Result<JSONValue, APIError>, Double), _ what: String) {
        guard case let .failure(e) = r.0 else { return XCTFail("\(what): the call succeeded") }
        XCTAssertTrue(e.isAborted, "\(what): \(e)")
        XCTAssertLessThan(r.1, 5, "\(what): ended \(r.1) s after the cancel, not at once (the client's timeout is 30 s)")
    }

    func testCancellingTheOwnerEndsItsExchangeAtOnce() async throws {
        let r = try await cancelledCall({ client in Task { await TransferScope.run { await Self.config(client) } } },
                                        cancel: { $0.cancel() })
        assertAborted(r, "in a scope")
    }

    func testWithoutAScopeTheExchangeHasItsOwnHandler() async throws {
        let r = try await cancelledCall({ client in Task { await Self.config(client) } }, cancel: { $0.cancel() })
        assertAborted(r, "no scope")
    }

    func testATaskMadeInsideAScopeAndCancelledAloneEndsItsExchange() async throws {
        // The inner task inherits the scope but does not own it: cancelling it (and not the owner,
        // which waits on) must still end its exchange.
        let inner = Box<Task<Result<JSONValue, APIError>, Never>?>(nil)
        let r = try await cancelledCall({ client in
            Task {
                await TransferScope.run { () -> Result<JSONValue, APIError> in
                    let t = Task { await Self.config(client) }
                    inner.value = t
                    return await t.value
                }
            }
        }, cancel: { _ in
            _ = await eventuallyAsync { inner.value != nil }
            inner.value?.cancel()
        })
        assertAborted(r, "an inner task")
    }
}
