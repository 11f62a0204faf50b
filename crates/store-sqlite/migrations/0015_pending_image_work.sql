-- cairn schema v15: telling "no image work is pending" without reading every image. The
-- server's worker asks after every write; at 100,000 images the walk over `images` cost a
-- third of a second each time.

-- The images not looked at yet: an image is hashed once, so this index is nearly always empty.
CREATE INDEX images_unhashed ON images(created_at, id) WHERE look IS NULL;

-- Texts counted without reading them: `image_texts` keeps each text in its own rows, so a count
-- walks this narrow index instead (an image lacks its text when the counts differ).
CREATE INDEX image_texts_by_reader ON image_texts(reader);

-- Look vectors counted per model (an image lacks one when its model's count is short of the
-- images'). The nearest-vector scan reads the table itself (`NOT INDEXED`), in storage order.
CREATE INDEX image_look_vectors_by_model ON image_look_vectors(model);
