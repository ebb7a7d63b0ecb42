/// Every route of the API, in one table (the contract is `contract/openapi.yaml`).
extension StackApp {
    func makeRouter() -> Router {
        Router(routes: [
            Route("GET", "/healthz", .open) { _ in .json(200, ["status": "ok"]) },
            // Not in the contract: the reference stack's own row counts, which `fleet capacity`
            // reports as the database size reached (another server's are unknown to the bench).
            Route("GET", "/_stack/stats", .open) { [unowned self] _ in try stats() },
            Route("GET", "/config", .open) { [unowned self] _ in Reply(status: 200, body: StackApp.configJSON(settings).serializedBytes()) },
            Route("POST", "/auth/anonymous", .open) { [unowned self] in try signIn(&$0) },
            Route("POST", "/auth/refresh", .open) { [unowned self] in try refresh(&$0) },

            Route("GET", "/me", .user) { [unowned self] in .json(200, $0.user.meJSON(nowMs: $0.nowMs, utcStreak: settings.bug(.streakUTC))) },
            Route("PATCH", "/me", .user) { [unowned self] in try patchMe(&$0) },
            Route("DELETE", "/me", .user) { [unowned self] in try deleteMe(&$0) },
            Route("PUT", "/me/push-token", .user, jsonBody: true) { [unowned self] in try putPushToken(&$0) },
            Route("DELETE", "/me/training-data", .user) { [unowned self] in try deleteTrainingData(&$0) },

            Route("GET", "/topics", .user) { [unowned self] _ in
                .json(200, ["topics": .array(catalog.topics.map { ["id": .string($0.id), "name": .string($0.name)] })])
            },
            Route("POST", "/onboarding", .user) { [unowned self] in try onboarding(&$0) },
            Route("GET", "/plan", .user) { [unowned self] in try plan(&$0) },
            Route("GET", "/paywall", .user) { [unowned self] in try paywall(&$0) },
            Route("POST", "/subscriptions/apple/transactions", .user) { [unowned self] in try appleTransaction(&$0) },

            Route("GET", "/articles", .user) { [unowned self] in try articles(&$0) },
            Route("GET", "/home", .user) { [unowned self] in try home(&$0) },
            Route("GET", "/growth", .user) { [unowned self] in try growth(&$0) },

            Route("POST", "/sessions", .user) { [unowned self] in try createSession(&$0) },
            Route("GET", "/sessions/{id}", .user) { [unowned self] in try getSession(&$0) },
            Route("DELETE", "/sessions/{id}", .user) { [unowned self] in try deleteSession(&$0) },
            Route("POST", "/sessions/{id}/reading-complete", .user) { [unowned self] in try readingComplete(&$0) },
            Route("POST", "/sessions/{id}/attempts", .user) { [unowned self] in try createAttempt(&$0) },
            Route("POST", "/sessions/{id}/complete", .user) { [unowned self] in try complete(&$0) },
            Route("POST", "/sessions/{id}/abandon", .user) { [unowned self] in try abandon(&$0) },

            Route("PUT", "/uploads/{id}", .open, jsonBody: false) { [unowned self] in try upload(&$0) },
            Route("GET", "/media/{id}", .open) { [unowned self] in try media(&$0) },
            Route("POST", "/attempts/{id}/submit", .user) { [unowned self] in try submit(&$0) },
            Route("GET", "/attempts/{id}", .user) { [unowned self] in try getAttempt(&$0) },
            Route("POST", "/attempts/{id}/retry", .user) { [unowned self] in try retry(&$0) },
            Route("GET", "/attempts/{id}/exemplar", .user) { [unowned self] in try exemplar(&$0) },
            Route("GET", "/attempts/{id}/audio", .user) { [unowned self] in try audio(&$0) },
            Route("POST", "/assessments/{id}/feedback", .user) { [unowned self] in try feedback(&$0) },
        ])
    }
}
