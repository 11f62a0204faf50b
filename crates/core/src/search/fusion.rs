//! Reciprocal-rank fusion: merging independent rankings without calibrating their scores.
//!
//! BM25 scores, edit-distance similarities and cosine similarities live on unrelated scales, so
//! fusion uses only ranks: a memory at rank `r` in a signal earns `weight / (k + r)` from it, and
//! its fused score is the sum over signals. `k` (60, the value from the original RRF paper)
//! damps the head so one signal's top result cannot drown agreement between the others. Ties keep
//! the order of the first signal that ranked them.
//!
//! After fusion the service adds two small boosts, in units of one first-place vote
//! (`1 / (k + 1)`), so that they reorder near-ties but never overrule a clear ranking:
//! - recency: `recency_weight × 0.5^(age / recency_half_life_days)`, by last update;
//! - importance: `importance_weight × (importance − 3) / 2`, from −w to +w.
//!
//! All weights live in the `[search]` config section.

use std::collections::HashMap;

use crate::id::MemoryId;
use crate::memory::SignalHit;
use crate::search::{SignalKind, SignalScore};

/// A fused candidate before it is loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub id: MemoryId,
    pub score: f64,
    pub signals: Vec<SignalScore>,
}

/// Fusion parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Fusion {
    pub k: f64,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion { k: 60.0 }
    }
}

impl Fusion {
    /// The value of one first-place vote, the unit of the boosts.
    pub fn first_place(&self) -> f64 {
        1.0 / (self.k + 1.0)
    }

    /// Merges ranked lists (each best first) into one ranking, best first.
    pub fn fuse(&self, rankings: Vec<(SignalKind, f64, Vec<SignalHit>)>) -> Vec<Fused> {
        let mut fused: Vec<Fused> = Vec::new();
        let mut position: HashMap<MemoryId, usize> = HashMap::new();
        for (signal, weight, hits) in rankings {
            for (index, hit) in hits.into_iter().enumerate() {
                let rank = index + 1;
                let slot = *position.entry(hit.id).or_insert_with(|| {
                    fused.push(Fused {
                        id: hit.id,
                        score: 0.0,
                        signals: Vec::new(),
                    });
                    fused.len() - 1
                });
                let entry = &mut fused[slot];
                entry.score += weight / (self.k + rank as f64);
                entry.signals.push(SignalScore {
                    signal,
                    rank,
                    raw: hit.raw,
                });
            }
        }
        // A stable sort keeps first-seen order among equal scores.
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
        fused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(ids: &[MemoryId]) -> Vec<SignalHit> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| SignalHit {
                id: *id,
                raw: 10.0 - i as f64,
            })
            .collect()
    }

    #[test]
    fn a_single_signal_keeps_its_order_and_records_ranks() {
        let ids: Vec<_> = (0..3).map(|_| MemoryId::generate()).collect();
        let fused = Fusion::default().fuse(vec![(SignalKind::Lexical, 1.0, hits(&ids))]);
        let order: Vec<_> = fused.iter().map(|f| f.id).collect();
        assert_eq!(order, ids);
        assert_eq!(fused[2].signals[0].rank, 3);
        assert!((fused[0].score - 1.0 / 61.0).abs() < 1e-12);
    }

    #[test]
    fn agreement_between_signals_outranks_one_signals_favourite() {
        let [a, b, c] = [
            MemoryId::generate(),
            MemoryId::generate(),
            MemoryId::generate(),
        ];
        let fused = Fusion::default().fuse(vec![
            (SignalKind::Lexical, 1.0, hits(&[a, b, c])),
            (SignalKind::Lexical, 1.0, hits(&[c, b, a])),
            (SignalKind::Lexical, 1.0, hits(&[b])),
        ]);
        assert_eq!(fused[0].id, b);
        assert_eq!(fused[0].signals.len(), 3);
    }
}
