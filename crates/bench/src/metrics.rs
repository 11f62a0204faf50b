//! Retrieval metrics over ranked lists of document keys.
//!
//! Definitions (one query; averaged over queries by [`Summary`]):
//! - recall_any@k: 1 if any relevant document is in the top k, else 0;
//! - fractional recall@k: the share of the relevant documents found in the top k;
//! - MRR: 1 / rank of the first relevant document (0 if none is returned);
//! - nDCG@10: DCG of the top 10 with graded gains, divided by the ideal DCG;
//! - average precision (MAP when averaged): mean of precision at each relevant hit, over all
//!   relevant documents.

use std::collections::HashMap;

use serde::Serialize;

/// The judged documents of one query: key → gain (> 0 means relevant).
pub type Judgments = HashMap<String, f64>;

/// Scores of one query.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct QueryScores {
    pub recall_any_1: f64,
    pub recall_any_5: f64,
    pub recall_any_10: f64,
    pub recall_10: f64,
    pub recall_100: f64,
    pub mrr: f64,
    pub ndcg_10: f64,
    pub average_precision: f64,
}

pub fn score(ranked: &[String], judged: &Judgments) -> QueryScores {
    let relevant = judged.values().filter(|g| **g > 0.0).count();
    if relevant == 0 {
        return QueryScores::default();
    }
    let is_hit = |key: &String| judged.get(key).is_some_and(|g| *g > 0.0);
    let hits_in = |k: usize| ranked.iter().take(k).filter(|key| is_hit(key)).count();
    let any = |k: usize| if hits_in(k) > 0 { 1.0 } else { 0.0 };
    let first = ranked.iter().position(is_hit);
    let mut found = 0;
    let mut precision_sum = 0.0;
    for (index, key) in ranked.iter().enumerate() {
        if is_hit(key) {
            found += 1;
            precision_sum += found as f64 / (index + 1) as f64;
        }
    }
    let dcg = |gains: &mut dyn Iterator<Item = f64>| {
        gains
            .take(10)
            .enumerate()
            .map(|(i, g)| g / ((i + 2) as f64).log2())
            .sum::<f64>()
    };
    let actual = dcg(&mut ranked
        .iter()
        .map(|key| judged.get(key).copied().unwrap_or(0.0).max(0.0)));
    let mut ideal_gains: Vec<f64> = judged.values().copied().filter(|g| *g > 0.0).collect();
    ideal_gains.sort_by(|a, b| b.total_cmp(a));
    let ideal = dcg(&mut ideal_gains.into_iter());
    QueryScores {
        recall_any_1: any(1),
        recall_any_5: any(5),
        recall_any_10: any(10),
        recall_10: hits_in(10) as f64 / relevant as f64,
        recall_100: hits_in(100) as f64 / relevant as f64,
        mrr: first.map_or(0.0, |rank| 1.0 / (rank + 1) as f64),
        ndcg_10: if ideal > 0.0 { actual / ideal } else { 0.0 },
        average_precision: precision_sum / relevant as f64,
    }
}

/// Means over a group of queries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub queries: usize,
    #[serde(flatten)]
    pub mean: QueryScores,
}

impl Summary {
    pub fn of(scores: &[QueryScores]) -> Self {
        let n = scores.len().max(1) as f64;
        let mean = |f: fn(&QueryScores) -> f64| scores.iter().map(f).sum::<f64>() / n;
        Summary {
            queries: scores.len(),
            mean: QueryScores {
                recall_any_1: mean(|s| s.recall_any_1),
                recall_any_5: mean(|s| s.recall_any_5),
                recall_any_10: mean(|s| s.recall_any_10),
                recall_10: mean(|s| s.recall_10),
                recall_100: mean(|s| s.recall_100),
                mrr: mean(|s| s.mrr),
                ndcg_10: mean(|s| s.ndcg_10),
                average_precision: mean(|s| s.average_precision),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn metrics_match_hand_computed_values() {
        let judged: Judgments = [
            ("a".to_string(), 3.0),
            ("b".to_string(), 1.0),
            ("z".to_string(), 0.0),
        ]
        .into();
        let s = score(&keys(&["x", "a", "y", "b"]), &judged);
        assert_eq!((s.recall_any_1, s.recall_any_5), (0.0, 1.0));
        assert_eq!(s.mrr, 0.5);
        assert_eq!(s.recall_10, 1.0);
        assert!((s.average_precision - (0.5 + 0.5) / 2.0).abs() < 1e-12);
        let dcg = 3.0 / 3f64.log2() + 1.0 / 5f64.log2();
        let ideal = 3.0 + 1.0 / 3f64.log2();
        assert!((s.ndcg_10 - dcg / ideal).abs() < 1e-12);
        let none = score(&keys(&["x"]), &judged);
        assert_eq!(
            (none.mrr, none.recall_any_10, none.average_precision),
            (0.0, 0.0, 0.0)
        );
    }
}
