-- cairn schema v11: images kept with memories. Times are unix milliseconds.

-- One row per stored image; the file is `<image dir>/<first two digits>/<id>.<extension>`.
CREATE TABLE images (
    id         TEXT    PRIMARY KEY,     -- SHA-256 of the file, 64 lowercase hex digits
    format     TEXT    NOT NULL,        -- png, jpeg, gif or webp
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX images_by_created ON images(created_at);

-- Which memory shows which image. Deleting a memory deletes its links (never the image: the
-- service lets go of unreferenced images and their files after the commit).
CREATE TABLE memory_images (
    memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
    image_id   TEXT    NOT NULL REFERENCES images(id),
    PRIMARY KEY (memory_seq, image_id)
) WITHOUT ROWID;
CREATE INDEX memory_images_by_image ON memory_images(image_id, memory_seq);
