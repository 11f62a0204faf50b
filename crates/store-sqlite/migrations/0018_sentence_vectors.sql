-- cairn schema v18: sentence vectors (core's `embedding::sentences`). Beside a memory's vector
-- of a space, the vectors of its content's sentences, all in one BLOB (per sentence a
-- little-endian f32 scale and one signed byte per dimension). A row exists only for a memory
-- with two sentences or more; it is written, replaced and deleted with the memory's vector
-- (vectors.rs). The index holds only the memory's vector. Vectors stored before this version
-- have no sentences until `cairn reindex --embeddings`.
CREATE TABLE memory_sentence_vectors (
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    space      TEXT    NOT NULL,
    vectors    BLOB    NOT NULL,
    PRIMARY KEY (memory_seq, space)
);
