import FleetCore
import FleetRunner

/// `fleet profile validate FILE…`: every problem of each profile, with its JSON path; exit 2 on any.
public enum ProfileCommand: FleetCommand {
    public static let name = "profile"
    public static let summary = "validate profiles (fleet profile validate FILE…)"

    public static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        var a = ArgumentReader(arguments)
        let rest = try a.finish()
        guard rest.first == "validate", rest.count >= 2 else {
            throw UsageError("usage: fleet profile validate FILE…")
        }
        var bad = false
        for file in rest.dropFirst() {
            do {
                let p = try Profile.load(path: file)
                io.out("\(file): ok (\(p.scenarios.count) scenario\(p.scenarios.count == 1 ? "" : "s"), planned \(Int(p.plannedDurationS)) s)")
                for line in p.populationLines() { io.out(line) }
            } catch {
                bad = true
                io.err(error.description)
            }
        }
        return bad ? ExitCode.usage : ExitCode.success
    }
}
