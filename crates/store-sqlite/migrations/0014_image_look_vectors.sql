-- cairn schema v14: how each image looks as a look model sees it (a vector), for images that
-- look alike.

-- One look vector per image (core's `image::look_vector`), made after the write with the model
-- named: 8 bits a number after a little-endian f32 scale (1,284 bytes for 1,280 numbers, one
-- page); empty when the file could not be decoded. It goes with its image.
-- A rowid table, not WITHOUT ROWID: an index b-tree keeps at most about 1,000 bytes of a row
-- in its page and would move every vector to an overflow page, which the nearest-vector scan
-- then reads one by one.
CREATE TABLE image_look_vectors (
    image_id TEXT NOT NULL UNIQUE REFERENCES images(id) ON DELETE CASCADE,
    model    TEXT NOT NULL,
    vector   BLOB NOT NULL
);
