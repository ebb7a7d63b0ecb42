import FleetClient

/// What survives an app kill: the keychain and the app's files.
///
/// Memory (the journey's local variables, in-flight transfers) is lost on a kill; this is what a
/// relaunched app finds on disk. Owned by one virtual user; see `Credentials` for why it is
/// `@unchecked Sendable`.
// @unchecked: unguarded `var`s, confined to the task of the one user (or visit) holding the device.
public final class Device: @unchecked Sendable {
    public let credentials: Credentials
    /// Recordings persisted before upload (flow 6: "persist file + attempt metadata").
    public var uploadQueue: [PendingUpload] = []
    /// Cached `GET /config` poll policy.
    public var poll = PollPolicy()
    /// Cached `GET /config` language codes (the bundled default until the first config).
    public var languages = LanguageSupport()
    /// Whether the OS has granted the microphone (flow 5).
    public var micPermission: MicPermission = .notAsked
    /// The App Store account's last signed transaction: what "Restore purchases" resubmits. It
    /// belongs to the store account, so it survives deleting the app's account (flows 1, 8).
    public var storeReceipt: StoreReceipt?
    /// The recording file being written when the app died (flow 4: "partial file on disk").
    public var partialRecording: PartialRecording?
    /// A session whose `POST /complete` went out and whose settlement has not been seen: after a
    /// kill the relaunched app replays it (flow 4 step 3).
    public var pendingSettlement: String?

    public init(credentials: Credentials) {
        self.credentials = credentials
    }
}

public enum MicPermission: Sendable { case notAsked, granted, denied }

/// A recording waiting to be uploaded, with the key that makes its attempt idempotent.
public struct PendingUpload: Sendable {
    public var sessionId: String
    public var round: Int
    public var idempotencyKey: String
    public var recording: Recording
    public var attemptId: String?
    public var uploaded: Bool
}
