-- cairn schema v4: agent sessions and their observations (hooks). Times are unix milliseconds.

CREATE TABLE sessions (
    seq          INTEGER PRIMARY KEY,
    agent        TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,       -- the agent's own id
    project      TEXT    NOT NULL,
    cwd          TEXT,
    started_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    ended_at     INTEGER,
    first_prompt TEXT,
    summary      TEXT,
    summary_by   TEXT,                   -- cairn | model | agent
    UNIQUE (agent, session_id)
);
CREATE INDEX sessions_by_project ON sessions(project, last_seen_at);
CREATE INDEX sessions_by_last_seen ON sessions(last_seen_at);

CREATE TABLE observations (
    seq         INTEGER PRIMARY KEY,     -- also the full-text rowid
    session_seq INTEGER NOT NULL REFERENCES sessions(seq) ON DELETE CASCADE,
    event_id    TEXT    NOT NULL UNIQUE, -- a replayed event is recorded once
    at          INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    tool        TEXT,
    input       TEXT,
    output      TEXT,
    files       TEXT    NOT NULL DEFAULT '',  -- one path a line
    error       INTEGER NOT NULL DEFAULT 0,
    importance  INTEGER NOT NULL
);
CREATE INDEX observations_by_session ON observations(session_seq, at);
CREATE INDEX observations_by_time ON observations(at);

-- Written by the store in the same transaction as each observation (see sessions.rs), like
-- memories_fts.
CREATE VIRTUAL TABLE observations_fts USING fts5(
    tool, input, output, files,
    content = 'observations', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
