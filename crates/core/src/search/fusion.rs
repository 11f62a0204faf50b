//! Score fusion: each signal's ranking becomes scores from 0 to 1, and a memory's fused score is
//! the weighted sum of its scores over the signals — lexical's weighed, for a natural-language
//! query, by how much of the query the memory holds ([`HELD_FLOOR`]).
//!
//! Within one ranking (best first), raw scores are first made non-increasing (a score may not
//! exceed the one above it: the lexical signal ranks by coordination level before BM25, so its
//! raw scores can rise at a level's start), then min-max normalised over the ranking: the first
//! scores 1, the last 0, and the rest keep their proportions (each at least a thousandth below
//! the one above, so the signal's own order survives its ties). A memory a signal did not find gets
//! 0 from it. BM25, edit-distance similarity and cosine similarity live on unrelated scales;
//! normalising each within its own ranking puts them on one, and unlike reciprocal-rank fusion
//! it keeps how far apart a signal's candidates are: a clear lexical winner stays ahead of
//! something that merely appears in both lists, and a clear semantic match is not drowned by a
//! long lexical list of near-ties.
//!
//! Each signal ranks [`Fusion::candidates`] deep when signals are fused, so that the
//! normalisation sees the shape of a ranking below the page and a memory ranked a little low by
//! both still has a chance. The weights (`[search]`: lexical 0.6, semantic 0.4, fuzzy 0.3) and
//! the depth were chosen once on the LoCoMo dev conversations and checked on Cranfield (see
//! ARCHITECTURE.md, Retrieval); they are not per-query.
//!
//! After fusion the service adds boosts, in units of [`Fusion::first_place`] (the score of a
//! first place in a signal of weight 1), so that they reorder comparable hits but never
//! overrule a clear ranking:
//! - recency: `recency_weight × 0.5^(age / recency_half_life_days)`, by last update;
//! - importance: `importance_weight × (importance − 3) / 2`, from −w to +w;
//! - project: `project_weight` for a memory of the project the search is made from, so that
//!   among comparable hits that project's come first (0.2: on codemem's all-projects store,
//!   where the answer is always the asking project's, the first hit came from another project
//!   in a third of questions without it; a hit of another project still wins when it leads by
//!   more than a fifth of a first place — e.g. the first place of a signal over its fifth).
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
    /// How deep each signal ranks when more than one is fused.
    pub candidates: usize,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion { candidates: 30 }
    }
}

impl Fusion {
    /// The score of a first place in a signal of weight 1: the unit of the boosts.
    pub fn first_place(&self) -> f64 {
        1.0
    }

    /// Merges ranked lists (each best first) into one ranking, best first. `held` is, per
    /// memory, the share of a natural-language query's words it holds: when lexical's ranking
    /// is fused with another, it weighs lexical's vote (see [`HELD_FLOOR`]); a memory without
    /// an entry (a strict query's hit) keeps its whole vote.
    pub fn fuse(
        &self,
        rankings: Vec<(SignalKind, f64, Vec<SignalHit>)>,
        held: &HashMap<MemoryId, f64>,
    ) -> Vec<Fused> {
        let fusing = rankings.len() > 1;
        let mut fused: Vec<Fused> = Vec::new();
        let mut position: HashMap<MemoryId, usize> = HashMap::new();
        for (signal, weight, hits) in rankings {
            let normalised = normalised(&hits);
            for (index, (hit, score)) in hits.into_iter().zip(normalised).enumerate() {
                let share = match (signal, fusing) {
                    (SignalKind::Lexical, true) => held.get(&hit.id).copied(),
                    _ => None,
                };
                let score = match share {
                    Some(share) => score * (HELD_FLOOR + (1.0 - HELD_FLOOR) * share),
                    None => score,
                };
                let slot = *position.entry(hit.id).or_insert_with(|| {
                    fused.push(Fused {
                        id: hit.id,
                        score: 0.0,
                        signals: Vec::new(),
                    });
                    fused.len() - 1
                });
                let entry = &mut fused[slot];
                entry.score += weight * score;
                entry.signals.push(SignalScore {
                    signal,
                    rank: index + 1,
                    raw: hit.raw,
                    held: share,
                });
            }
        }
        // A stable sort keeps first-seen order among equal scores.
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
        fused
    }
}

/// The part of a lexical vote that counts whatever share of the query's words the memory holds,
/// when lexical is fused with another signal; the rest counts in proportion to that share. A
/// lexical first place holding one word of four then weighs 0.625 of a first place: it no longer
/// outvotes meaning's first choice on a question asked in other words, where the one or two
/// words a memory shares with it are the common ones ("use", "need", "first"). Chosen on the
/// development data (ARCHITECTURE.md, Retrieval): codemem, LoCoMo and Cranfield all gain at 0.5;
/// below it LoCoMo, whose answers often hold only a name from the question, loses.
pub const HELD_FLOOR: f64 = 0.5;

/// How much lower than the one above it each normalised score is at least: a signal's order is
/// kept even where its raw scores tie or rise (a new coordination level), so that only the
/// boosts, not chance, reorder such neighbours.
const RANK_STEP: f64 = 1e-3;

