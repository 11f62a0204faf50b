-- cairn schema v9: markdown workspaces. Times are unix milliseconds.
-- A workspace is a project whose memories are also written to files under its root; a unit
-- location says which file (a name inside the workspace's directory) holds a memory's unit,
-- as cairn last wrote or read it, or which file a RAW memory (text outside units, indexed
-- read-only) was read from. Locations outlive a purge until the unit is removed.

CREATE TABLE file_workspaces (
    project    TEXT    PRIMARY KEY,
    root       TEXT    NOT NULL,   -- absolute path of the project's root
    dir        TEXT    NOT NULL,   -- the files' directory, relative to the root
    created_at INTEGER NOT NULL,
    stamp      INTEGER             -- the files' names, sizes and times at the last sync, hashed
) WITHOUT ROWID;

CREATE TABLE file_units (
    memory_id TEXT    PRIMARY KEY,
    project   TEXT    NOT NULL,
    file      TEXT    NOT NULL,
    raw_hash  INTEGER           -- NULL for a unit; the text's hash for a RAW memory
) WITHOUT ROWID;
CREATE INDEX file_units_by_project ON file_units(project);
