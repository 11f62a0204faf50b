//! The lines of an export, version 2: a [`Header`], then records tagged by `type`.
//!
//! ```text
//! {"format":"cairn-export","version":2,"cairn":"0.1.0","sessions":false,"counts":{"memories":2,…}}
//! {"type":"memory","id":"…","content":"…",…,"revisions":[…]}
//! {"type":"relation","id":"…","source":"…","target":"…","project":"acme","verdict":{…},…}
//! {"type":"slot","label":"pending_items","project":"acme","content":"…",…}
//! {"type":"slot_seeds","project":null,"labels":["persona","user_preferences"]}
//! {"type":"session","key":{"agent":"claude-code","id":"…"},"project":"acme",…}
//! {"type":"observation","session":{"agent":"claude-code","id":"…"},"event_id":"…",…}
//! ```
//!
//! Timestamps are RFC 3339 to the millisecond; `project` is null for global. The header carries
//! no time of its own, so exporting the same state twice gives the same bytes.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::memory::MemoryRecord;
use crate::relation::Relation;
use crate::scope::Scope;
use crate::session::{Observation, Session, SessionKey};
use crate::slot::{Slot, SlotLabel};

/// What the header's `format` says.
pub const FORMAT: &str = "cairn-export";
/// The format version this cairn writes; it reads this one and every older one.
pub const VERSION: u32 = 3;

/// The first line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// The cairn version that wrote the file.
    pub cairn: String,
    /// Whether sessions and observations were exported.
    pub sessions: bool,
    /// How many records of each kind follow.
    pub counts: Counts,
}

/// Records per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    pub memories: u64,
    pub relations: u64,
    pub slots: u64,
    pub slot_seeds: u64,
    pub sessions: u64,
    pub observations: u64,
}

/// The kinds of record an export holds, as the header and import reports name them, in order.
pub const KINDS: [&str; 6] = [
    "memories",
    "relations",
    "slots",
    "slot_seeds",
    "sessions",
    "observations",
];

impl Counts {
    /// Every kind with its name as the header spells it.
    pub fn named(&self) -> [(&'static str, u64); 6] {
        let counts = [
            self.memories,
            self.relations,
            self.slots,
            self.slot_seeds,
            self.sessions,
            self.observations,
        ];
        std::array::from_fn(|i| (KINDS[i], counts[i]))
    }
}

/// A slot as an export carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotRecord {
    pub label: SlotLabel,
    /// The project name, or null for a global slot.
    pub project: Scope,
    pub content: String,
    pub description: Option<String>,
    pub limit: usize,
    pub pinned: bool,
    pub read_only: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The lines reflection wrote, oldest first.
    #[serde(default)]
    pub reflected: Vec<String>,
}

impl From<Slot> for SlotRecord {
    fn from(slot: Slot) -> Self {
        SlotRecord {
            label: slot.label,
            project: slot.scope,
            content: slot.content,
            description: slot.description,
            limit: slot.limit,
            pinned: slot.pinned,
            read_only: slot.read_only,
            created_at: slot.created_at,
            updated_at: slot.updated_at,
            reflected: slot.reflected,
        }
    }
}

impl From<SlotRecord> for Slot {
    fn from(record: SlotRecord) -> Self {
        Slot {
            label: record.label,
            scope: record.project,
            content: record.content,
            description: record.description,
            limit: record.limit,
            pinned: record.pinned,
            read_only: record.read_only,
            created_at: record.created_at,
            updated_at: record.updated_at,
            reflected: record.reflected,
        }
    }
}

/// The default slots one scope was ever given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotSeedsRecord {
    /// The project name, or null for global.
    pub project: Scope,
    pub labels: Vec<SlotLabel>,
}

/// An observation and the session it belongs to (whose record comes first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservationRecord {
    pub session: SessionKey,
    #[serde(flatten)]
    pub observation: Observation,
}

/// One line after the header, as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Memory(MemoryRecord),
    Relation(Box<Relation>),
    Slot(SlotRecord),
    SlotSeeds(SlotSeedsRecord),
    Session(Session),
    Observation(ObservationRecord),
}
