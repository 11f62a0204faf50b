//! The lexical signal: BM25 over the store's full-text index.
//!
//! A strict query (explicit operators, or `--all`) is one boolean expression. A soft
//! (natural-language) query ranks by coordination level: memories matching every item first, then
//! memories matching all but one, all but two, and so on, each level ranked by BM25 — the more of
//! a question a memory answers, the higher it stands, which BM25's sum of word weights alone does
//! not ensure for short texts. Levels are used for queries of up to [`COORDINATION_ITEMS`] items;
//! a longer query (a pasted paragraph) goes from "every item" straight to "some items", where
//! BM25's weighting serves better than a count.
//!
//! Candidates below the first level come only from items matching at most [`RANKING_WINDOW`]
//! memories: a word found in most memories says little about any one of them, and letting it
//! generate candidates would make the backend score most of the store (full-text engines score
//! every match). Such words still count in the first level and alongside a rarer item.

use std::collections::HashSet;

use jiff::Timestamp;

use crate::error::Result;
use crate::id::MemoryId;
use crate::memory::MemoryFilter;
use crate::memory::SignalHit;
use crate::query::{Match, ParsedQuery};
use crate::search::{Signal, SignalInput, SignalKind, SignalRanking};
use crate::store::Store;

/// The most memories one expression is ranked over. Items matching more do not generate
/// second-tier candidates, and a word, prefix or union of them matching more is ranked among
/// its this-many most recently written matches only ([`window_for`]): this bounds the work of
/// any query, and in a memory store recent matches are the likelier answers. Below this many
/// matches (every benchmark collection but the synthetic scale corpus) ranking is exact BM25.
pub const RANKING_WINDOW: usize = 5_000;

/// The longest soft query ranked by coordination level. Up to this many items a level has at
/// most 20 combinations (6 choose 3), which keeps each level one small expression; past it,
/// partial matches are ranked by BM25 alone.
pub const COORDINATION_ITEMS: usize = 6;

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

    fn rank(&self, input: &SignalInput<'_>) -> Result<Option<SignalRanking>> {
        let (store, query) = (input.store, input.query);
        let depth = input.depth;
        let (hits, unknown_words) = match &query.parsed {
            ParsedQuery::Strict(expression) => (
                store.lexical(
                    expression,
                    input.filter,
                    input.now,
                    depth,
                    window_for(expression),
                )?,
                unknown(store, query.parsed.bare_terms())?,
            ),
            ParsedQuery::Soft { items, excluded } => {
                soft_hits(store, items, excluded, input.filter, input.now, depth)?
            }
        };
        Ok(Some(SignalRanking {
            kind: SignalKind::Lexical,
            hits,
            matched_words: query.parsed.positive_terms(),
            unknown_words,
        }))
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

/// The levels of a soft query: every item, then (while there is room) all but one, all but two,
/// …, then some; and the bare words no memory holds, learnt on the way (a memory matching every
/// item proves every word known).
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
    let mut ranking = Levels {
        hits: ranked(Match::All(items.to_vec()), depth)?,
        depth,
    };
    if ranking.full() {
        return Ok((ranking.hits, Vec::new()));
    }
    let cap = RANKING_WINDOW as u64;
    let mut counted = Vec::with_capacity(items.len());
    for item in items {
        counted.push((store.match_count(item, cap + 1)?, item.clone()));
    }
    let unknown_words = counted
        .iter()
        .filter(|(count, _)| *count == 0)
        .filter_map(|(_, item)| bare(item))
        .collect();
    let known: Vec<Item> = counted
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, item)| Item {
            expression: item.clone(),
            drives: *count <= cap,
        })
        .collect();
    if items.len() <= COORDINATION_ITEMS {
        for level in (2..items.len()).rev() {
            if let Some(expression) = coordination_level(&known, level) {
                ranking.extend(ranked(expression, ranking.wanted())?);
                if ranking.full() {
                    return Ok((ranking.hits, unknown_words));
                }
            }
        }
    }
    let mut drivers: Vec<Match> = known
        .iter()
        .filter(|item| item.drives)
        .map(|item| item.expression.clone())
        .collect();
    if drivers.is_empty() {
        let rarest = counted
            .iter()
            .min_by_key(|(count, _)| *count)
            .map(|(_, item)| item.clone())
            .expect("several items");
        drivers.push(rarest);
    }
    ranking.extend(ranked(Match::Any(drivers), ranking.wanted())?);
    ranking.hits.truncate(depth);
    Ok((ranking.hits, unknown_words))
}

