//! Observations as a session's working notes: read within retention, searched with the memory
//! query language, pruned once past `sessions.retention_days`.

use jiff::{SignedDuration, Timestamp};

use crate::error::Result;
use crate::query::{Match, ParsedQuery, SearchQuery};
use crate::scope::ProjectName;
use crate::session::model::{Observation, ObservationFilter, ObservationHit, SessionKey};
use crate::session::recording::Sessions;
use crate::store::in_transaction;

impl Sessions<'_> {
    /// The oldest time an observation may have and still be visible.
    pub fn observation_cutoff(&self) -> Timestamp {
        let days = i64::from(self.config.retention_days);
        self.now_ts()
            .checked_sub(SignedDuration::from_hours(days * 24))
            .unwrap_or(Timestamp::MIN)
    }

    /// A session's visible observations (within retention), oldest first.
    pub fn observations(&self, key: &SessionKey) -> Result<Vec<Observation>> {
        self.store.observations(key, self.observation_cutoff())
    }

    /// Observations whose text matches `query` (the memory query language), within retention,
    /// best first.
    pub fn search_observations(
        &self,
        query: &str,
        project: Option<ProjectName>,
        session: Option<SessionKey>,
        limit: usize,
    ) -> Result<Vec<ObservationHit>> {
        crate::memory::validate::page(limit, 0)?;
        let filter = ObservationFilter {
            project,
            session,
            since: self.observation_cutoff(),
            kinds: Vec::new(),
        };
        // A plain query ranks observations holding every word first, then those holding some.
        let expressions = match SearchQuery::parse(query, false)?.parsed {
            ParsedQuery::Strict(expression) => vec![expression],
            ParsedQuery::Soft { items, excluded } => [Match::All(items.clone()), Match::Any(items)]
                .into_iter()
                .map(|base| match excluded.is_empty() {
                    true => base,
                    false => Match::Without {
                        base: Box::new(base),
                        excluded: excluded.clone(),
                    },
                })
                .collect(),
        };
        let mut hits: Vec<ObservationHit> = Vec::new();
        for expression in expressions {
            if hits.len() >= limit {
                break;
            }
            for hit in self
                .store
                .search_observations(&expression, &filter, limit)?
            {
                let seen = hits
                    .iter()
                    .any(|h| h.observation.event_id == hit.observation.event_id);
                if !seen && hits.len() < limit {
                    hits.push(hit);
                }
            }
        }
        Ok(hits)
    }

    /// Deletes observations older than the retention; returns how many.
    pub fn prune_observations(&self) -> Result<u64> {
        let cutoff = self.observation_cutoff();
        in_transaction(self.store, |tx| tx.prune_observations(cutoff))
    }
}
