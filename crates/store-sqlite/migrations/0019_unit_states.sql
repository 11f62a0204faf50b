-- cairn schema v19: files are the truth, but absence is not deletion (core's files::git).
-- A unit location now says whether its unit is in its file: 'present' (as cairn last wrote or
-- read it), 'absent' (git put another version of the file in place: a branch switch, a stash,
-- a reset; the memory is kept) or 'cut' (cut by an edit or a commit pulled in: its memory was
-- forgotten, and comes back with the unit). A workspace remembers the git commit its files
-- were last read at, so a unit a pulled commit removed can be told from a branch's view.
ALTER TABLE file_units ADD COLUMN state TEXT NOT NULL DEFAULT 'present';
ALTER TABLE file_workspaces ADD COLUMN head TEXT;
