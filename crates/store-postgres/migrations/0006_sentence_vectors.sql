-- cairn schema v6 on PostgreSQL: sentence vectors (core's `embedding::sentences`), as in the
-- SQLite store's migration 0018. Beside a memory's vector of a space, the vectors of its
-- content's sentences, all in one bytea (per sentence a little-endian f32 scale and one signed
-- byte per dimension). A row exists only for a memory with two sentences or more; it is
-- written, replaced and deleted with the memory's vector (vectors.rs). The HNSW index holds
-- only the memory's vector. Vectors stored before this version have no sentences until
-- `cairn reindex --embeddings`.
CREATE TABLE memory_sentence_vectors (
    memory_seq BIGINT NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    space      TEXT   NOT NULL,
    vectors    BYTEA  NOT NULL,
    PRIMARY KEY (memory_seq, space)
);
