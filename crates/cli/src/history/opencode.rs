//! OpenCode's storage: one SQLite database, `<data dir>/opencode/opencode.db` (tables
//! `session`, `message`, `part`, each row's `data` JSON), opened read only while OpenCode may be
//! running. What cairn reads of it:
//! - sessions with no parent (a child session is a subagent's; its result reaches the parent
//!   as the result of the call that started it), with their `directory`;
//! - a user message's text parts (not synthetic ones: attached file contents) are its prompt;
//! - an assistant message's `tool` parts are calls with their outcome (`completed`, or `error`
//!   with its message), its text parts the turn's last message so far;
//! - a `compaction` part is a compaction.
//!
//! A row whose JSON cannot be read is counted and skipped.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use cairn_core::session::EventKind;
use jiff::Timestamp;
use rusqlite::{Connection, OpenFlags, params};
use serde_json::Value;

use super::{Call, Entry, Transcript, Turn};
use crate::hook::payload::json::text_of;

/// OpenCode's database, open read only.
pub struct Database {
    connection: Connection,
}

impl Database {
    /// The database at `path` (or `opencode.db` in the directory `path`).
    pub fn open(path: &Path) -> Result<Database> {
        let file = if path.is_dir() {
            path.join("opencode.db")
        } else {
            path.to_path_buf()
        };
        let connection = Connection::open_with_flags(
            &file,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open OpenCode's database {}", file.display()))?;
        connection.busy_timeout(Duration::from_secs(5))?;
        let tables: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
                 AND name IN ('session', 'message', 'part')",
                [],
                |row| row.get(0),
            )
            .with_context(|| format!("{} is not a database SQLite can read", file.display()))?;
        if tables != 3 {
            bail!(
                "{} is not OpenCode's database as cairn knows it (tables session, message and \
                 part); OpenCode 1.x keeps its sessions there",
                file.display()
            );
        }
        Ok(Database { connection })
    }

    /// Every top-level session's id, oldest first.
    pub fn sessions(&self) -> Result<Vec<String>> {
        let mut statement = self
            .connection
            .prepare("SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_created, id")?;
        let ids = statement
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(ids)
    }

    /// One session, read.
    pub fn read(&self, id: &str) -> Result<Transcript> {
        let directory: Option<String> = self
            .connection
            .query_row(
                "SELECT directory FROM session WHERE id = ?1",
                params![id],
                |row| row.get(0),
            )
            .with_context(|| format!("OpenCode session {id} could not be read"))?;
        let mut transcript = Transcript {
            session_id: id.to_string(),
            cwd: directory.filter(|d| !d.is_empty()).map(Into::into),
            ..Transcript::default()
        };
        let mut statement = self.connection.prepare(
            "SELECT m.id, m.time_created, m.data, p.id, p.time_created, p.data \
             FROM message m LEFT JOIN part p ON p.message_id = m.id \
             WHERE m.session_id = ?1 ORDER BY m.time_created, m.id, p.id",
        )?;
        let mut rows = statement.query(params![id])?;
        let mut turn = Turn::default();
        let mut role_of: Option<(String, String)> = None;
        while let Some(row) = rows.next()? {
            let message_id: String = row.get(0)?;
            let message_at: i64 = row.get(1)?;
            let message_data: String = row.get(2)?;
            let role = match &role_of {
                Some((id, role)) if *id == message_id => role.clone(),
                _ => {
                    let role = match serde_json::from_str::<Value>(&message_data) {
                        Ok(data) => data
                            .get("role")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        Err(_) => {
                            transcript.skipped += 1;
                            String::new()
                        }
                    };
                    role_of = Some((message_id.clone(), role.clone()));
                    role
                }
            };
            let Some(part_id) = row.get::<_, Option<String>>(3)? else {
                continue;
            };
            let part_at: i64 = row.get::<_, Option<i64>>(4)?.unwrap_or(message_at);
            let Ok(part) = serde_json::from_str::<Value>(&row.get::<_, String>(5)?) else {
                transcript.skipped += 1;
                continue;
            };
            let Ok(at) = Timestamp::from_millisecond(part_at) else {
                transcript.skipped += 1;
                continue;
            };
            let field = |key: &str| part.get(key).and_then(Value::as_str);
            match (role.as_str(), field("type")) {
                ("user", Some("text"))
                    if part.get("synthetic").and_then(Value::as_bool) != Some(true) =>
                {
                    let text = field("text").unwrap_or("").to_string();
                    if !text.trim().is_empty() {
                        turn.end(&mut transcript.entries);
                        transcript.entries.push(super::prompt(part_id, at, text));
                    }
                }
                ("assistant", Some("text")) => turn.said(&part_id, at, field("text").unwrap_or("")),
                ("assistant", Some("tool")) => {
                    if let Some(kind) = tool_event(&part) {
                        transcript.entries.push(Entry {
                            id: part_id,
                            at,
                            kind,
                        });
                    }
                }
                (_, Some("compaction")) => transcript.entries.push(Entry {
                    id: part_id,
                    at,
                    kind: EventKind::Compaction {
                        trigger: part
                            .get("auto")
                            .and_then(Value::as_bool)
                            .map(|auto| if auto { "auto" } else { "manual" }.to_string()),
                    },
                }),
                _ => {}
            }
        }
        turn.end(&mut transcript.entries);
        Ok(transcript)
    }
}

