//! What a backend must provide for agent sessions: [`SessionStore`] (reads) and [`SessionTx`]
//! (writes, inside one transaction).
//!
//! A session is keyed by agent and the agent's own id; its observations are kept in order with
//! their own full-text index, and an event id is stored once, so a replayed event writes
//! nothing. Retention is the service's: it passes the cutoff in each filter.

use jiff::Timestamp;

use crate::error::Result;
use crate::query::Match;
use crate::session::{
    Observation, ObservationFilter, ObservationHit, Session, SessionFilter, SessionKey,
};

/// The read side of session storage.
pub trait SessionStore: Send + Sync {
    /// A session by key.
    fn session(&self, key: &SessionKey) -> Result<Option<Session>>;

    /// Sessions under the filter, the latest active first.
    fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>>;

    /// A session's observations at or after `since`, oldest first.
    fn observations(&self, key: &SessionKey, since: Timestamp) -> Result<Vec<Observation>>;

    /// The best `limit` observations under the filter whose text matches `expression`, best
    /// first, with BM25 scores (higher is better).
    fn search_observations(
        &self,
        expression: &Match,
        filter: &ObservationFilter,
        limit: usize,
    ) -> Result<Vec<ObservationHit>>;
}

/// The write side of session storage, inside one transaction.
pub trait SessionTx {
    /// A session by key.
    fn session(&mut self, key: &SessionKey) -> Result<Option<Session>>;

    /// Adds a session, or overwrites the stored one with the same key.
    fn put_session(&mut self, session: &Session) -> Result<()>;

    /// Adds an observation to a stored session (full-text index included); `false`, and
    /// nothing written, when an observation with its event id is already stored.
    fn add_observation(&mut self, key: &SessionKey, observation: &Observation) -> Result<bool>;

    /// A session's observations, oldest first.
    fn observations(&mut self, key: &SessionKey) -> Result<Vec<Observation>>;

    /// Deletes every observation made before `before`; returns how many.
    fn prune_observations(&mut self, before: Timestamp) -> Result<u64>;
}
