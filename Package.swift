// swift-tools-version:6.0
// Fleet: a load and simulation test bench for the speaking-practice app's backend.
// Module graph (dependencies point one way; each C library is imported by one Swift module):
//   C ─▶ FleetHTTP (libcurl, via CCurlShim) · FleetSQLite (sqlite3) · FleetAudio (libsndfile)
//        · FleetHTTPServer (epoll, eventfd, accept4, via CSysShim)
//   FleetCore (clock, seeded RNG, SHA-256/HMAC, JSON, exit codes, loopback, language tags) ◀─ everything
//   The bench:  FleetMetrics ◀─ FleetClient ◀─ FleetCheck (invariants) ◀─ FleetJourneys ◀─ FleetRunner ◀─ FleetCLI ◀─ fleet
//               FleetMetrics ◀─ FleetStats (comparison, change points) ◀─ FleetReport (HTML, CSV, history) ◀─ FleetRunner
//               FleetAudio ◀─ FleetCorpus (the bench's speech corpus) ◀─ FleetRunner
//   The reference stack: FleetHTTPServer, FleetSQLite, FleetAudio ◀─ FleetStack (never the corpus, never the bench)
//   Only FleetCLI sees both the bench and the stack (to start the embedded stack in a child process).
//   Tests: FleetTestSupport (one stack harness, synthesizer, raw server, eventually) ◀─ the test targets.
import PackageDescription

// Release builds let the optimizer see across modules: a request's path crosses six of them
// (journeys, client, checker, recorder, JSON, engine), and without this each small accessor on
// another module's type (a JSON object's subscript, a histogram's record, the clock) is an opaque
// call with its generic and ARC overhead. bench/instructions.sh: the journeys' instructions per
// request 199.2k -> 192.7k (-3.3 %). Debug builds (the tests) are unchanged. Added to every Swift
// library and executable target at the end of this file, so a new module gets it too.
//
// Release builds also drop the run-time exclusivity checks (`-enforce-exclusivity=unchecked`):
// every access to a class's stored `var` (the I/O loop's queues, a transfer's buffers, the
// recorder's shards) called swift_beginAccess/endAccess, ~160 times a request, ~7.7k of the
// journeys' instructions per request (bench/instructions.sh). The compile-time checks stay, and
// debug builds (every test) keep the run-time ones, so an overlapping access still fails a test.
let releaseOptimizations: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"],
                                                         .when(configuration: .release))]

