import Dispatch
import Foundation
import FleetTestSupport
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
