/// Mean requests per visit of each journey, by endpoint template, as measured on the reference
/// stack by `bench/requests-per-visit.sh` (40 users per journey in its usual cohort — new for
/// firstLaunch and permissionDenied, at_risk for expiry, returning for the rest — default branch
/// probabilities, cohort warm-ups left out; 2026-12-01). The population's forecast
/// (`ExpectedRequests`) is built from it; regenerate it when a journey's requests change.
/// Status polls (`GET /attempts/{id}`) follow the turnaround it was measured at (about one poll
/// per assessment at the stack's 2 s poll interval); a slower server is polled more.
enum RequestsPerVisit {
    static let measured: [String: [String: Double]] = [
        "changeLanguages": [
            "GET /attempts/{id}": 0.25, "GET /attempts/{id}/audio": 0.07, "GET /attempts/{id}/exemplar": 0.17,
            "GET /config": 1.00, "GET /home": 2.02, "GET /me": 1.00, "GET /sessions/{id}": 0.57,
            "PATCH /me": 1.45, "POST /assessments/{id}/feedback": 0.05, "POST /attempts/{id}/submit": 0.25,
            "POST /sessions": 0.57, "POST /sessions/{id}/attempts": 0.25, "POST /sessions/{id}/complete": 0.12,
            "POST /sessions/{id}/reading-complete": 0.57, "PUT upload": 0.25
        ],
        "dailyQuest": [
            "GET /attempts/{id}": 2.00, "GET /attempts/{id}/audio": 0.20, "GET /attempts/{id}/exemplar": 1.25,
            "GET /config": 1.00, "GET /home": 2.00, "POST /assessments/{id}/feedback": 0.42,
            "POST /attempts/{id}/submit": 2.00, "POST /sessions": 1.00, "POST /sessions/{id}/attempts": 2.00,
            "POST /sessions/{id}/complete": 1.00, "POST /sessions/{id}/reading-complete": 1.00,
            "PUT upload": 2.00
        ],
        "deleteData": [
            "DELETE /me": 0.23, "DELETE /me/training-data": 0.40, "DELETE /sessions/{id}": 0.38,
            "GET /config": 1.23, "GET /growth": 1.15, "GET /home": 0.40, "GET /me": 2.38,
            "POST /auth/anonymous": 0.23
        ],
        "expiry": [
            "GET /attempts/{id}": 2.00, "GET /attempts/{id}/audio": 0.17, "GET /attempts/{id}/exemplar": 1.43,
            "GET /config": 1.00, "GET /home": 2.00, "GET /me": 1.00, "GET /paywall": 1.00,
            "POST /assessments/{id}/feedback": 0.65, "POST /attempts/{id}/submit": 2.00, "POST /sessions": 1.00,
            "POST /sessions/{id}/attempts": 2.00, "POST /sessions/{id}/complete": 1.00,
            "POST /sessions/{id}/reading-complete": 1.00, "POST /subscriptions/apple/transactions": 1.00,
            "PUT upload": 2.00
        ],
        "firstLaunch": [
            "GET /attempts/{id}": 1.50, "GET /attempts/{id}/audio": 0.07, "GET /attempts/{id}/exemplar": 0.35,
            "GET /config": 1.00, "GET /home": 1.12, "GET /me": 1.00, "GET /paywall": 1.00, "GET /plan": 1.32,
            "GET /topics": 1.00, "POST /assessments/{id}/feedback": 0.12, "POST /attempts/{id}/submit": 1.50,
            "POST /auth/anonymous": 1.00, "POST /onboarding": 1.00, "POST /sessions": 0.25,
            "POST /sessions/{id}/attempts": 1.50, "POST /sessions/{id}/complete": 0.25,
            "POST /sessions/{id}/reading-complete": 1.25, "POST /subscriptions/apple/transactions": 0.88,
            "PUT /me/push-token": 0.50, "PUT upload": 1.50
        ],
        "freePractice": [
            "GET /articles": 1.85, "GET /attempts/{id}": 2.90, "GET /attempts/{id}/audio": 0.50,
            "GET /attempts/{id}/exemplar": 1.82, "GET /config": 1.00, "GET /topics": 1.00,
            "POST /assessments/{id}/feedback": 0.78, "POST /attempts/{id}/submit": 2.90, "POST /sessions": 1.45,
            "POST /sessions/{id}/attempts": 2.90, "POST /sessions/{id}/complete": 1.45,
            "POST /sessions/{id}/reading-complete": 1.45, "PUT upload": 2.90
        ],
        "killAndResume": [
            "GET /attempts/{id}": 1.45, "GET /attempts/{id}/audio": 0.17, "GET /attempts/{id}/exemplar": 0.85,
            "GET /config": 2.00, "GET /home": 2.92, "GET /sessions/{id}": 0.75,
            "POST /assessments/{id}/feedback": 0.35, "POST /attempts/{id}/submit": 1.82, "POST /sessions": 1.00,
            "POST /sessions/{id}/abandon": 0.17, "POST /sessions/{id}/attempts": 1.82,
            "POST /sessions/{id}/complete": 0.82, "POST /sessions/{id}/reading-complete": 1.00,
            "PUT upload": 1.82
        ],
        "offlineUpload": [
            "GET /attempts/{id}": 2.00, "GET /attempts/{id}/audio": 0.55, "GET /attempts/{id}/exemplar": 1.23,
            "GET /config": 1.00, "GET /home": 2.00, "POST /assessments/{id}/feedback": 0.62,
            "POST /attempts/{id}/submit": 2.00, "POST /sessions": 1.00, "POST /sessions/{id}/attempts": 2.00,
            "POST /sessions/{id}/complete": 1.00, "POST /sessions/{id}/reading-complete": 1.00,
            "PUT upload": 2.00
        ],
        "permissionDenied": [
            "GET /attempts/{id}": 0.45, "GET /config": 1.00, "GET /me": 1.00, "GET /topics": 1.00,
            "POST /attempts/{id}/submit": 0.45, "POST /auth/anonymous": 1.00, "POST /onboarding": 1.00,
            "POST /sessions/{id}/attempts": 0.45, "POST /sessions/{id}/reading-complete": 1.00,
            "PUT /me/push-token": 0.50, "PUT upload": 0.45
        ],
    ]
}
