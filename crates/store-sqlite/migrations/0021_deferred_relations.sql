-- cairn schema v21: relations an import kept because a memory of theirs is not in the store yet
-- (core's `relation::deferred`). `record` is the relation as imported (JSON); `status` is
-- `deferred` (tried again by later imports) or `dead` (can never apply). Purging a memory
-- deletes the rows that name it, as it deletes its relations.
CREATE TABLE deferred_relations (
    id            TEXT    PRIMARY KEY,
    source_id     TEXT    NOT NULL,
    target_id     TEXT    NOT NULL,
    record        TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    attempts      INTEGER NOT NULL,
    last_error    TEXT    NOT NULL,
    first_seen_at INTEGER NOT NULL,
    last_tried_at INTEGER NOT NULL
);
CREATE INDEX deferred_relations_source ON deferred_relations (source_id);
CREATE INDEX deferred_relations_target ON deferred_relations (target_id);
CREATE INDEX deferred_relations_seen ON deferred_relations (first_seen_at, id);
