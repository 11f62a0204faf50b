//! The embedder on real text: throughput over LoCoMo's dialog turns embedded as the embedding
//! queue embeds a memory (its [`embedding_text`], whole and sentence by sentence; all cores, the
//! median of several runs), one-text latency over its questions (what a search pays), and
//! agreement with the `f32` reference on candle (the cosine of each turn's two vectors).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use cairn_core::embedding::{Embedder, dot, embedding_text};
use cairn_embed::{ReferenceEmbedder, SentenceEmbedder};
use serde::Serialize;

use crate::measure::Percentiles;

#[derive(Debug, Serialize)]
pub struct EmbeddingReport {
    pub model: String,
    pub texts: usize,
    pub threads: usize,
    /// Texts per second, each run's, then the median.
    pub runs_per_second: Vec<f64>,
    pub median_per_second: f64,
    /// One question at a time, on the calling thread.
    pub query: Percentiles,
    /// The reference's throughput (one run) and the agreement, when it ran.
    pub reference: Option<Agreement>,
}

#[derive(Debug, Serialize)]
pub struct Agreement {
    pub per_second: f64,
    pub mean_cosine: f64,
    pub min_cosine: f64,
    /// The share of texts whose two vectors have a cosine below 0.99.
    pub below_0_99: f64,
}

pub struct EmbeddingOptions {
    pub runs: usize,
    pub queries: usize,
    pub threads: Option<usize>,
    pub reference: bool,
}

pub fn run(
    dir: &Path,
    name: &str,
    texts: &[String],
    questions: &[String],
    options: &EmbeddingOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<EmbeddingReport> {
    let mut embedder = SentenceEmbedder::load(dir, name)?;
    if let Some(threads) = options.threads {
        embedder = embedder.with_threads(threads);
    }
    let memories: Vec<String> = texts.iter().map(|t| embedding_text(None, t)).collect();
    let refs: Vec<&str> = memories.iter().map(String::as_str).collect();
    let mut runs = Vec::new();
    let mut vectors = Vec::new();
    for run in 0..options.runs.max(1) {
        progress(&format!(
            "run {} of {}: {} texts",
            run + 1,
            options.runs,
            texts.len()
        ));
        let started = Instant::now();
        vectors = embedder.embed_passages(&refs)?;
        runs.push(texts.len() as f64 / started.elapsed().as_secs_f64());
    }
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    let mut latencies: Vec<Duration> = Vec::new();
    for question in questions.iter().take(options.queries) {
        let started = Instant::now();
        embedder.embed(&[question.as_str()])?;
        latencies.push(started.elapsed());
    }
    let reference = match options.reference {
        false => None,
        true => {
            progress("the f32 reference on candle");
            let reference = ReferenceEmbedder::load(dir, name)?;
            let started = Instant::now();
            let exact = reference.embed(&refs)?;
            let per_second = texts.len() as f64 / started.elapsed().as_secs_f64();
            let cosines: Vec<f64> = vectors
                .iter()
                .zip(&exact)
                .map(|(a, b)| dot(&a.vector, b) as f64)
                .collect();
            Some(Agreement {
                per_second,
                mean_cosine: cosines.iter().sum::<f64>() / cosines.len().max(1) as f64,
                min_cosine: cosines.iter().copied().fold(f64::INFINITY, f64::min),
                below_0_99: cosines.iter().filter(|&&c| c < 0.99).count() as f64
                    / cosines.len().max(1) as f64,
            })
        }
    };
    Ok(EmbeddingReport {
        model: embedder.identity().to_string(),
        texts: texts.len(),
        threads: options
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        median_per_second: sorted[sorted.len() / 2],
        runs_per_second: runs,
        query: Percentiles::of(&latencies),
        reference,
    })
}

pub fn table(report: &EmbeddingReport) -> String {
    let mut out = format!(
        "{} texts with {} on {} threads\nthroughput: {:.0}/s (median of {:?})\none question: p50 {:.2} ms, p95 {:.2} ms, p99 {} ms\n",
        report.texts,
        report.model,
        report.threads,
        report.median_per_second,
        report
            .runs_per_second
            .iter()
            .map(|r| r.round())
            .collect::<Vec<_>>(),
        report.query.p50_ms,
        report.query.p95_ms,
        report.query.p99(2),
    );
    if let Some(r) = &report.reference {
        out += &format!(
            "f32 reference (candle): {:.0}/s; agreement: mean cosine {:.5}, min {:.5}, {:.2}% below 0.99\n",
            r.per_second,
            r.mean_cosine,
            r.min_cosine,
            r.below_0_99 * 100.0
        );
    }
    out
}
