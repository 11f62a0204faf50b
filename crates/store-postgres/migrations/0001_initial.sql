-- cairn's schema on PostgreSQL: the same tables as the SQLite store's migrations 1 to 16, in one
-- step. Times are milliseconds since the Unix epoch (BIGINT), as in SQLite, so both stores hold
-- exactly the same values. Full text is a `tsvector` column written by the store from text it
-- has already split into words (runs of letters and digits, as SQLite's unicode61 tokenizer
-- splits), stemmed by the `cairn` configuration: English stems and no stop words.

CREATE TEXT SEARCH DICTIONARY cairn_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION cairn (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION cairn
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH cairn_stem;

CREATE TABLE memories (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT    COLLATE "C" NOT NULL UNIQUE,  -- byte order: prefix ranges
    content      TEXT    NOT NULL,
    title        TEXT,
    category     TEXT    NOT NULL,
    project      TEXT    NOT NULL,       -- '' for global, else the project name
    topic_key    TEXT,
    content_hash BIGINT  NOT NULL,       -- cairn_core::normalise::content_hash(content)
    entered_by   TEXT,
    session_id   TEXT,
    source       TEXT    NOT NULL,
    importance   BIGINT  NOT NULL,
    created_at   BIGINT  NOT NULL,
    updated_at   BIGINT  NOT NULL,
    expires_at   BIGINT,
    deleted_at   BIGINT,
    tags         TEXT    NOT NULL DEFAULT '',  -- space-joined copy of memory_tags
    image_text   TEXT    NOT NULL DEFAULT '',  -- the texts of the images it shows
    fts          tsvector NOT NULL             -- title (A), tags (B), content and image text (D)
);
CREATE INDEX memories_by_content ON memories(project, content_hash);
CREATE INDEX memories_by_topic   ON memories(project, topic_key) WHERE topic_key IS NOT NULL;
CREATE INDEX memories_by_created ON memories(created_at);
CREATE INDEX memories_by_updated ON memories(updated_at);
CREATE INDEX memories_by_expiry  ON memories(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_by_project_updated ON memories(project, updated_at);
CREATE INDEX memories_by_project_created ON memories(project, created_at);
CREATE INDEX memories_by_project_category_updated ON memories(project, category, updated_at);
CREATE INDEX memories_fts ON memories USING gin (fts);

CREATE TABLE tags (
    id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE              -- tags are stored lowercased
);
CREATE TABLE memory_tags (
    memory_seq BIGINT NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    tag_id     BIGINT NOT NULL REFERENCES tags(id),
    PRIMARY KEY (memory_seq, tag_id)
);
CREATE INDEX memory_tags_by_tag ON memory_tags(tag_id, memory_seq);

CREATE TABLE memory_revisions (
    memory_seq BIGINT  NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    number     BIGINT  NOT NULL,
    content    TEXT    NOT NULL,
    title      TEXT,
    category   TEXT    NOT NULL,
    tags       TEXT    NOT NULL,
    importance BIGINT  NOT NULL,
    expires_at BIGINT,
    written_at BIGINT  NOT NULL,
    PRIMARY KEY (memory_seq, number)
);

-- The words of everything written, for typo-tolerant search (pg_trgm).
CREATE TABLE vocabulary (
    word TEXT COLLATE "C" PRIMARY KEY
);
CREATE INDEX vocabulary_trigrams ON vocabulary USING gist (word gist_trgm_ops);

CREATE TABLE vector_models (
    space          TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,
    dimensions     BIGINT  NOT NULL,
    weights_sha256 TEXT    NOT NULL
);
CREATE TABLE memory_vectors (
    space      TEXT   NOT NULL,
    memory_seq BIGINT NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    vector     vector NOT NULL,
    PRIMARY KEY (memory_seq, space)
);
CREATE INDEX memory_vectors_by_space ON memory_vectors(space);
CREATE TABLE embedding_queue (
    memory_seq BIGINT NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    space      TEXT   NOT NULL,
    PRIMARY KEY (memory_seq, space)
);

CREATE TABLE sessions (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent        TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,
    project      TEXT    NOT NULL,
    cwd          TEXT,
    started_at   BIGINT  NOT NULL,
    last_seen_at BIGINT  NOT NULL,
    ended_at     BIGINT,
    first_prompt TEXT,
    summary      TEXT,
    summary_by   TEXT,
    UNIQUE (agent, session_id)
);
CREATE INDEX sessions_by_project ON sessions(project, last_seen_at);
CREATE INDEX sessions_by_last_seen ON sessions(last_seen_at);
CREATE TABLE observations (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_seq BIGINT  NOT NULL REFERENCES sessions(seq) ON DELETE CASCADE,
    event_id    TEXT    NOT NULL UNIQUE,
    at          BIGINT  NOT NULL,
    kind        TEXT    NOT NULL,
    tool        TEXT,
    input       TEXT,
    output      TEXT,
    files       TEXT    NOT NULL DEFAULT '',
    error       BOOLEAN NOT NULL DEFAULT false,
    importance  BIGINT  NOT NULL,
    fts         tsvector NOT NULL
);
CREATE INDEX observations_by_session ON observations(session_seq, at);
CREATE INDEX observations_by_time ON observations(at);
CREATE INDEX observations_fts ON observations USING gin (fts);

CREATE TABLE slots (
    project     TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    description TEXT,
    size_limit  BIGINT  NOT NULL,
    pinned      BOOLEAN NOT NULL,
    read_only   BOOLEAN NOT NULL,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL,
    reflected   TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (project, label)
);
CREATE TABLE slot_seeds (
    project TEXT NOT NULL,
    label   TEXT NOT NULL,
    PRIMARY KEY (project, label)
);

CREATE TABLE relations (
    id         TEXT    COLLATE "C" PRIMARY KEY,
    source_id  TEXT    NOT NULL,
    target_id  TEXT    NOT NULL,
    project    TEXT    NOT NULL,
    score      DOUBLE PRECISION,
    relation   TEXT,
    verdict    TEXT,
    history    TEXT    NOT NULL DEFAULT '[]',
    created_at BIGINT  NOT NULL,
    updated_at BIGINT  NOT NULL
);
CREATE INDEX relations_by_source  ON relations(source_id);
CREATE INDEX relations_by_target  ON relations(target_id);
CREATE INDEX relations_by_project ON relations(project, updated_at);

CREATE TABLE file_workspaces (
    project    TEXT    PRIMARY KEY,
    root       TEXT    NOT NULL,
    dir        TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    stamp      BIGINT
);
CREATE TABLE file_units (
    memory_id TEXT    PRIMARY KEY,
    project   TEXT    NOT NULL,
    file      TEXT    NOT NULL,
    raw_hash  BIGINT
);
CREATE INDEX file_units_by_project ON file_units(project);

CREATE TABLE images (
    id         TEXT    PRIMARY KEY,
    format     TEXT    NOT NULL,
    width      BIGINT  NOT NULL,
    height     BIGINT  NOT NULL,
    bytes      BIGINT  NOT NULL,
    created_at BIGINT  NOT NULL,
    look       BYTEA                     -- NULL until hashed; empty when it could not be
);
CREATE INDEX images_by_created ON images(created_at, id);
CREATE INDEX images_unhashed ON images(created_at, id) WHERE look IS NULL;
CREATE TABLE memory_images (
    memory_seq BIGINT NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    image_id   TEXT   NOT NULL REFERENCES images(id),
    PRIMARY KEY (memory_seq, image_id)
);
CREATE INDEX memory_images_by_image ON memory_images(image_id, memory_seq);
CREATE TABLE image_texts (
    image_id TEXT NOT NULL PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    text     TEXT NOT NULL,
    reader   TEXT NOT NULL
);
CREATE TABLE image_look_vectors (
    image_id TEXT  NOT NULL PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    model    TEXT  NOT NULL,
    vector   BYTEA NOT NULL
);
CREATE INDEX image_look_vectors_by_model ON image_look_vectors(model);
CREATE TABLE image_clip_vectors (
    image_id TEXT  NOT NULL PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    model    TEXT  NOT NULL,
    vector   BYTEA NOT NULL
);
CREATE INDEX image_clip_vectors_by_model ON image_clip_vectors(model);
