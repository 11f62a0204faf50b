-- cairn schema v20: the audit log (core's `audit`), one row per change, in the order appended.
-- `token` is the id of the access token that made the change (NULL: the local operator);
-- `project` NULL is the global scope or the whole store. Old rows are deleted by time (`at`).
CREATE TABLE audit_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    at          INTEGER NOT NULL,
    action      TEXT    NOT NULL,
    entry_point TEXT    NOT NULL,
    token       TEXT,
    agent       TEXT,
    project     TEXT,
    target      TEXT    NOT NULL,
    detail      TEXT    NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
