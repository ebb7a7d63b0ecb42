import FleetCore

/// One problem found in a profile, with the JSON path to it (`scenarios[1].stages[0].rate`).
public struct ProfileIssue: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Reads typed fields out of a JSON object while collecting every problem, so that validation
/// reports all issues at once (k6's `Validate() []error`), each with its path.
public final class ProfileReader {
    public private(set) var issues: [ProfileIssue] = []

    public init() {}

    public func issue(_ path: String, _ message: String) { issues.append(ProfileIssue(path: path, message: message)) }

    /// The object at `path`, reporting a type error; unknown keys are reported too (a typo in a
    /// profile should not silently fall back to a default).
    public func object(_ v: JSONValue?, _ path: String, known: Set<String>) -> JSONObject? {
        guard let v else { return nil }
        guard let o = v.object else { issue(path, "must be an object"); return nil }
        for k in o.keys.sorted() where !known.contains(k) { issue(join(path, k), "unknown field") }
        return o
    }

    public func string(_ o: JSONObject, _ key: String, _ path: String, required: Bool = false) -> String? {
        guard let v = o[key], !v.isNull else { if required { issue(join(path, key), "is required") }; return nil }
        guard let s = v.string else { issue(join(path, key), "must be a string"); return nil }
        return s
    }

    /// A number, checked against `min` (inclusive or exclusive) and `max`.
    public func number(_ o: JSONObject, _ key: String, _ path: String, required: Bool = false,
                       greaterThan: Double? = nil, atLeast: Double? = nil, atMost: Double? = nil) -> Double? {
        guard let v = o[key], !v.isNull else { if required { issue(join(path, key), "is required") }; return nil }
        guard let d = v.double else { issue(join(path, key), "must be a number"); return nil }
        if let g = greaterThan, !(d > g) { issue(join(path, key), "must be > \(fmt(g))"); return nil }
        if let a = atLeast, !(d >= a) { issue(join(path, key), "must be >= \(fmt(a))"); return nil }
        if let m = atMost, !(d <= m) { issue(join(path, key), "must be <= \(fmt(m))"); return nil }
        return d
    }

    public func integer(_ o: JSONObject, _ key: String, _ path: String, required: Bool = false,
                        atLeast: Int? = nil, atMost: Int? = nil) -> Int? {
        guard let v = o[key], !v.isNull else { if required { issue(join(path, key), "is required") }; return nil }
        guard let i = v.int else { issue(join(path, key), "must be an integer"); return nil }
        if let a = atLeast, i < a { issue(join(path, key), "must be >= \(a)"); return nil }
        if let m = atMost, i > m { issue(join(path, key), "must be <= \(m)"); return nil }
        return i
    }

    /// A `{name: weight}` mix: weights ≥ 0, at least one > 0, names from `allowed` when given.
    public func weights(_ o: JSONObject, _ key: String, _ path: String, allowed: Set<String>? = nil,
                        required: Bool = false) -> [String: Double]? {
        let p = join(path, key)
        guard let v = o[key], !v.isNull else { if required { issue(p, "is required") }; return nil }
        guard let m = v.object else { issue(p, "must be an object of name → weight"); return nil }
        var out: [String: Double] = [:]
        for k in m.keys.sorted() {
            if let a = allowed, !a.contains(k) {
                issue(join(p, k), "unknown name (expected one of \(a.sorted().joined(separator: ", ")))")
                continue
            }
            guard let w = m[k]!.double, w >= 0 else { issue(join(p, k), "must be a number >= 0"); continue }
            out[k] = w
        }
        if !m.isEmpty, out.values.reduce(0, +) <= 0, out.count == m.count { issue(p, "weights must not all be 0") }
        if m.isEmpty { issue(p, "must not be empty") }
        return out
    }

    public func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func fmt(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
