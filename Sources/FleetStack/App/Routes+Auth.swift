import FleetCore
import FleetSQLite

/// Anonymous sign-in and token refresh.
extension StackApp {
    /// `POST /auth/anonymous`: the same install id is the same user; a deleted account's install
    /// id is refused with 403 (the app must mint a new one).
    func signIn(_ c: inout RequestContext) throws -> Reply {
        let installID = try c.string("install_id", maxLength: 200)
        let tz = UserTimeZone(try c.optionalString("timezone", maxLength: 64))
        let locale = try c.optionalString("locale", maxLength: 35) ?? "en"
        let appVersion = try c.optionalString("app_version", maxLength: 32) ?? "0"
        let platform = try c.optionalString("platform", maxLength: 32) ?? "unknown"
        guard AppVersion(appVersion) != nil else { throw APIError.invalid("'app_version' must be a dotted version like 1.4.2") }

        let userID: String
        if let existing = try db.queryOne("SELECT id, deleted_at FROM users WHERE install_id = ?", .text(installID)) {
            guard existing[1].isNull else {
                throw APIError.forbidden("this install id belongs to a deleted account; sign in with a new install id")
            }
            userID = existing.text(0)
            try db.run("UPDATE users SET timezone = ?, locale = ?, app_version = ?, platform = ? WHERE id = ?",
                       .text(tz.identifier), .text(locale), .text(appVersion), .text(platform), .text(userID))
        } else {
            userID = IDs.make("usr")
            let ent = settings.newUserEntitlement
            // A trial from the setting lasts 7 days; "active" is a complimentary subscription without end.
            let expires: SQLiteValue = ent == "trial" ? .int(c.nowMs + 7 * 86_400_000) : .null
            try db.run("""
                INSERT INTO users (id, install_id, timezone, locale, ui_locale, practice_languages, app_version, platform,
                                   created_at, ent_status, ent_expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, .text(userID), .text(installID), .text(tz.identifier), .text(locale),
                       .text(LanguageTag.closest(to: locale, in: settings.uiLocales)),
                       .text(LanguageTag.closest(to: locale, in: settings.practiceLanguages)),
                       .text(appVersion), .text(platform), .int(c.nowMs), .text(ent), expires)
        }
        return .json(200, tokenPair(userID: userID, nowMs: c.nowMs))
    }

    /// `POST /auth/refresh`: a valid refresh token of a live user gets a new pair; anything else 401.
    func refresh(_ c: inout RequestContext) throws -> Reply {
        let token = try c.string("refresh_token", maxLength: 1024)
        let claims: TokenSigner.Claims
        do { claims = try tokens.verify(token, kind: .refresh, nowMs: c.nowMs) } catch {
            throw error == .expired ? APIError.tokenExpired : APIError.unauthorized("invalid refresh token")
        }
        guard let user = try loadUser(claims.userID), user.deletedAt == nil else {
            throw APIError.unauthorized("the account no longer exists")
        }
        return .json(200, tokenPair(userID: user.id, nowMs: c.nowMs))
    }

    private func tokenPair(userID: String, nowMs: Int64) -> JSONValue {
        [
            "user_id": .string(userID),
            "access_token": .string(tokens.issue(.access, userID: userID, lifetimeS: settings.accessTokenLifetimeS, nowMs: nowMs)),
            "refresh_token": .string(tokens.issue(.refresh, userID: userID, lifetimeS: 30 * 86_400, nowMs: nowMs)),
            "expires_in": .number(Double(settings.accessTokenLifetimeS)),
        ]
    }
}
