import CCurlShim
import Dispatch
import FleetCore
import FleetTestSupport
import Foundation
import XCTest
@testable import FleetHTTP

/// The engine's speed levers (issue 18): the pool allocator libcurl is given, the parsed-URL
/// reuse, and the request recording for `fleet blast --replay`. The whole FleetHTTPTests suite
/// also runs with each lever off (`FLEET_CURL_ALLOC=libc FLEET_CURLU=0 FLEET_HTTP_CLOCK=fresh FLEET_INLINE_BODIES=0
/// FLEET_LAZY_EPOLL=0 FLEET_DRIVE_UPLOADS=0 FLEET_HEAP_RESERVE=0`)
/// and passes the same: the levers change the cost of a response, never the response.
final class EngineLeversTests: XCTestCase {
    func testPoolAllocatorKeepsContentsAcrossSizesReallocAndThreads() {
        // Sizes on both sides of every class edge, and past the largest class.
        let sizes = [1, 31, 32, 33, 47, 48, 200, 1023, 1024, 1025, 4097, 16384, 16385, 32768, 32769, 100_000]
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for round in 0..<20 {
                for (i, n) in sizes.enumerated() {
                    let byte = UInt8(truncatingIfNeeded: t * 31 + i + round)
                    guard let p = fleet_pool_malloc(n) else { return XCTFail("malloc(\(n)) failed") }
                    memset(p, Int32(byte), n)
                    guard let q = fleet_pool_realloc(p, n * 3) else { return XCTFail("realloc(\(n * 3)) failed") }
                    let b = q.assumingMemoryBound(to: UInt8.self)
                    // Every 61st byte and the last: a short copy or a wrong block shows (debug builds are slow per byte).
                    if (Array(stride(from: 0, to: n, by: 61)) + [n - 1]).contains(where: { b[$0] != byte }) {
                        XCTFail("realloc lost bytes of a \(n)-byte block")
                    }
                    memset(q, 0x5a, n * 3)  // the grown block is writable to its new size
                    fleet_pool_free(q)
                }
            }
        }
        let zeros = fleet_pool_calloc(300, 8)!.assumingMemoryBound(to: UInt64.self)
        XCTAssertTrue((0..<300).allSatisfy { zeros[$0] == 0 })
        fleet_pool_free(zeros)
        let copy = fleet_pool_strdup("fleet")!
        XCTAssertEqual(String(cString: copy), "fleet")
        fleet_pool_free(copy)
        XCTAssertNil(fleet_pool_calloc(Int.max, 16), "an overflowing calloc must fail, not wrap")
        fleet_pool_free(nil)
    }

    func testLibcurlGetsTheAllocatorTheEnvironmentNames() throws {
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let want = ProcessInfo.processInfo.environment["FLEET_CURL_ALLOC"] ?? "pool"
        XCTAssertEqual(EngineLevers.allocator, want == "libc" ? want : "pool")
    }

    func testLeversReadTheirSwitches() {
        XCTAssertTrue(EngineLevers(environment: [:]).parsedURLs)
        XCTAssertTrue(EngineLevers(environment: [:]).cachedClock)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_CURLU": "0"]).parsedURLs)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_HTTP_CLOCK": "fresh"]).cachedClock)
        XCTAssertTrue(EngineLevers(environment: [:]).inlineBodies)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_INLINE_BODIES": "0"]).inlineBodies)
        XCTAssertTrue(EngineLevers(environment: ["FLEET_INLINE_BODIES": "0"]).description.contains(" inline=0 "))
        XCTAssertTrue(EngineLevers(environment: [:]).usersOnLoops)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_USERS_ON": "pool"]).usersOnLoops)
        XCTAssertTrue(EngineLevers(environment: ["FLEET_USERS_ON": "pool"]).description.hasSuffix("users=pool"))
        XCTAssertTrue(EngineLevers(environment: [:]).lazyEpoll)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_LAZY_EPOLL": "0"]).lazyEpoll)
        XCTAssertEqual(EngineLevers(environment: [:]).heapReserveBytes, 16 << 20)
        XCTAssertEqual(EngineLevers(environment: ["FLEET_HEAP_RESERVE": "0"]).heapReserveBytes, 0)
        XCTAssertEqual(EngineLevers(environment: ["FLEET_HEAP_RESERVE": "4"]).heapReserveBytes, 4 << 20)
        XCTAssertEqual(EngineLevers(environment: ["FLEET_HEAP_RESERVE": "999"]).heapReserveBytes, 48 << 20, "capped")
        XCTAssertTrue(EngineLevers(environment: [:]).driveUploads)
        XCTAssertFalse(EngineLevers(environment: ["FLEET_DRIVE_UPLOADS": "0"]).driveUploads)
        XCTAssertTrue(EngineLevers(environment: ["FLEET_LAZY_EPOLL": "0", "FLEET_HEAP_RESERVE": "0"]).description.contains(" epoll=eager drive=1 heap=0 "))
        XCTAssertTrue(EngineLevers(environment: ["FLEET_DRIVE_UPLOADS": "0"]).description.contains(" epoll=lazy drive=0 heap=16 "))
    }

    /// glibc makes a thread's arena usable a page at a time (one mprotect each) as it grows past
    /// its high-water mark; after the reservation, the next megabytes come from pages already
    /// usable: the writable mapping that holds the thread's heap does not grow while the thread
    /// allocates 6.4 MB. (Only that mapping is compared: other threads may map memory meanwhile.)
    func testAReservedHeapServesLaterGrowthWithoutGrowingItsMapping() {
        /// The writable mapping holding `address`, as its /proc/self/maps range.
        @Sendable func mapping(of address: UnsafeMutableRawPointer?) -> ClosedRange<UInt>? {
            let a = UInt(bitPattern: address)
            // Read to the end: Foundation's String(contentsOfFile:) stops at 4 KiB of a /proc file.
            let maps = String(decoding: FileBytes.read("/proc/self/maps") ?? [], as: UTF8.self)
            for line in maps.split(separator: "\n") where line.contains(" rw-p ") {
                let bounds = line.prefix(while: { $0 != " " }).split(separator: "-").compactMap { UInt($0, radix: 16) }
                if bounds.count == 2, bounds[0] <= a, a < bounds[1] { return bounds[0]...bounds[1] }
            }
            return nil
        }
        let result = Box<(ClosedRange<UInt>?, ClosedRange<UInt>?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            fleet_reserve_thread_heap(16 << 20)
            let first = malloc(64 << 10)
            let before = mapping(of: first)
            let blocks = [first] + (1..<100).map { _ in malloc(64 << 10) }
            let after = mapping(of: first)
            let lastInside = after.map { $0.contains(UInt(bitPattern: blocks[99])) } ?? false
            blocks.forEach { free($0) }
            result.value = (before, lastInside ? after : nil)
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        guard let (first, last) = result.value else { return XCTFail("the thread did not report") }
        XCTAssertNotNil(first, "the first block is in no writable mapping of /proc/self/maps")
        XCTAssertEqual(first, last, "the heap's mapping grew (or the last block is outside it): the allocations needed pages the reservation should have made usable")
    }

    /// One pooled handle sends A, A, B, A, then an unparseable URL, then A: each answer is for the
    /// URL asked (a handle that kept its last URL must never send the previous one).
    func testEachRequestGoesToItsOwnURLWhenTheHandleIsReused() throws {
        let server = try RawHTTPServer { req in .http(200, body: Array(req.path.utf8)) }
        defer { server.stop() }
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        for path in ["/a", "/a", "/b?x=1", "/a"] {
            let r = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + path)))
            XCTAssertEqual(r.map { String(decoding: $0.body, as: UTF8.self) }, path)
        }
        XCTAssertNotNil(expectError(roundTrip(engine, HTTPRequest(method: "GET", url: "http://[::1"))))
        let r = expectResponse(roundTrip(engine, HTTPRequest(method: "GET", url: server.baseURL + "/a")))
        XCTAssertEqual(r.map { String(decoding: $0.body, as: UTF8.self) }, "/a")
    }

    func testARecordingReplaysTheSameRequests() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-reclog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rec.jsonl").path
        let clip = SharedBytes((0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let sent = [
            HTTPRequest(method: "POST", url: "http://127.0.0.1:9/x", headers: [HTTPHeader("A", "1")], body: HTTPBody(bytes: Array("{}".utf8))),
            HTTPRequest(method: "PUT", url: "http://127.0.0.1:9/u", body: HTTPBody(clip, range: 10..<90_000), timeout: 7),
            HTTPRequest(method: "PUT", url: "http://127.0.0.1:9/v", body: HTTPBody(clip)),
            HTTPRequest(method: "GET", url: "http://127.0.0.1:9/y"),
        ]
        let log = try XCTUnwrap(RequestLog(path: path, limit: 3))
        for r in sent { log.append(r) }
        let back = try HTTPEngine.loadTimedRecording(path).map(\.request)
        XCTAssertEqual(back.count, 3, "the limit stops the recording")
        for (a, b) in zip(sent, back) {
            XCTAssertEqual(a.method, b.method)
            XCTAssertEqual(a.url, b.url)
            XCTAssertEqual(a.headers, b.headers)
            XCTAssertEqual(a.timeout, b.timeout)
            XCTAssertEqual(a.body.map { $0.storage.copyBytes($0.range) }, b.body.map { $0.storage.copyBytes($0.range) })
        }
        let blobs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".blob-") }
        XCTAssertEqual(blobs.count, 1, "a shared body is written once")
    }

    func testARecordingSaysWhatEachRequestFollowedAndHowLongAfter() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-reclog-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = try XCTUnwrap(RequestLog(path: path, limit: 10))
        func get(_ p: String) -> HTTPRequest { HTTPRequest(method: "GET", url: "http://127.0.0.1:9" + p) }
        let s: UInt64 = 1_000_000_000
        let a = try XCTUnwrap(log.append(get("/a1"), chain: 111, now: 5 * s))
        log.append(get("/b1"), chain: 222, now: 6 * s)
        log.answered(a, now: 7 * s)
        log.paused(chain: 111)
        log.append(get("/a2"), chain: 111, now: 7 * s + s / 2)      // 0.5 s after a1's answer, with a pause
        log.append(get("/b2"), chain: 222, now: 9 * s)               // b1 unanswered: 3 s after its send, no pause
        log.append(get("/x"), chain: 0, now: 10 * s)                 // outside any task
        let back = try HTTPEngine.loadTimedRecording(path)
        XCTAssertEqual(back.map(\.request.url).map { $0.replacingOccurrences(of: "http://127.0.0.1:9", with: "") }, ["/a1", "/b1", "/a2", "/b2", "/x"])
        XCTAssertEqual(back.map(\.timing), [
            .init(chain: 1, after: .start, gap: 0), .init(chain: 2, after: .start, gap: 1),
            .init(chain: 1, after: .answer, gap: 0.5, waited: true), .init(chain: 2, after: .send, gap: 3, waited: false),
            .init(chain: 0, after: .start, gap: 5),
        ])
    }
}
