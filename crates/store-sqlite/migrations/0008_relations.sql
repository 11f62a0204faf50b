-- cairn schema v8: relations between memories (conflicts and supersession). Times are unix
-- milliseconds. A relation names its memories by id; purging a memory deletes its relations
-- (memory.rs), forgetting one keeps them (the other side then reads "deleted").

CREATE TABLE relations (
    id         TEXT    PRIMARY KEY,           -- the judgment id
    source_id  TEXT    NOT NULL,              -- the newer memory
    target_id  TEXT    NOT NULL,              -- the older memory
    project    TEXT    NOT NULL,              -- '' for global
    score      REAL,                          -- how alike detection found the pair; NULL when compared directly
    relation   TEXT,                          -- the current verdict's relation; NULL while pending
    verdict    TEXT,                          -- the current verdict (JSON); NULL while pending
    history    TEXT    NOT NULL DEFAULT '[]', -- earlier verdicts (JSON array), oldest first
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX relations_by_source  ON relations(source_id);
CREATE INDEX relations_by_target  ON relations(target_id);
CREATE INDEX relations_by_project ON relations(project, updated_at);
