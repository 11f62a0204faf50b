-- cairn schema v7: vector spaces. A vector belongs to a space ('text' today: sentence
-- embeddings of a memory's title and content; images add their own), and each space has its
-- own model, its own queue and its own index file. Every existing vector, model and queued
-- memory moves into the 'text' space unchanged, with its write number, so an index file built
-- before the upgrade stays valid.

-- The model of each space (one row per space). Recording another model for a space deletes
-- that space's vectors (see vectors::set_model).
CREATE TABLE vector_models (
    space          TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,
    dimensions     INTEGER NOT NULL,
    weights_sha256 TEXT    NOT NULL
);
INSERT INTO vector_models (space, name, dimensions, weights_sha256)
SELECT 'text', name, dimensions, weights_sha256 FROM embedding_model;
DROP TABLE embedding_model;

-- One vector per memory and space: `dimensions` little-endian f32, L2-normalised, numbered by
-- the vector clock when written. Keyed by memory first, so purging a memory finds its vectors.
CREATE TABLE space_vectors (
    space      TEXT    NOT NULL,
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    vector     BLOB    NOT NULL,
    written    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (memory_seq, space)
);
INSERT INTO space_vectors (space, memory_seq, vector, written)
SELECT 'text', memory_seq, vector, written FROM memory_vectors;
DROP TABLE memory_vectors;
ALTER TABLE space_vectors RENAME TO memory_vectors;
CREATE INDEX memory_vectors_by_written ON memory_vectors (space, written);

-- Memories waiting for a vector, per space, oldest first.
CREATE TABLE space_queue (
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    space      TEXT    NOT NULL,
    PRIMARY KEY (memory_seq, space)
) WITHOUT ROWID;
INSERT INTO space_queue (memory_seq, space) SELECT memory_seq, 'text' FROM embedding_queue;
DROP TABLE embedding_queue;
ALTER TABLE space_queue RENAME TO embedding_queue;
