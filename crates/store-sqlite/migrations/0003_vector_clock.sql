-- cairn schema v3: numbered vector writes, so an index built from the vectors knows what it holds.

-- The store's identity (a random key, so an index file never serves another database that was
-- put at the same path) and the number of the last vector written. Numbers only grow: a vector
-- written again gets a new one, never a reused one.
CREATE TABLE vector_clock (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    store_key  TEXT    NOT NULL,
    last_write INTEGER NOT NULL
);
INSERT INTO vector_clock (singleton, store_key, last_write)
VALUES (1, lower(hex(randomblob(16))), 0);

-- The number of the write that stored this vector (0 for vectors older than this version). An
-- HNSW index beside the database holds exactly the vectors numbered up to its watermark; the
-- rest — the tail — is scanned exactly (see ann.rs).
ALTER TABLE memory_vectors ADD COLUMN written INTEGER NOT NULL DEFAULT 0;
CREATE INDEX memory_vectors_by_written ON memory_vectors (written);
