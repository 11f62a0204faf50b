-- cairn schema v6: memory slots. Times are unix milliseconds.

CREATE TABLE slots (
    project     TEXT    NOT NULL,        -- '' for a global slot
    label       TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    description TEXT,
    size_limit  INTEGER NOT NULL,        -- characters
    pinned      INTEGER NOT NULL,
    read_only   INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    reflected   TEXT    NOT NULL DEFAULT '',  -- the lines reflection wrote, one a line, oldest first
    PRIMARY KEY (project, label)
) WITHOUT ROWID;

-- The default slots ever seeded per scope: a deleted default is not seeded again.
CREATE TABLE slot_seeds (
    project TEXT NOT NULL,
    label   TEXT NOT NULL,
    PRIMARY KEY (project, label)
) WITHOUT ROWID;
