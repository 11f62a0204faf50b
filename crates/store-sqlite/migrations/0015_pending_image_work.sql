-- cairn schema v15: telling "no image work is pending" without reading every image. The
-- server's worker asks after every write; at 100,000 images the walk over `images` cost a
-- third of a second each time.

-- The images not looked at yet: an image is hashed once, so this index is nearly always empty.
CREATE INDEX images_unhashed ON images(created_at, id) WHERE look IS NULL;

-- Look vectors counted per model (an image lacks one when its model's count is short of the
-- images'); the vector itself stays in the table.
CREATE INDEX image_look_vectors_by_model ON image_look_vectors(model);