/// A tool part that finished: its use or its failure (one still running, or never run, is
/// nothing yet).
fn tool_event(part: &Value) -> Option<EventKind> {
    let state = part.get("state")?;
    let call = Call {
        tool: part
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("tool")
            .to_string(),
        input: state.get("input").cloned().unwrap_or(Value::Null),
    };
    let text = |key: &str| text_of(state.get(key).unwrap_or(&Value::Null));
    match state.get("status").and_then(Value::as_str)? {
        "completed" => Some(call.finished(Ok(text("output")))),
        "error" => Some(call.finished(Err(text("error")))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_messages_and_parts_are_read_and_a_broken_row_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let db = Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL,
                 time_created INTEGER NOT NULL);
             CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
                 time_created INTEGER NOT NULL, data TEXT NOT NULL);
             CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL,
                 session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL);
             INSERT INTO session VALUES ('ses_1', NULL, '/work/app', 1000),
                                        ('ses_child', 'ses_1', '/work/app', 1001);
             INSERT INTO message VALUES
                 ('msg_1', 'ses_1', 1000, '{\"role\":\"user\"}'),
                 ('msg_2', 'ses_1', 2000, '{\"role\":\"assistant\"}'),
                 ('msg_3', 'ses_1', 3000, '{\"role\":\"assistant\"}');
             INSERT INTO part VALUES
                 ('prt_1', 'msg_1', 'ses_1', 1000, '{\"type\":\"text\",\"text\":\"Fix the login\"}'),
                 ('prt_2', 'msg_1', 'ses_1', 1000, '{\"type\":\"text\",\"text\":\"<file>\",\"synthetic\":true}'),
                 ('prt_3', 'msg_2', 'ses_1', 2000, '{\"type\":\"tool\",\"tool\":\"edit\",\"state\":{\"status\":\"completed\",\"input\":{\"filePath\":\"src/login.ts\"},\"output\":\"ok\"}}'),
                 ('prt_4', 'msg_2', 'ses_1', 2001, '{\"type\":\"tool\",\"tool\":\"bash\",\"state\":{\"status\":\"error\",\"input\":{\"command\":\"npm test\"},\"error\":\"exit 1\"}}'),
                 ('prt_5', 'msg_2', 'ses_1', 2002, '{\"type\":\"tool\",\"tool\":\"bash\",\"state\":{\"status\":\"running\"}}'),
                 ('prt_6', 'msg_3', 'ses_1', 3000, '{\"type\":\"text\",\"te'),
                 ('prt_7', 'msg_3', 'ses_1', 3001, '{\"type\":\"text\",\"text\":\"Fixed.\\n*Remember*: login needs redis\"}');",
        )
        .unwrap();
        drop(db);
        let database = Database::open(dir.path()).unwrap();
        assert_eq!(
            database.sessions().unwrap(),
            ["ses_1"],
            "children are not sessions"
        );
        let t = database.read("ses_1").unwrap();
        assert_eq!(t.cwd.as_deref(), Some(Path::new("/work/app")));
        assert_eq!(t.skipped, 1);
        let kinds: Vec<(&str, &str)> = t
            .entries
            .iter()
            .map(|e| (e.id.as_str(), e.kind.name()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("prt_1", "prompt"),
                ("prt_3", "tool_use"),
                ("prt_4", "tool_failure"),
                ("stop:prt_7", "stop"),
            ]
        );
        match &t.entries[1].kind {
            EventKind::ToolUse { files, .. } => assert_eq!(files, &["src/login.ts"]),
            other => panic!("{other:?}"),
        }
        // Not OpenCode's database: said so.
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let refused = Database::open(&other).err().unwrap().to_string();
        assert!(refused.contains("not OpenCode's database"), "{refused}");
    }
}
