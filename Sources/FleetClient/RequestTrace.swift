import FleetCore
import Synchronization

/// The requests one virtual user put on the wire, in order: endpoint template and status.
///
/// Tests compare a journey's trace with its flow table; a replay of one user can print it. It is
/// carried as a task-local (`RequestContext.trace`) rather than on `Credentials` because sign-in,
/// token refresh and presigned uploads go out without credentials, and they belong in the trace.
public final class RequestTrace: Sendable {
    // A journey appends from its task, a test reads after the journey; the Mutex keeps a
    // concurrent read honest anyway.
    private let items = Mutex<[Entry]>([])

    /// One exchange: the template (`POST /sessions/{id}/attempts`, `PUT upload`) and the HTTP
    /// status, nil when no response arrived (network error, cut transfer).
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        public var template: String
        public var status: Int?
        public var description: String { "\(template) → \(status.map(String.init) ?? "no response")" }
    }

    public init() {}

    public func append(_ template: String, status: Int?) {
        items.withLock { $0.append(Entry(template: template, status: status)) }
    }

    public var entries: [Entry] { items.withLock { $0 } }

    public var templates: [String] { entries.map(\.template) }

    /// Templates with runs of the same template collapsed to one: polling `GET /attempts/{id}` a
    /// variable number of times still matches a flow table that names it once.
    public var collapsedTemplates: [String] {
        var out: [String] = []
        for t in templates where out.last != t { out.append(t) }
        return out
    }

    public func removeAll() { items.withLock { $0.removeAll() } }
}

/// Task-local context of the requests a virtual user makes: where they are traced and under
/// which endpoint prefix they are recorded.
public struct RequestContext: Sendable {
    /// When set, every exchange of the task (and its child tasks) is appended to it.
    public var trace: RequestTrace?
    /// Prepended to the endpoint template when recording (`warmup:` during cohort preparation,
    /// `audit:` after the run), so that those requests stay apart from the measured ones.
    public var endpointScope: EndpointLabel.Scope?
    /// When set, sees every exchange of the task (the invariant checker of the user).
    public var observer: (any ExchangeObserver)?
    /// When set, the user double-taps some calls (a race amplifier of the bug hunt).
    public var taps: TapPolicy?
    /// When set, the transfers of the task that owns it are cancelled through it (`TransferScope`).
    public var transfers: TransferScope?

    public init() {}
}

/// The `RequestContext` of the current task, set for a body with `with`.
///
/// One task-local holds all of it, read once per call (`APIClient.attempts`) and handed down.
/// Five task-locals read where each was needed cost ~1k instructions a request
/// (bench/instructions.sh): each read walks the task's bindings, past every other one, and
/// copies its value out through the generic witnesses of an `Optional`.
public enum RequestScope {
    /// Immutable: a `with` binds a new one. A class, so that a read retains one reference.
    final class Box: Sendable {
        let context: RequestContext
        init(_ context: RequestContext) { self.context = context }
    }

    @TaskLocal static var box = Box(RequestContext())

    /// The current task's context.
    public static var context: RequestContext { box.context }

    /// Runs `body` with the current context as `change` leaves it. One binding for all the fields
    /// a caller sets (a visit's transfers, observer and taps): each binding is a box and a
    /// task-local record the visit holds while it thinks.
    public static func with<T>(_ change: (inout RequestContext) -> Void, _ body: () async throws -> T) async rethrows -> T {
        var c = context
        change(&c)
        return try await $box.withValue(Box(c), operation: body)
    }
}

/// Double taps: the same request sent `copies` times at once with one Idempotency-Key, as a
/// user tapping twice (or an app retrying on a timer) does. Decided per call from the user's
/// generator, so a replay taps the same calls.
public struct TapPolicy: Sendable {
    public var rate: Double
    public var copies: Int
    /// The calls that may be tapped: complete, submit, purchase, session create.
    public var routes: Set<Route>

    public static let defaultRoutes: Set<Route> = [.completeSession, .submitAttempt, .postTransaction, .createSession]

    public init(rate: Double, copies: Int = 2, routes: Set<Route> = TapPolicy.defaultRoutes) {
        self.rate = rate
        self.copies = max(2, copies)
        self.routes = routes
    }
}
