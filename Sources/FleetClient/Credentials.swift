import FleetCore

/// The tokens and locale of one installed app: what the keychain would hold.
///
/// Owned by one virtual user and only touched from that user's sequential journey task; the
/// `@unchecked Sendable` lets the task carry it across the engine's completion queues, never share it.
// @unchecked: unguarded `var`s, confined to the owning user's journey task (one task at a time).
public final class Credentials: @unchecked Sendable {
    public var installId: String
    public var userId: String?
    public var accessToken: String? {
        didSet { authorization = accessToken.map { Concat.join("Bearer ", $0) } }
    }
    /// `Bearer <accessToken>`, the `Authorization` value, made when the token changes: made for
    /// every request it was an interpolation, an allocation and a regrowth each time.
    public private(set) var authorization: String?
    public var refreshToken: String?
    /// UI locale sent as `Accept-Language` on every request.
    public var locale: String
    /// IANA name or `±HH:MM`, given at sign-in; the stack counts streak days in it.
    public var timezone: String
    /// The app version this install runs (a population's mix); nil = the client's.
    public var appVersion: String?

    public init(installId: String, locale: String, timezone: String) {
        self.installId = installId
        self.locale = locale
        self.timezone = timezone
    }

    /// Another device signed into the same install: same install id, locale and zone; tokens of its own.
    public func sameInstall() -> Credentials {
        let c = Credentials(installId: installId, locale: locale, timezone: timezone)
        c.appVersion = appVersion
        return c
    }

    /// Forgets the tokens (account deleted, or sign-in must be redone).
    public func signOut() {
        userId = nil
        accessToken = nil
        refreshToken = nil
    }
}
