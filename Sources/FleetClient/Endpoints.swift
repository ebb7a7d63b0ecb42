/// Every endpoint template the client records requests under (`GET /sessions/{id}`), plus the
/// presigned upload (`PUT upload`). Cohort warm-up requests carry the `warmup:` prefix
/// (`RequestScope.endpointPrefix`). Profile validation checks threshold names against these.
public enum Endpoints {
    public static let templates: Set<String> = [
        "POST /auth/anonymous", "POST /auth/refresh", "GET /config",
        "GET /me", "PATCH /me", "PUT /me/push-token", "DELETE /me", "DELETE /me/training-data",
        "GET /topics", "POST /onboarding", "GET /plan", "GET /paywall", "POST /subscriptions/apple/transactions",
        "GET /articles", "GET /home", "GET /growth",
        "POST /sessions", "GET /sessions/{id}", "POST /sessions/{id}/reading-complete", "POST /sessions/{id}/attempts",
        "POST /sessions/{id}/complete", "POST /sessions/{id}/abandon", "DELETE /sessions/{id}",
        "POST /attempts/{id}/submit", "GET /attempts/{id}", "POST /attempts/{id}/retry", "GET /attempts/{id}/exemplar",
        "GET /attempts/{id}/audio", "POST /assessments/{id}/feedback",
        "PUT upload",
    ]

    /// Prefixes a recorded endpoint name may carry.
    public static let warmupPrefix = "warmup:"
}
