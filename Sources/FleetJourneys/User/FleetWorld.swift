import FleetCheck
import FleetClient
import FleetMetrics

/// What every user of a run shares: the API client, the recorder, the recordings, the behaviour.
public struct FleetWorld: Sendable {
    public var client: APIClient
    public var recorder: Recorder
    public var recordings: any RecordingSource
    public var behaviour: Behaviour
    /// The run's invariant checker; nil when the profile turns checks off.
    public var checker: FleetChecker?

    public init(client: APIClient, recorder: Recorder, recordings: any RecordingSource, behaviour: Behaviour,
                checker: FleetChecker? = nil) {
        self.checker = checker
        self.client = client
        self.recorder = recorder
        self.recordings = recordings
        self.behaviour = behaviour
    }
}
