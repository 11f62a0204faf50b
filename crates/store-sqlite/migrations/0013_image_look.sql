-- cairn schema v13: how each image looks (a perceptual hash), for "the same screen" and
-- image → image search.

-- The image's look hash (core's `image::look`, 68 bytes), computed after the write with its
-- text; NULL until then, empty when the file could not be decoded.
ALTER TABLE images ADD COLUMN look BLOB;
