//! Semantic cost at scale: embedding throughput, and hybrid search latency with the query's
//! embedding included, in process (as the server runs it).
//!
//! Embedding a whole synthetic corpus with the real model takes long on two cores (about 70
//! memories/s), so `--embed N` embeds the first N memories for real and gives every other memory
//! one of those N vectors, cycling. Search latency depends on how many vectors are scanned, not
//! on what they hold, so the latency is the real one; the rankings of the copied vectors mean
//! nothing and are not reported.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use cairn_core::config::Limits;
use cairn_core::embedding::Embedder;
use cairn_core::search::{SearchMode, SearchRequest};
use cairn_core::store::{MemoryFilter, Store};
use cairn_core::{MemoryId, MemoryService};
use cairn_store_sqlite::SqliteStore;
use serde::Serialize;

use crate::corpus::{Corpus, Rng};
use crate::measure::Percentiles;

#[derive(Debug, Serialize)]
pub struct HybridResult {
    pub memories: u64,
    pub embedded_for_real: u64,
    pub embed_per_second: f64,
    pub query_embedding: Percentiles,
    pub semantic: Percentiles,
    pub hybrid: Percentiles,
    pub lexical: Percentiles,
}

pub fn run(
    dir: &Path,
    size: u64,
    embed: u64,
    searches: usize,
    seed: u64,
    embedder: Arc<dyn Embedder>,
    progress: &mut dyn FnMut(&str),
) -> Result<HybridResult> {
    let db = dir.join(format!("hybrid-{size}.db"));
    let corpus_path = dir.join(format!("hybrid-{size}.jsonl"));
    progress(&format!("{size}: generating and importing the corpus"));
    crate::scale::write_corpus(&corpus_path, size, seed)?;
    let limits = Limits::default();
    let service = MemoryService::new(Box::new(SqliteStore::open(&db)?), limits)
        .with_embedder(embedder.clone(), 64);
    let mut input = std::io::BufReader::new(std::fs::File::open(&corpus_path)?);
    service.import(&mut input, &mut |_| {})?;

    progress(&format!("{size}: embedding {embed} memories for real"));
    let direct = SqliteStore::open(&db)?;
    let sample = direct.pending_embeddings(embed as usize)?;
    let texts: Vec<&str> = sample.iter().map(|p| p.text.as_str()).collect();
    let started = Instant::now();
    let vectors = embedder.embed(&texts)?;
    let embed_seconds = started.elapsed().as_secs_f64();
    direct.write(&mut |tx| {
        tx.set_embedding_model(embedder.identity())?;
        Ok(())
    })?;
    progress(&format!(
        "{size}: giving the other memories copies of those vectors"
    ));
    loop {
        let pending = direct.pending_embeddings(10_000)?;
        if pending.is_empty() {
            break;
        }
        let rows: Vec<(MemoryId, jiff::Timestamp, Vec<f32>)> = pending
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, p.updated_at, vectors[i % vectors.len()].clone()))
            .collect();
        direct.write(&mut |tx| tx.put_embeddings(&rows).map(|_| ()))?;
    }

    progress(&format!("{size}: {searches} searches per mode"));
    let corpus = Corpus::new(seed);
    let mut rng = Rng::new(seed ^ 0x5eed);
    let queries: Vec<String> = (0..searches).map(|_| corpus.query(&mut rng)).collect();
    let time = |mode: SearchMode| -> Result<Percentiles> {
        let mut samples = Vec::new();
        for query in &queries {
            let request = SearchRequest {
                mode: Some(mode),
                ..SearchRequest::new(query.clone(), MemoryFilter::default(), 10)
            };
            let start = Instant::now();
            service.search(&request)?;
            samples.push(start.elapsed());
        }
        Ok(Percentiles::of(&samples))
    };
    let mut embedding = Vec::new();
    for query in &queries {
        let start = Instant::now();
        embedder.embed(&[query.as_str()])?;
        embedding.push(start.elapsed());
    }
    Ok(HybridResult {
        memories: size,
        embedded_for_real: vectors.len() as u64,
        embed_per_second: vectors.len() as f64 / embed_seconds.max(f64::MIN_POSITIVE),
        query_embedding: Percentiles::of(&embedding),
        semantic: time(SearchMode::Semantic)?,
        hybrid: time(SearchMode::Hybrid)?,
        lexical: time(SearchMode::Lexical)?,
    })
}
