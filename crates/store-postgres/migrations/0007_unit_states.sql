-- cairn schema v7 on PostgreSQL: unit states and the workspace's git commit, as in the SQLite
-- store's migration 0019 (core's files::git): absence from a file is not deletion.
ALTER TABLE file_units ADD COLUMN state TEXT NOT NULL DEFAULT 'present';
ALTER TABLE file_workspaces ADD COLUMN head TEXT;
