-- cairn schema v16: what each image means to a CLIP model (a vector in the space its image and
-- text towers share), for images found by words that describe them.

-- One CLIP vector per image (core's `image::clip`), made after the write with the model named,
-- stored like look vectors: 8 bits a number after a little-endian f32 scale (516 bytes for
-- ViT-B/32's 512 numbers); empty when the file could not be decoded. It goes with its image.
CREATE TABLE image_clip_vectors (
    image_id TEXT NOT NULL UNIQUE REFERENCES images(id) ON DELETE CASCADE,
    model    TEXT NOT NULL,
    vector   BLOB NOT NULL
);
CREATE INDEX image_clip_vectors_by_model ON image_clip_vectors(model);
