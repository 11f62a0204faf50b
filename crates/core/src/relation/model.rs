//! What a relation is: two memories of one scope, the newer (`source`) and the older
//! (`target`), and what an agent or person said about them.
//!
//! A relation is born *pending* — found by candidate detection when the source was written
//! (`score` says how alike the two looked) — or judged at once (`memory_compare`). A
//! [`Verdict`] names the [`RelationKind`], why, on what evidence, how sure, and who said so
//! ([`Actor`]); a new verdict replaces the current one and the earlier one moves to `history`.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::id::{MemoryId, RelationId};
use crate::scope::Scope;

/// What the newer memory of a pair is to the older one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    /// About the same thing; nothing to settle.
    Related,
    /// Both hold at once.
    Compatible,
    /// Both hold, each in its own scope (a branch, a service, an environment).
    Scoped,
    /// They cannot both hold, and nobody has said which does.
    ConflictsWith,
    /// The newer one replaces the older one, which is kept as history.
    Supersedes,
    /// A candidate that turned out unrelated: dismissed.
    NotConflict,
}

impl RelationKind {
    pub const ALL: [RelationKind; 6] = [
        RelationKind::Related,
        RelationKind::Compatible,
        RelationKind::Scoped,
        RelationKind::ConflictsWith,
        RelationKind::Supersedes,
        RelationKind::NotConflict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Related => "related",
            RelationKind::Compatible => "compatible",
            RelationKind::Scoped => "scoped",
            RelationKind::ConflictsWith => "conflicts_with",
            RelationKind::Supersedes => "supersedes",
            RelationKind::NotConflict => "not_conflict",
        }
    }
}

impl fmt::Display for RelationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for RelationKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let wanted = s.trim().to_ascii_lowercase().replace('-', "_");
        RelationKind::ALL
            .into_iter()
            .find(|k| k.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<_> = RelationKind::ALL.iter().map(|k| k.as_str()).collect();
                Error::invalid(
                    "relation",
                    format!(
                        "unknown relation '{s}'; expected one of: {}",
                        names.join(", ")
                    ),
                )
            })
    }
}

/// Whether a relation still waits for a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RelationStatus {
    Pending,
    Judged,
}

impl RelationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RelationStatus::Pending => "pending",
            RelationStatus::Judged => "judged",
        }
    }
}

impl FromStr for RelationStatus {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pending" => Ok(RelationStatus::Pending),
            "judged" => Ok(RelationStatus::Judged),
            _ => Err(Error::invalid(
                "status",
                format!("unknown status '{s}'; expected pending or judged"),
            )),
        }
    }
}

/// Who gave a verdict.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ActorKind {
    #[default]
    Agent,
    User,
    System,
}

impl ActorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::Agent => "agent",
            ActorKind::User => "user",
            ActorKind::System => "system",
        }
    }
}

/// The provenance of a verdict: what kind of actor, which one, on which model, in which session.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Actor {
    pub kind: ActorKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl Actor {
    /// What makes two verdicts "the same actor's" (for `compare`'s one row per pair and actor):
    /// its kind and name.
    pub fn key(&self) -> String {
        format!(
            "{}:{}",
            self.kind.as_str(),
            self.name.as_deref().unwrap_or("")
        )
    }
}

/// What an actor said about a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub relation: RelationKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// 0–1, clamped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    pub actor: Actor,
    pub judged_at: Timestamp,
}

impl Verdict {
    /// True when two verdicts say the same thing (their times aside).
    pub fn same_as(&self, other: &Verdict) -> bool {
        self.relation == other.relation
            && self.reason == other.reason
            && self.evidence == other.evidence
            && self.confidence == other.confidence
            && self.actor == other.actor
    }
}

/// A relation between two memories of one scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    /// The judgment id.
    pub id: RelationId,
    /// The newer memory (the one whose write found the pair, or the first of a comparison).
    pub source: MemoryId,
    /// The older memory.
    pub target: MemoryId,
    #[serde(rename = "project")]
    pub scope: Scope,
    /// How alike detection found the pair (0–1); `None` for a pair compared directly.
    pub score: Option<f64>,
    /// The current verdict; `None` while pending.
    pub verdict: Option<Verdict>,
    /// Earlier verdicts, oldest first.
    pub history: Vec<Verdict>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Relation {
    /// A new pending relation at `now`: found by detection with its `score`, or (`None`) about
    /// to be judged directly.
    pub fn pending(
        source: MemoryId,
        target: MemoryId,
        scope: Scope,
        score: Option<f64>,
        now: Timestamp,
    ) -> Self {
        Relation {
            id: RelationId::generate(),
            source,
            target,
            scope,
            score,
            verdict: None,
            history: Vec::new(),
            created_at: now,
            updated_at: now,
        }
    }

    pub fn status(&self) -> RelationStatus {
        match self.verdict {
            None => RelationStatus::Pending,
            Some(_) => RelationStatus::Judged,
        }
    }

    /// The current relation, `None` while pending.
    pub fn kind(&self) -> Option<RelationKind> {
        self.verdict.as_ref().map(|v| v.relation)
    }

    /// The memory across the pair from `id`.
    pub fn other(&self, id: &MemoryId) -> MemoryId {
        if self.source == *id {
            self.target
        } else {
            self.source
        }
    }

    /// True when the relation joins `a` and `b`, in either direction.
    pub fn joins(&self, a: &MemoryId, b: &MemoryId) -> bool {
        (self.source == *a && self.target == *b) || (self.source == *b && self.target == *a)
    }

    /// Gives the relation `verdict`, keeping the current one (if any) in the history.
    pub fn judge(&mut self, verdict: Verdict) {
        self.updated_at = verdict.judged_at;
        if let Some(previous) = self.verdict.replace(verdict) {
            self.history.push(previous);
        }
    }
}
