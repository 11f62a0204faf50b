-- cairn schema v10: the session context lists a project's latest decisions and preferences
-- (see core's context.rs). Walking (project, updated_at) and skipping every other category
-- read the whole project when it held few of them (tens of milliseconds at 100K memories, in
-- every SessionStart hook); this index walks one category of one project in order.
CREATE INDEX memories_by_project_category_updated ON memories(project, category, updated_at);
