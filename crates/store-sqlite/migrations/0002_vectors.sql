-- cairn schema v2: vectors for semantic search.

-- The one model whose vectors this store holds (at most one row). Vectors of two models are
-- never mixed: recording another model deletes every vector (see SqliteTx::set_embedding_model).
CREATE TABLE embedding_model (
    singleton      INTEGER PRIMARY KEY CHECK (singleton = 1),
    name           TEXT    NOT NULL,
    dimensions     INTEGER NOT NULL,
    weights_sha256 TEXT    NOT NULL
);

-- One vector per embedded memory: `dimensions` little-endian f32, L2-normalised. Changing a
-- memory's title or content deletes its row (rows.rs); purging it deletes it by cascade.
CREATE TABLE memory_vectors (
    memory_seq INTEGER PRIMARY KEY REFERENCES memories(seq) ON DELETE CASCADE,
    vector     BLOB    NOT NULL
);

-- Memories pending embedding: found by the lexical signals, not yet by meaning. A row is added
-- with every new memory and every change of a title or content, and removed when the vector is
-- stored; dropping the vectors queues every memory. Kept as a table, not derived from
-- memory_vectors, so finding the next batch never scans the store.
CREATE TABLE embedding_queue (
    memory_seq INTEGER PRIMARY KEY REFERENCES memories(seq) ON DELETE CASCADE
);

-- Memories written before this version wait for their first vector too.
INSERT INTO embedding_queue (memory_seq) SELECT seq FROM memories;
