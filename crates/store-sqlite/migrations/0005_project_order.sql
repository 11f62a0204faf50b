-- cairn schema v5: a listing in one project (and the global memories) walks each scope in order
-- and stops at the page, instead of sorting every memory of the project (see read.rs, `list`).
CREATE INDEX memories_by_project_updated ON memories(project, updated_at);
CREATE INDEX memories_by_project_created ON memories(project, created_at);
