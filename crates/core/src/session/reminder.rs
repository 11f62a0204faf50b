//! The save reminder: a session that has run for a while with nothing saved in its project
//! is reminded, at its next prompt, to save what it decided or found.
//!
//! It is due when both the session and the project's newest memory (any memory: stored by a
//! tool, extracted from a `*Remember*` line, a summary) are older than
//! `context.save_reminder_minutes` — so a fresh session is left alone, and a save quiets it for
//! as long again. `0` turns it off. The hook words the line for the agent (the tool's name
//! differs per installation); this module only decides.

use jiff::{SignedDuration, Timestamp};

use crate::session::model::Session;

/// Whether `session`'s next prompt gets the reminder, the project's newest memory having been
/// written at `last_save` (`None`: it has none), with reminders every `minutes` (0: never).
pub fn due(session: &Session, last_save: Option<Timestamp>, now: Timestamp, minutes: u32) -> bool {
    if minutes == 0 || session.ended_at.is_some() {
        return false;
    }
    let quiet = SignedDuration::from_mins(i64::from(minutes));
    let older = |at: Timestamp| now.duration_since(at) >= quiet;
    older(session.started_at) && last_save.is_none_or(older)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scope::ProjectName;
    use crate::session::model::SessionKey;

    fn session(started: Timestamp) -> Session {
        Session {
            key: SessionKey::new("claude-code", "s1").unwrap(),
            project: ProjectName::new("acme").unwrap(),
            cwd: None,
            started_at: started,
            last_seen_at: started,
            ended_at: None,
            first_prompt: None,
            summary: None,
            summary_by: None,
        }
    }

    #[test]
    fn due_once_both_the_session_and_the_last_save_are_older_than_the_interval() {
        let start: Timestamp = "2026-03-11T14:00:00Z".parse().unwrap();
        let at = |minutes: i64| start + SignedDuration::from_mins(minutes);
        let s = session(start);
        assert!(!due(&s, None, at(14), 15), "a young session is left alone");
        assert!(due(&s, None, at(15), 15), "nothing saved ever");
        assert!(!due(&s, Some(at(10)), at(20), 15), "saved 10 minutes ago");
        assert!(due(&s, Some(at(10)), at(25), 15), "saved 15 minutes ago");
        assert!(!due(&s, None, at(600), 0), "0 turns it off");
        let ended = Session {
            ended_at: Some(at(30)),
            ..s
        };
        assert!(!due(&ended, None, at(60), 15), "an ended session");
    }
}
