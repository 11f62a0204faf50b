//! What the doctor reports: findings, how bad each is, and what repairs it.

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something is wrong: data cannot be read, or answers are incomplete.
    Problem,
    /// It works, but needs attention soon (little disk left, a read-only store).
    Warning,
    /// Worth knowing; nothing is wrong (work still pending, a newer schema available).
    Note,
}

/// What `cairn doctor --repair` can do about a finding. Every repair rebuilds what is derived
/// from stored data, or copies what can be read into a new file; none changes what was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Repair {
    /// Rebuild the full-text indexes from their tables.
    RebuildFullText,
    /// Delete rows that point at something that no longer exists (vectors of gone memories).
    DeleteOrphans,
    /// Drop unusable vectors (of another size) and queue their memories for embedding again.
    RequeueEmbeddings,
    /// Build the vector index anew from the stored vectors.
    RebuildVectorIndex,
    /// Delete thumbnails; they are made again when next shown.
    RemoveThumbnails,
    /// Copy what can still be read of a damaged database into a new file beside it.
    RecoverDatabase,
}

impl Repair {
    /// The command that does this repair by hand.
    pub fn command(self) -> &'static str {
        match self {
            Repair::RebuildFullText | Repair::DeleteOrphans | Repair::RemoveThumbnails => {
                "cairn doctor --repair"
            }
            Repair::RequeueEmbeddings => "cairn doctor --repair (then any command embeds them)",
            Repair::RebuildVectorIndex => "cairn reindex --vector-index",
            Repair::RecoverDatabase => "cairn doctor --repair (recovers into a new file)",
        }
    }
}

/// One thing the doctor found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What was checked: `database`, `full_text`, `vectors`, `vector_index`, `images`, `files`,
    /// `queues`, `schema`, `disk`, `permissions`.
    pub check: &'static str,
    pub severity: Severity,
    /// What was found.
    pub found: String,
    /// What it means for the user.
    pub meaning: String,
    /// What `--repair` does about it, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<Repair>,
    /// The command that deals with it, when it is not `--repair` itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

impl Finding {
    pub fn new(
        check: &'static str,
        severity: Severity,
        found: impl Into<String>,
        meaning: impl Into<String>,
    ) -> Self {
        Finding {
            check,
            severity,
            found: found.into(),
            meaning: meaning.into(),
            repair: None,
            command: None,
        }
    }

    /// The vector index cannot be used (damaged, another store's, ahead of the database).
    pub fn vector_index_unusable(why: &str) -> Self {
        Finding::new(
            "vector_index",
            Severity::Problem,
            format!("the vector index cannot be used: {why}"),
            "searches by meaning scan every vector instead (slower, never wrong) until it is \
             rebuilt",
        )
        .repaired_by(Repair::RebuildVectorIndex)
    }

    /// The same finding, repaired by `repair`.
    pub fn repaired_by(mut self, repair: Repair) -> Self {
        self.command = Some(repair.command().to_string());
        self.repair = Some(repair);
        self
    }

    /// The same finding, dealt with by running `command`.
    pub fn handled_by(mut self, command: impl Into<String>) -> Self {
        self.command = Some(command.into());
        self
    }
}

/// What an examination found, and (after `--repair`) what was done.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthReport {
    /// Where the store is (a path or a URL without credentials).
    pub location: String,
    /// True for the quick examination (nothing read in proportion to the store's size).
    pub quick: bool,
    /// Every check that ran.
    pub checked: Vec<&'static str>,
    pub findings: Vec<Finding>,
    /// What `--repair` did, one line per repair.
    pub repaired: Vec<String>,
}

impl HealthReport {
    /// True when nothing needs attention (notes only).
    pub fn healthy(&self) -> bool {
        self.findings.iter().all(|f| f.severity == Severity::Note)
    }
}
