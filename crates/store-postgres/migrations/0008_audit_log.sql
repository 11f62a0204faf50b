-- cairn schema v8 on PostgreSQL: the audit log (core's `audit`), as SQLite's migration 20.
-- `token` is the id of the access token that made the change (NULL: the local operator);
-- `project` NULL is the global scope or the whole store. Old rows are deleted by time (`at`).
CREATE TABLE audit_log (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          BIGINT NOT NULL,
    action      TEXT   NOT NULL,
    entry_point TEXT   NOT NULL,
    token       TEXT,
    agent       TEXT,
    project     TEXT,
    target      TEXT   NOT NULL,
    detail      TEXT   NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
