//! The lexical signal: BM25 over the store's full-text index.
//!
//! A strict query (explicit operators, or `--all`) is one boolean expression. A soft
//! (natural-language) query runs in two tiers: memories matching every item, ranked by BM25,
//! then — if that leaves room — memories matching some items. Candidates for the second tier come
//! only from items matching at most [`RANKING_WINDOW`] memories: a word found in most memories
//! says little about any one of them, and letting it generate candidates would make the backend
//! score most of the store (full-text engines score every match). Such words still count in the
//! first tier.

use std::collections::HashSet;

use jiff::Timestamp;

use crate::error::Result;
use crate::id::MemoryId;
use crate::search::{
    Match, ParsedQuery, SearchQuery, Signal, SignalHit, SignalKind, SignalRanking,
};
use crate::store::{MemoryFilter, Store};

/// The most memories one expression is ranked over. Items matching more do not generate
/// second-tier candidates, and a word, prefix or union of them matching more is ranked among
/// its this-many most recently written matches only ([`window_for`]): this bounds the work of
/// any query, and in a memory store recent matches are the likelier answers. Below this many
/// matches (every benchmark collection but the synthetic scale corpus) ranking is exact BM25.
pub const RANKING_WINDOW: usize = 5_000;

/// The ranking window for an expression: [`RANKING_WINDOW`] for words, prefixes and their
/// unions, which can match much of a store and whose newest matches the backend finds without
/// scoring; unbounded for phrases, intersections and exclusions, which are narrow by nature and
/// whose matches cost as much to find as to rank.
pub fn window_for(expression: &Match) -> usize {
    let simple = |m: &Match| matches!(m, Match::Term(_) | Match::Prefix(_));
    match expression {
        Match::Any(items) if items.iter().all(simple) => RANKING_WINDOW,
        m if simple(m) => RANKING_WINDOW,
        _ => usize::MAX,
    }
}

/// BM25 over the store's full-text index.
pub struct LexicalSignal;

impl Signal for LexicalSignal {
    fn kind(&self) -> SignalKind {
        SignalKind::Lexical
    }

    fn rank(
        &self,
        store: &dyn Store,
        query: &SearchQuery,
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<SignalRanking> {
        let (hits, unknown_words) = match &query.parsed {
            ParsedQuery::Strict(expression) => (
                store.lexical(expression, filter, now, depth, window_for(expression))?,
                unknown(store, query.parsed.bare_terms())?,
            ),
            ParsedQuery::Soft { items, excluded } => {
                soft_hits(store, items, excluded, filter, now, depth)?
            }
        };
        Ok(SignalRanking {
            hits,
            matched_words: query.parsed.positive_terms(),
            unknown_words,
        })
    }
}

/// Those of `words` that no indexed memory holds.
fn unknown(store: &dyn Store, words: Vec<String>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for word in words {
        if store.match_count(&Match::Term(word.clone()), 1)? == 0 {
            out.push(word);
        }
    }
    Ok(out)
}

/// The two tiers of a soft query: every item, then (if there is room) some; and the bare words
/// no memory holds, learnt on the way (a memory matching every item proves every word known).
fn soft_hits(
    store: &dyn Store,
    items: &[Match],
    excluded: &[Match],
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
) -> Result<(Vec<SignalHit>, Vec<String>)> {
    let bare = |item: &Match| match item {
        Match::Term(word) => Some(word.clone()),
        _ => None,
    };
    let ranked = |base: Match, depth: usize| {
        let expression = match excluded.is_empty() {
            true => base,
            false => Match::Without {
                base: Box::new(base),
                excluded: excluded.to_vec(),
            },
        };
        store.lexical(&expression, filter, now, depth, window_for(&expression))
    };
    if let [single] = items {
        let hits = ranked(single.clone(), depth)?;
        let unknown_words = match hits.is_empty() {
            true => unknown(store, bare(single).into_iter().collect())?,
            false => Vec::new(),
        };
        return Ok((hits, unknown_words));
    }
    let mut hits = ranked(Match::All(items.to_vec()), depth)?;
    if hits.len() >= depth {
        return Ok((hits, Vec::new()));
    }
    let cap = RANKING_WINDOW as u64;
    let mut counted = Vec::with_capacity(items.len());
    for item in items {
        counted.push((store.match_count(item, cap + 1)?, item));
    }
    let unknown_words = counted
        .iter()
        .filter(|(count, _)| *count == 0)
        .filter_map(|(_, item)| bare(item))
        .collect();
    let mut drivers: Vec<Match> = counted
        .iter()
        .filter(|(count, _)| *count <= cap)
        .map(|(_, item)| (*item).clone())
        .collect();
    if drivers.is_empty() {
        let (_, rarest) = counted
            .iter()
            .min_by_key(|(count, _)| *count)
            .expect("several items");
        drivers.push((*rarest).clone());
    }
    let partial = ranked(Match::Any(drivers), depth + hits.len())?;
    let seen: HashSet<MemoryId> = hits.iter().map(|hit| hit.id).collect();
    hits.extend(partial.into_iter().filter(|hit| !seen.contains(&hit.id)));
    hits.truncate(depth);
    Ok((hits, unknown_words))
}
