//! [`Nearest`]: the best `depth` of a stream of scored candidates, kept in a bounded heap, for a
//! backend that ranks vectors by an exact scan (each candidate is looked at once; only `depth`
//! are ever held).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The `depth` highest-scoring candidates seen so far; among equal scores the smaller key wins
/// (a store's older row).
pub struct Nearest<K> {
    depth: usize,
    /// The worst kept candidate on top.
    kept: BinaryHeap<Reverse<Candidate<K>>>,
}

struct Candidate<K>(f32, K);

impl<K: Ord> PartialEq for Candidate<K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl<K: Ord> Eq for Candidate<K> {}
impl<K: Ord> PartialOrd for Candidate<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: Ord> Ord for Candidate<K> {
    /// Better is greater: a higher score, then a smaller key.
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

impl<K: Ord> Nearest<K> {
    pub fn new(depth: usize) -> Self {
        Nearest {
            depth,
            kept: BinaryHeap::with_capacity(depth.saturating_add(1).min(1 << 16)),
        }
    }

    /// Looks at one candidate.
    pub fn offer(&mut self, score: f32, key: K) {
        if self.depth == 0 {
            return;
        }
        let candidate = Candidate(score, key);
        if self.kept.len() < self.depth {
            self.kept.push(Reverse(candidate));
        } else if self
            .kept
            .peek()
            .is_some_and(|Reverse(worst)| candidate > *worst)
        {
            self.kept.pop();
            self.kept.push(Reverse(candidate));
        }
    }

    /// The kept candidates, best first.
    pub fn into_best(self) -> Vec<(f32, K)> {
        let mut best: Vec<Candidate<K>> = self.kept.into_iter().map(|Reverse(c)| c).collect();
        best.sort_by(|a, b| b.cmp(a));
        best.into_iter()
            .map(|Candidate(score, key)| (score, key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_depth_best_first_and_ties_go_to_the_smaller_key() {
        let mut nearest = Nearest::new(3);
        for (score, key) in [(0.5, 7), (0.9, 3), (0.1, 1), (0.9, 2), (0.7, 9), (0.2, 4)] {
            nearest.offer(score, key);
        }
        assert_eq!(nearest.into_best(), [(0.9, 2), (0.9, 3), (0.7, 9)]);
        let mut none = Nearest::new(0);
        none.offer(1.0, 1);
        assert!(none.into_best().is_empty());
    }
}
