//! The spool: where a hook event waits when the store is busy, so none is ever lost.
//!
//! It is a directory beside the database (`cairn.spool/` next to `cairn.db`) holding one JSON
//! file per event, named by the event id, which starts with the time in nanoseconds: sorting
//! the names sorts the events by when the agent fired them. A file is written under a temporary
//! name and renamed, so a reader never sees half an event.
//!
//! Any later command drains it: every spooled event is recorded, oldest first, in one
//! transaction, and only then are the files removed. Two processes draining at once may both
//! record an event, but the store keeps each event id once, so nothing is doubled; a crash
//! between commit and removal is repaired the same way by the next drain. While the spool holds
//! anything, new hook events join it rather than jump the queue.

use std::path::{Path, PathBuf};

use anyhow::Result;
use cairn_core::api::Api;
use cairn_core::session::AgentEvent;

/// An event that could be neither recorded nor spooled.
#[derive(Debug)]
pub struct NotSpooled {
    spool: PathBuf,
    error: std::io::Error,
}

impl std::fmt::Display for NotSpooled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.error.kind() {
            std::io::ErrorKind::StorageFull => "the disk is full".to_string(),
            _ => self.error.to_string(),
        };
        write!(
            f,
            "the event could not be spooled in {} either ({why}); it is lost",
            self.spool.display()
        )
    }
}

impl std::error::Error for NotSpooled {}

/// Events recorded per transaction when draining.
const BATCH: usize = 500;

pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    /// The spool of the database at `db`.
    pub fn beside(db: &Path) -> Self {
        Spool {
            dir: db.with_extension("spool"),
        }
    }

    /// Spooled events' files, oldest first.
    fn files(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
    }

    pub fn is_empty(&self) -> bool {
        self.files().is_empty()
    }

    /// Whether `event` waits in the spool.
    pub fn is_queued(&self, event: &AgentEvent) -> bool {
        self.file_of(event).exists()
    }

    fn file_of(&self, event: &AgentEvent) -> PathBuf {
        self.dir.join(format!("{}.json", event.event_id))
    }

    /// Keeps `event` until a drain records it. On failure (a full disk) nothing is left
    /// behind and the error is a [`NotSpooled`]: the event is lost, and the hook says so.
    pub fn push(&self, event: &AgentEvent) -> Result<()> {
        let file = self.file_of(event);
        let partial = file.with_extension("partial");
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&partial, serde_json::to_vec(event)?))
            .and_then(|()| std::fs::rename(&partial, &file));
        written.map_err(|error| {
            let _ = std::fs::remove_file(&partial);
            anyhow::Error::new(NotSpooled {
                spool: self.dir.clone(),
                error,
            })
        })
    }

    /// Records every spooled event, oldest first; returns how many. A file that is not an event
    /// is moved aside to `rejected/` (and reported), never retried forever.
    pub fn drain(&self, api: &Api) -> cairn_core::Result<usize> {
        let mut drained = 0;
        loop {
            let files = self.files();
            if files.is_empty() {
                return Ok(drained);
            }
            let batch: Vec<PathBuf> = files.into_iter().take(BATCH).collect();
            let mut events = Vec::with_capacity(batch.len());
            let mut read = Vec::with_capacity(batch.len());
            for file in batch {
                let Ok(bytes) = std::fs::read(&file) else {
                    continue; // another drain took it
                };
                match serde_json::from_slice::<AgentEvent>(&bytes) {
                    Ok(event) => {
                        events.push(event);
                        read.push(file);
                    }
                    Err(error) => self.reject(&file, &error.to_string()),
                }
            }
            api.record_events(&events)?;
            drained += events.len();
            for file in read {
                let _ = std::fs::remove_file(file);
            }
        }
    }

    fn reject(&self, file: &Path, why: &str) {
        let rejected = self.dir.join("rejected");
        let _ = std::fs::create_dir_all(&rejected);
        if let Some(name) = file.file_name() {
            let _ = std::fs::rename(file, rejected.join(name));
        }
        tracing::warn!(file = %file.display(), why, "a spooled event was unreadable");
    }
}

#[cfg(test)]
mod tests {
    use cairn_core::ApiParts;
    use cairn_core::ProjectName;
    use cairn_core::config::Config;
    use cairn_core::session::{EventKind, SessionKey};
    use cairn_store_sqlite::SqliteStore;
    use jiff::{Span, Timestamp};

    use super::*;

    /// Prompt `n` of a session that started a minute before `start`.
    fn prompt(start: Timestamp, n: i64) -> AgentEvent {
        let at = start - Span::new().seconds(60) + Span::new().seconds(n);
        AgentEvent {
            event_id: format!("{:020}-0000000001-0000", at.as_nanosecond()),
            session: SessionKey::new("claude-code", "s").unwrap(),
            project: ProjectName::new("acme").unwrap(),
            cwd: None,
            at,
            kind: EventKind::Prompt {
                text: format!("prompt {n}"),
            },
        }
    }

    #[test]
    fn a_drain_records_events_oldest_first_and_sets_aside_what_is_not_an_event() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("cairn.db");
        let spool = Spool::beside(&db);
        // Spooled out of order; the names sort them by time.
        let start = Timestamp::now();
        for n in [2, 0, 1] {
            spool.push(&prompt(start, n)).unwrap();
        }
        assert!(spool.is_queued(&prompt(start, 1)));
        std::fs::write(dir.path().join("cairn.spool/0-garbage.json"), "{oops").unwrap();
        let api = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&db).unwrap())),
            &Config::default(),
        );
        assert_eq!(spool.drain(&api).unwrap(), 3);
        assert!(spool.is_empty());
        assert!(
            dir.path()
                .join("cairn.spool/rejected/0-garbage.json")
                .exists()
        );
        let hook = cairn_core::api::Caller::local(cairn_core::Source::Hook);
        let observations = || api.session(&hook, "claude-code", "s").unwrap().1;
        let texts: Vec<String> = observations()
            .into_iter()
            .map(|o| o.input.unwrap())
            .collect();
        assert_eq!(texts, ["prompt 0", "prompt 1", "prompt 2"]);
        // Replaying a drained event (a crash between commit and removal) records nothing new.
        spool.push(&prompt(start, 1)).unwrap();
        assert_eq!(spool.drain(&api).unwrap(), 1);
        assert_eq!(observations().len(), 3);
    }
}