/// A ranking's raw scores made non-increasing, then mapped onto 1 (the first) … 0 (the last),
/// each at least [`RANK_STEP`] below the one above it. A ranking whose scores are all equal (one
/// hit, or ties) starts at 1 and steps down.
fn normalised(hits: &[SignalHit]) -> Vec<f64> {
    let mut floor = f64::INFINITY;
    let monotone: Vec<f64> = hits
        .iter()
        .map(|hit| {
            floor = floor.min(hit.raw);
            floor
        })
        .collect();
    let (Some(&top), Some(&bottom)) = (monotone.first(), monotone.last()) else {
        return Vec::new();
    };
    let span = top - bottom;
    let mut above = f64::INFINITY;
    monotone
        .into_iter()
        .map(|score| {
            let scaled = match span > 0.0 && span.is_finite() {
                true => (score - bottom) / span,
                false => 1.0,
            };
            above = scaled.min(above - RANK_STEP);
            above
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(pairs: &[(MemoryId, f64)]) -> Vec<SignalHit> {
        pairs
            .iter()
            .map(|&(id, raw)| SignalHit { id, raw })
            .collect()
    }

    fn ids<const N: usize>() -> [MemoryId; N] {
        std::array::from_fn(|_| MemoryId::generate())
    }

    #[test]
    fn a_single_signal_keeps_its_order_and_records_ranks() {
        let [a, b, c] = ids();
        // A rise in raw score (a new coordination level) does not reorder the ranking.
        let fused = Fusion::default().fuse(
            vec![(
                SignalKind::Lexical,
                1.0,
                scored(&[(a, 9.0), (b, 4.0), (c, 6.0)]),
            )],
            &HashMap::new(),
        );
        let order: Vec<_> = fused.iter().map(|f| f.id).collect();
        assert_eq!(order, [a, b, c]);
        assert_eq!(fused[2].signals[0].rank, 3);
        assert_eq!(fused[2].signals[0].raw, 6.0);
        assert_eq!(fused[0].score, 1.0);
        // b and c tie once c's rise is clamped: the step keeps b ahead.
        assert!((fused[1].score - 0.0).abs() < 1e-12);
        assert!((fused[2].score + RANK_STEP).abs() < 1e-12);
    }

    #[test]
    fn scores_keep_their_proportions_between_first_and_last() {
        let [a, b, c] = ids();
        let fused = Fusion::default().fuse(
            vec![(
                SignalKind::Semantic,
                0.5,
                scored(&[(a, 0.8), (b, 0.7), (c, 0.4)]),
            )],
            &HashMap::new(),
        );
        assert!((fused[1].score - 0.5 * 0.75).abs() < 1e-12);
        // One hit alone is a full first place; equal scores step down from it.
        let fused = Fusion::default().fuse(
            vec![(SignalKind::Fuzzy, 0.3, scored(&[(a, 0.2), (b, 0.2)]))],
            &HashMap::new(),
        );
        assert_eq!(fused[0].score, 0.3);
        assert_eq!(fused[1].id, b);
        assert!((fused[1].score - 0.3 * (1.0 - RANK_STEP)).abs() < 1e-12);
    }

    #[test]
    fn a_clear_winner_stays_ahead_of_a_memory_that_is_merely_in_both_lists() {
        let [winner, both, x, y] = ids();
        let fused = Fusion::default().fuse(
            vec![
                (
                    SignalKind::Lexical,
                    0.6,
                    scored(&[(winner, 20.0), (both, 8.0), (x, 7.5), (y, 7.0)]),
                ),
                (
                    SignalKind::Semantic,
                    0.4,
                    scored(&[(x, 0.62), (both, 0.58), (y, 0.30)]),
                ),
            ],
            &HashMap::new(),
        );
        assert_eq!(fused[0].id, winner);
        assert_eq!(fused[0].signals.len(), 1);
    }

    #[test]
    fn agreement_between_signals_outranks_one_signals_near_tie() {
        let [a, b, c] = ids();
        let fused = Fusion::default().fuse(
            vec![
                (
                    SignalKind::Lexical,
                    0.6,
                    scored(&[(a, 10.0), (b, 9.9), (c, 1.0)]),
                ),
                (SignalKind::Semantic, 0.4, scored(&[(b, 0.7), (c, 0.3)])),
            ],
            &HashMap::new(),
        );
        assert_eq!(fused[0].id, b);
        assert_eq!(fused[0].signals.len(), 2);
    }

    #[test]
    fn a_lexical_first_place_holding_little_of_the_query_yields_to_meanings_first_choice() {
        let [partial, meant, full, other] = ids();
        let rankings = |first: MemoryId| {
            vec![
                (
                    SignalKind::Lexical,
                    0.6,
                    scored(&[(first, 9.0), (other, 5.0), (meant, 1.0)]),
                ),
                (
                    SignalKind::Semantic,
                    0.4,
                    scored(&[(meant, 0.6), (other, 0.3), (first, 0.2)]),
                ),
            ]
        };
        let held = HashMap::from([(partial, 0.25), (full, 1.0), (meant, 0.25), (other, 0.5)]);
        // One word of four: 0.6 × 0.625 = 0.375 against meaning's 0.4.
        let fused = Fusion::default().fuse(rankings(partial), &held);
        assert_eq!(fused[0].id, meant, "{fused:?}");
        assert_eq!(fused[1].signals[0].held, Some(0.25));
        // Every word of the query: lexical's first place still leads.
        let fused = Fusion::default().fuse(rankings(full), &held);
        assert_eq!(fused[0].id, full, "{fused:?}");
        // Alone, lexical keeps its order whatever its hits hold.
        let alone = Fusion::default().fuse(rankings(partial).into_iter().take(1).collect(), &held);
        assert_eq!(alone[0].id, partial);
        assert_eq!(alone[0].signals[0].held, None);
    }
}
