-- cairn schema v12: the text read from images (OCR) is searchable with the memories that show
-- them.

-- The text a reader (an OCR model) read from each image: once per image, whatever number of
-- memories show it. An image without a row is unread.
CREATE TABLE image_texts (
    image_id TEXT NOT NULL PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    text     TEXT NOT NULL,        -- lines in reading order; empty when the image shows none
    reader   TEXT NOT NULL         -- the model that read it
) WITHOUT ROWID;

-- A memory's image text: the texts of the images it shows, joined (oldest image first). Kept
-- by the store whenever an image is read or linked (image.rs), indexed beside the memory's
-- own text and embedded after it.
ALTER TABLE memories ADD COLUMN image_text TEXT NOT NULL DEFAULT '';

-- The full-text index gains the column (an external-content index is rebuilt from the table).
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts5(
    title, content, tags, image_text,
    content = 'memories', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
