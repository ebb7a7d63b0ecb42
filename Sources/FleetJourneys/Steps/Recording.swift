import FleetCore
import FleetHTTP

/// One audio file a virtual user "records": shared bytes plus what the API asks about them.
public struct Recording: Sendable {
    public var body: HTTPBody
    public var sha256: String
    public var contentType: String
    public var durationMs: Int
    /// The corpus class (`speech`, `silence`, …), for reports and expectations.
    public var clipClass: String
    public var name: String

    public init(body: HTTPBody, sha256: String, contentType: String, durationMs: Int, clipClass: String, name: String) {
        self.body = body
        self.sha256 = sha256
        self.contentType = contentType
        self.durationMs = durationMs
        self.clipClass = clipClass
        self.name = name
    }

    public var sizeBytes: Int { body.count }
}

/// Where recordings come from: the audio corpus in runs, anything seeded in tests.
public protocol RecordingSource: Sendable {
    /// A seeded choice of a clip for `language` and `round`, honouring the class mix.
    func pick(language: String, round: Int, classMix: [String: Double], random: inout SeededRandom) -> Recording?
}
