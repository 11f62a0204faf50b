-- cairn schema v1. Migrations are only ever added, never edited.
-- Times are unix milliseconds (UTC). Ids are hyphenated lowercase UUIDs.

CREATE TABLE memories (
    seq          INTEGER PRIMARY KEY,    -- internal row key; also the full-text rowid
    id           TEXT    NOT NULL UNIQUE,
    content      TEXT    NOT NULL,
    title        TEXT,
    category     TEXT    NOT NULL,
    project      TEXT    NOT NULL,       -- '' for global, else the project name
    topic_key    TEXT,
    content_hash INTEGER NOT NULL,       -- cairn_core::normalise::content_hash(content)
    entered_by   TEXT,
    session_id   TEXT,
    source       TEXT    NOT NULL,
    importance   INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    deleted_at   INTEGER,
    tags         TEXT    NOT NULL DEFAULT ''  -- space-joined copy of memory_tags, for FTS and loading
);
CREATE INDEX memories_by_content ON memories(project, content_hash);
CREATE INDEX memories_by_topic   ON memories(project, topic_key) WHERE topic_key IS NOT NULL;
CREATE INDEX memories_by_created ON memories(created_at);
CREATE INDEX memories_by_updated ON memories(updated_at);
CREATE INDEX memories_by_expiry  ON memories(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE tags (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);

CREATE TABLE memory_tags (
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    tag_id     INTEGER NOT NULL REFERENCES tags(id),
    PRIMARY KEY (memory_seq, tag_id)
) WITHOUT ROWID;
CREATE INDEX memory_tags_by_tag ON memory_tags(tag_id, memory_seq);

CREATE TABLE memory_revisions (
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    content    TEXT    NOT NULL,
    title      TEXT,
    category   TEXT    NOT NULL,
    tags       TEXT    NOT NULL,
    importance INTEGER NOT NULL,
    expires_at INTEGER,
    written_at INTEGER NOT NULL,
    PRIMARY KEY (memory_seq, number)
) WITHOUT ROWID;

-- Full-text index over the memories table itself (external content: no second copy of the
-- text). The store writes its rows in the same transaction as every change to a memory (see
-- rows.rs); not by triggers, because a trigger's statement savepoint makes FTS5 flush its
-- pending index on every row, which halves bulk-import throughput.
CREATE VIRTUAL TABLE memories_fts USING fts5(
    title, content, tags,
    content = 'memories', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Words seen in memories (lowercased, unstemmed, 3 to 40 characters with a letter), for
-- typo-tolerant search: a trigram index finds words sharing letter triples with a query word,
-- and the service re-scores them by edit distance. Written in the same transaction as the
-- memory. It only grows: a word whose memories are gone just finds nothing.
CREATE TABLE vocabulary (
    id   INTEGER PRIMARY KEY,
    word TEXT NOT NULL UNIQUE
);

CREATE VIRTUAL TABLE vocabulary_trigrams USING fts5(
    word,
    content = 'vocabulary', content_rowid = 'id',
    tokenize = 'trigram'
);