/// A soft query's item that some memory holds; it `drives` when it matches few enough memories
/// to generate candidates.
struct Item {
    expression: Match,
    drives: bool,
}

/// The memories matching exactly-or-more `level` of the known items, as one expression: the union
/// of every `level`-item combination that holds a driving item. `None` when there is no such
/// combination.
fn coordination_level(known: &[Item], level: usize) -> Option<Match> {
    let mut combinations = Vec::new();
    let mut chosen = Vec::with_capacity(level);
    choose(known, level, 0, &mut chosen, &mut combinations);
    match combinations.is_empty() {
        true => None,
        false => Some(Match::Any(combinations)),
    }
}

/// Appends to `out` every combination of `level` items from `known[from..]` (after `chosen`)
/// that holds a driving item.
fn choose(
    known: &[Item],
    level: usize,
    from: usize,
    chosen: &mut Vec<usize>,
    out: &mut Vec<Match>,
) {
    if chosen.len() == level {
        if chosen.iter().any(|&i| known[i].drives) {
            out.push(Match::All(
                chosen
                    .iter()
                    .map(|&i| known[i].expression.clone())
                    .collect(),
            ));
        }
        return;
    }
    for next in from..known.len() {
        chosen.push(next);
        choose(known, level, next + 1, chosen, out);
        chosen.pop();
    }
}

/// Hits gathered level by level, each level's new memories after the ones before.
struct Levels {
    hits: Vec<SignalHit>,
    depth: usize,
}

impl Levels {
    fn full(&self) -> bool {
        self.hits.len() >= self.depth
    }

    /// How deep to rank the next level: it also returns the memories earlier levels found.
    fn wanted(&self) -> usize {
        self.depth + self.hits.len()
    }

    fn extend(&mut self, level: Vec<SignalHit>) {
        let seen: HashSet<MemoryId> = self.hits.iter().map(|hit| hit.id).collect();
        self.hits
            .extend(level.into_iter().filter(|hit| !seen.contains(&hit.id)));
    }
}

/// The share (0–1) of `terms` (a query's words) that `memory`'s title and text hold, each word
/// matched as snippets match it (equal, or one a prefix of the other from four letters, as the
/// index's stemming would). 1 when there are no terms.
pub fn share_held(memory: &crate::memory::model::Memory, terms: &[String]) -> f64 {
    if terms.is_empty() {
        return 1.0;
    }
    let mut held = crate::search::snippet::matched_in(&memory.content, terms);
    if let Some(title) = &memory.title {
        held.extend(crate::search::snippet::matched_in(title, terms));
        held.sort();
        held.dedup();
    }
    held.len() as f64 / terms.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::{Memory, Source};
    use crate::scope::Scope;

    #[test]
    fn the_share_held_counts_each_query_word_once_in_title_or_text() {
        let terms = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let mut memory = Memory::plain(
            "Use pnpm, never npm; deployments go through CI",
            Scope::Global,
            Source::Cli,
            Timestamp::UNIX_EPOCH,
        );
        assert_eq!(
            share_held(&memory, &terms(&["package", "manager", "pnpm"])),
            1.0 / 3.0
        );
        // A stem of four letters or more meets its longer forms, as the index's stemming does.
        assert_eq!(share_held(&memory, &terms(&["deploy", "pnpm"])), 1.0);
        assert_eq!(share_held(&memory, &terms(&["package"])), 0.0);
        memory.title = Some("Package manager".into());
        assert_eq!(
            share_held(&memory, &terms(&["package", "manager", "pnpm"])),
            1.0
        );
        assert_eq!(share_held(&memory, &[]), 1.0);
    }
}
