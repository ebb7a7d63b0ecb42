/// The reference stack's tables. Times are epoch milliseconds; ids are opaque text.
///
/// Users are never physically deleted: `deleted_at` keeps the install id reserved, so that the old
/// install gets `403` after `DELETE /me` (API.md "Auth after deletion").
enum Schema {
    static let version = 3

    static let sql = """
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS users (
        id TEXT PRIMARY KEY,
        install_id TEXT NOT NULL UNIQUE,
        timezone TEXT NOT NULL,
        locale TEXT NOT NULL,
        ui_locale TEXT,
        practice_languages TEXT NOT NULL,
        app_version TEXT NOT NULL,
        platform TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        deleted_at INTEGER,
        onboarding TEXT NOT NULL DEFAULT 'not_started',
        ent_status TEXT NOT NULL DEFAULT 'none',
        ent_expires_at INTEGER,
        ent_grace_until INTEGER,
        xp INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        streak_day INTEGER,
        sessions_completed INTEGER NOT NULL DEFAULT 0,
        push_token TEXT,
        onboarding_json TEXT,
        diagnostic_session_id TEXT
    );
    CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        kind TEXT NOT NULL,
        article_id TEXT NOT NULL,
        language TEXT NOT NULL,
        stage TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        completed_at INTEGER,
        overall INTEGER
    );
    CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions(user_id, created_at);
    CREATE TABLE IF NOT EXISTS attempts (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        idem_key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        content_type TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        status TEXT NOT NULL,
        retryable INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        created_at INTEGER NOT NULL,
        submitted_at INTEGER,
        assessed_at INTEGER,
        assessment_id TEXT,
        overall INTEGER,
        fluency INTEGER,
        pronunciation INTEGER,
        completeness INTEGER,
        confidence REAL,
        UNIQUE (session_id, idem_key)
    );
    CREATE INDEX IF NOT EXISTS attempts_by_session ON attempts(session_id, round);
    CREATE TABLE IF NOT EXISTS uploads (
        attempt_id TEXT PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
        sha256 TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        uploaded_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS settlements (
        session_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        body BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS completions (
        user_id TEXT NOT NULL,
        article_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        completed_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS completions_by_article ON completions(user_id, article_id, completed_at);
    CREATE TABLE IF NOT EXISTS achievements (
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        earned_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, id)
    );
    CREATE TABLE IF NOT EXISTS idempotency (
        user_id TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        status INTEGER NOT NULL,
        response BLOB NOT NULL,
        object_id TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, method, path, key)
    );
    CREATE TABLE IF NOT EXISTS transactions (
        user_id TEXT NOT NULL,
        transaction_id TEXT NOT NULL,
        original_transaction_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        offer TEXT NOT NULL,
        purchase_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS transactions_by_id ON transactions(user_id, transaction_id);
    CREATE TABLE IF NOT EXISTS plans (
        user_id TEXT PRIMARY KEY,
        ready_at INTEGER NOT NULL,
        start_day INTEGER NOT NULL,
        days BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS feedback (
        assessment_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        helpful INTEGER NOT NULL,
        comment TEXT,
        created_at INTEGER NOT NULL
    );
    """
}
