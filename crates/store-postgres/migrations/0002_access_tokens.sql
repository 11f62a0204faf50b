-- cairn schema v2 on PostgreSQL: access tokens (core's `access`), as SQLite's migration 17.
-- Only the SHA-256 of a token's text is kept, as 64 hex digits, and a request's token is looked
-- up by it. A revoked token keeps its row (for `cairn token list`) with `revoked_at` set.
CREATE TABLE access_tokens (
    id         TEXT   PRIMARY KEY,
    hash       TEXT   NOT NULL UNIQUE,
    project    TEXT   NOT NULL,
    access     TEXT   NOT NULL CHECK (access IN ('read', 'write')),
    name       TEXT,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
