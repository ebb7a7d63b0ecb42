import Dispatch
import Foundation
import XCTest
@testable import FleetHTTP

/// Sends one request and waits (bounded) for its single completion.
func roundTrip(_ engine: HTTPEngine, _ request: HTTPRequest, wait seconds: Double = 10,
               file: StaticString = #filePath, line: UInt = #line) -> Result<HTTPResponse, HTTPError>? {
    let box = Box<Result<HTTPResponse, HTTPError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    engine.send(request, queue: DispatchQueue(label: "test.completion")) { result in
        box.value = result
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        XCTFail("no completion within \(seconds) s", file: file, line: line)
        return nil
    }
    return box.value
}

/// The response of a successful round trip, or a test failure naming the error.
func expectResponse(_ result: Result<HTTPResponse, HTTPError>?, file: StaticString = #filePath,
                    line: UInt = #line) -> HTTPResponse? {
    switch result {
    case .success(let r): return r
    case .failure(let e): XCTFail("expected a response, got \(e)", file: file, line: line); return nil
    case nil: return nil
    }
}

/// The error of a failed round trip, or a test failure when a response came back.
func expectError(_ result: Result<HTTPResponse, HTTPError>?, file: StaticString = #filePath,
                 line: UInt = #line) -> HTTPError? {
    switch result {
    case .failure(let e): return e
    case .success(let r): XCTFail("expected an error, got status \(r.status)", file: file, line: line); return nil
    case nil: return nil
    }
}

/// A loopback port with nothing listening: bound once to learn a free number, then closed.
func closedLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A lock-protected value shared between a test and completion handlers.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func mutate<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&stored) } }
}
