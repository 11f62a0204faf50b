-- cairn schema v9 on PostgreSQL: relations waiting for their memories (core's
-- `relation::deferred`), as SQLite's migration 21. `record` is the relation as imported (JSON);
-- `status` is `deferred` or `dead`. Purging a memory deletes the rows that name it.
CREATE TABLE deferred_relations (
    id            TEXT   PRIMARY KEY,
    source_id     TEXT   NOT NULL,
    target_id     TEXT   NOT NULL,
    record        TEXT   NOT NULL,
    status        TEXT   NOT NULL,
    attempts      BIGINT NOT NULL,
    last_error    TEXT   NOT NULL,
    first_seen_at BIGINT NOT NULL,
    last_tried_at BIGINT NOT NULL
);
CREATE INDEX deferred_relations_source ON deferred_relations (source_id);
CREATE INDEX deferred_relations_target ON deferred_relations (target_id);
CREATE INDEX deferred_relations_seen ON deferred_relations (first_seen_at, id);
