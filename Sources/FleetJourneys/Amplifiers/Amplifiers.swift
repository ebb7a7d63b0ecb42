import FleetClient

/// Race amplifiers (profile `scenarios[].amplifiers`): what a user does on purpose, at a rate, so
/// that concurrency and time bugs show within one run. Every choice is drawn from the user's own
/// generator, so `fleet replay` takes the same ones. All rates default to 0 (off).
public struct Amplifiers: Sendable, Equatable {
    /// The same request sent `doubleTapCopies` times at once with one key (complete, submit, purchase, session create).
    public var doubleTap = 0.0
    public var doubleTapCopies = 2
    /// After a settlement, an earlier session's complete is sent again.
    public var lateDuplicate = 0.0
    /// The app is killed while complete is in flight; the relaunch replays it.
    public var killDuringComplete = 0.0
    /// After a purchase, the same signed transaction is submitted `duplicatePurchaseCopies` more times at once (fresh keys).
    public var duplicatePurchase = 0.0
    public var duplicatePurchaseCopies = 3
    /// A second device signed into the same install walks the same journey at the same time.
    public var twinDevice = 0.0
    /// After its journey the user practises `backToBackSessions` more times, settlements seconds apart.
    public var backToBack = 0.0
    public var backToBackSessions = 2
    /// The user's timezone puts its local midnight 10–25 s after it arrives; it practises across it.
    public var midnight = 0.0
    /// Right after deleting its training data, the user reads what it had before.
    public var readAfterDelete = 0.0
    /// The user tries other users' session and attempt ids (from the fleet's registry).
    public var crossUserProbe = 0.0

    public init() {}

    /// Profile keys, for validation and documentation.
    public static let keys: Set<String> = [
        "double_tap", "double_tap_copies", "late_duplicate", "kill_during_complete", "duplicate_purchase",
        "duplicate_purchase_copies", "twin_device", "back_to_back", "back_to_back_sessions", "midnight",
        "read_after_delete", "cross_user_probe",
    ]

    public var tapPolicy: TapPolicy? { doubleTap > 0 ? TapPolicy(rate: doubleTap, copies: doubleTapCopies) : nil }
}
