-- cairn schema v14: how each image looks as a look model sees it (a vector), for images that
-- look alike.

-- One look vector per image (core's `image::look_vector`): little-endian f32s of unit length,
-- made after the write with the model named; empty when the file could not be decoded. It goes
-- with its image.
CREATE TABLE image_look_vectors (
    image_id TEXT NOT NULL PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    model    TEXT NOT NULL,
    vector   BLOB NOT NULL
) WITHOUT ROWID;