// The modules on a virtual user's request path: their nonisolated async functions run on the
// caller's executor (SE-0461) instead of hopping to the generic one, a swift_task_switch that
// looked up the task's preferred executor under its status lock, ~15 times a request
// (bench/instructions.sh). The users' tasks run on the I/O loops' task executors either way.
let nonsending: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "Fleet",
    products: [
        .executable(name: "fleet", targets: ["fleet"]),
    ],
    targets: [
        // MARK: C libraries, each imported in exactly one Swift module.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // libcurl's setopt/getinfo are variadic and cannot be called from Swift.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        // Linux epoll, eventfd and accept4, which Swift's Glibc module does not export.
        .target(name: "CSysShim"),

        // MARK: Libraries.
        .target(name: "FleetCore", swiftSettings: nonsending),
        .target(name: "FleetHTTP", dependencies: ["CCurl", "CCurlShim", "FleetCore"]),
        .target(name: "FleetSQLite", dependencies: ["CSQLite"]),
        .target(name: "FleetAudio", dependencies: ["CSndfile", "FleetCore"]),
        .target(name: "FleetCorpus", dependencies: ["FleetCore", "FleetAudio"]),
        // The reference stack's HTTP/1.1 server: epoll, keep-alive, pipelining, hostile-client limits.
        .target(name: "FleetHTTPServer", dependencies: ["CSysShim", "FleetCore"]),
        .target(name: "FleetMetrics", dependencies: ["FleetCore"]),
        // Statistics over results: run comparison with intervals, change points over history.
        .target(name: "FleetStats", dependencies: ["FleetCore", "FleetMetrics"]),
        .target(name: "FleetStack", dependencies: ["FleetCore", "FleetHTTPServer", "FleetSQLite", "FleetAudio"],
                exclude: ["README.md"], resources: [.copy("Resources/articles.json")]),
        .target(name: "FleetClient", dependencies: ["FleetCore", "FleetHTTP", "FleetMetrics"], swiftSettings: nonsending),
        .target(name: "FleetCheck", dependencies: ["FleetCore", "FleetClient", "FleetMetrics"]),
        .target(name: "FleetJourneys", dependencies: ["FleetCore", "FleetClient", "FleetCheck", "FleetMetrics"], swiftSettings: nonsending),
        .target(name: "FleetReport", dependencies: ["FleetCore", "FleetMetrics", "FleetStats", "FleetSQLite"]),
        .target(name: "FleetRunner", dependencies: ["FleetCore", "FleetHTTP", "FleetMetrics", "FleetClient",
                                                    "FleetCheck", "FleetJourneys", "FleetCorpus", "FleetReport", "FleetStats"]),
        .target(name: "FleetCLI", dependencies: ["FleetCore", "FleetHTTP", "FleetMetrics", "FleetAudio", "FleetCorpus", "FleetJourneys",
                                                 "FleetStack", "FleetRunner", "FleetReport", "FleetStats"]),
        .executableTarget(name: "fleet", dependencies: ["FleetCLI"]),

        // MARK: Tests: one target per module, against the real stack over loopback.
        // Helpers shared by the test targets (embedded stack, synthesizer, raw server, free port,
        // eventually, lock box); only test targets depend on it.
        .target(name: "FleetTestSupport", dependencies: ["FleetAudio", "FleetStack"], path: "Tests/FleetTestSupport"),
        .testTarget(name: "FleetCoreTests", dependencies: ["FleetCore"]),
        .testTarget(name: "FleetHTTPTests", dependencies: ["FleetHTTP", "FleetStack", "FleetTestSupport"]),
        .testTarget(name: "FleetSQLiteTests", dependencies: ["FleetSQLite"]),
        // FleetCorpus's tests live here too for now (they share the audio tests' synthesizer).
        .testTarget(name: "FleetAudioTests", dependencies: ["FleetAudio", "FleetCorpus", "FleetTestSupport"]),
        .testTarget(name: "FleetMetricsTests", dependencies: ["FleetMetrics"]),
        .testTarget(name: "FleetStatsTests", dependencies: ["FleetStats", "FleetMetrics", "FleetCore"]),
        // The server's own tests live here too for now (they share the raw-socket client with the stack's).
        .testTarget(name: "FleetStackTests", dependencies: ["FleetStack", "FleetHTTPServer", "FleetHTTP", "FleetCore",
                                                            "FleetAudio", "FleetCorpus", "FleetTestSupport"]),
        .testTarget(name: "FleetReportTests", dependencies: ["FleetReport", "FleetMetrics"],
                    exclude: ["Fixtures"]),  // read through #filePath, not bundled
        .testTarget(name: "FleetRunnerTests", dependencies: ["FleetRunner", "FleetStack", "FleetCLI", "FleetSQLite", "FleetHTTP",
                                                            "FleetTestSupport"]),
        .testTarget(name: "FleetClientTests", dependencies: ["FleetClient", "FleetHTTP", "FleetMetrics", "FleetCore", "FleetReport",
                                                            "FleetTestSupport"]),
        .testTarget(name: "FleetJourneysTests", dependencies: ["FleetJourneys", "FleetClient", "FleetHTTP", "FleetStack", "FleetSQLite",
                                                              "FleetAudio", "FleetMetrics", "FleetCore", "FleetTestSupport"]),
        .testTarget(name: "FleetCLITests", dependencies: ["FleetCLI", "FleetTestSupport"]),
        .testTarget(name: "FleetCheckTests", dependencies: ["FleetCheck", "FleetClient", "FleetMetrics", "FleetCore"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where [.regular, .executable].contains(target.type)
    && (target.name.hasPrefix("Fleet") || target.name == "fleet") {
    target.swiftSettings = (target.swiftSettings ?? []) + releaseOptimizations
}
