-- cairn schema v17: access tokens (core's `access`), each scoped to one project with a right.
-- Only the SHA-256 of a token's text is kept, as 64 hex digits, and a request's token is looked
-- up by it. A revoked token keeps its row (for `cairn token list`) with `revoked_at` set.
CREATE TABLE access_tokens (
    id         TEXT PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    project    TEXT NOT NULL,
    access     TEXT NOT NULL CHECK (access IN ('read', 'write')),
    name       TEXT,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
