import FleetCore

/// Where a run (or a capacity search) sends its load: the target URL given, else a freshly started
/// embedded stack; refused unless loopback or `--allow-remote`. The caller stops `stack` when done.
enum RunTarget {
    static func resolve(target: String?, allowRemote: Bool, settings: JSONValue?, launcher: any StackLauncher,
                        say: @Sendable (String) -> Void) throws -> (base: String, stack: (any RunningStack)?) {
        var stack: (any RunningStack)?
        let base: String
        if let t = target { base = t } else {
            let s = try launcher.start(settings: settings)
            stack = s
            base = s.baseURL
            say("embedded stack at \(base)")
        }
        if !Loopback.isLoopbackURL(base), !allowRemote {
            stack?.stop()
            throw RunnerError.failed("target \(base) is not a loopback address; pass --allow-remote to load a remote stack")
        }
        return (base, stack)
    }
}
