//! The sentence embedder: the tokenizer, then the [`Encoder`] on every core.
//!
//! Texts are tokenised, sorted by length and cut into batches of about [`BATCH_TOKENS`] tokens;
//! the threads (one per core) take batches from a shared counter until none is left, each with
//! its own workspace. One short text, as a query is, runs on the calling thread. A memory's
//! sentences are pooled from the same pass ([`Embedder::embed_passages`]): the tokenizer's
//! offsets say which tokens each sentence holds.

use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use cairn_core::embedding::{Embedder, ModelIdentity, Passage, sentence_spans};
use cairn_core::{Error, Result};
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

use crate::encoder::{Encoder, Pooled, Sequence, Workspace};

/// The longest text, in tokens, that is embedded; the rest of a longer text is cut. The model's
/// tokenizer.json says 128, which would ignore half of a typical memory.
pub const MAX_TOKENS: usize = 256;

/// Tokens per batch: enough rows for the matrix products to run at full speed, few enough that
/// a batch's activations stay in the core's cache.
const BATCH_TOKENS: usize = 512;

/// The file beside the weights where their SHA-256 is kept, so loading need not hash 90 MB.
pub(crate) const HASH_FILE: &str = "cairn-weights.sha256";

/// all-MiniLM-L6-v2 (or any BERT sentence encoder in the same layout), loaded from a directory.
pub struct SentenceEmbedder {
    encoder: Encoder,
    tokenizer: Tokenizer,
    identity: ModelIdentity,
    threads: usize,
}

pub(crate) fn model_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("{what}: {err}"),
    }
}

impl SentenceEmbedder {
    /// Loads the model in `dir` (config.json, tokenizer.json, model.safetensors), naming it
    /// `name` in its identity.
    pub fn load(dir: &Path, name: &str) -> Result<Self> {
        let identity = read_identity(dir, name)?;
        let mut tokenizer = Tokenizer::from_bytes(read_file(dir, "tokenizer.json")?)
            .map_err(|err| model_error("tokenizer.json", err))?;
        // No padding: the encoder takes sequences of any length side by side.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|err| model_error("tokenizer.json", err))?;
        let encoder = Encoder::load(dir).map_err(|err| model_error("model", err))?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(SentenceEmbedder {
            encoder,
            tokenizer,
            identity,
            threads,
        })
    }

    /// Embeds with at most `threads` threads (at least one).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Each text pooled whole and, when `sentences`, over each of its sentences' tokens
    /// ([`sentence_spans`]) from the same pass.
    fn pooled(&self, texts: &[&str], sentences: bool) -> Result<Vec<Pooled>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|err| model_error("tokenizing", err))?;
        let parts: Vec<Vec<Range<usize>>> = match sentences {
            true => texts
                .iter()
                .zip(&encodings)
                .map(|(text, encoding)| {
                    sentence_spans(text)
                        .iter()
                        .filter_map(|span| token_range(encoding.get_offsets(), span))
                        .collect()
                })
                .collect(),
            false => vec![Vec::new(); texts.len()],
        };
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let mut batches: Vec<&[usize]> = Vec::new();
        let (mut start, mut tokens) = (0, 0);
        for (position, &i) in order.iter().enumerate() {
            if tokens > 0 && tokens + encodings[i].len() > BATCH_TOKENS {
                batches.push(&order[start..position]);
                (start, tokens) = (position, 0);
            }
            tokens += encodings[i].len();
        }
        if start < order.len() {
            batches.push(&order[start..]);
        }
        let run = |batch: &[usize], work: &mut Workspace| -> Vec<(usize, Pooled)> {
            let sequences: Vec<Sequence<'_>> = batch
                .iter()
                .map(|&i| Sequence {
                    ids: encodings[i].get_ids(),
                    type_ids: encodings[i].get_type_ids(),
                    parts: &parts[i],
                })
                .collect();
            batch
                .iter()
                .copied()
                .zip(self.encoder.embed(&sequences, work))
                .collect()
        };
        let threads = self.threads.min(batches.len());
        let next = AtomicUsize::new(0);
        let worker = || {
            let mut work = Workspace::default();
            let mut done = Vec::new();
            while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                done.extend(run(batch, &mut work));
            }
            done
        };
        let done: Vec<(usize, Pooled)> = if threads <= 1 {
            worker()
        } else {
            std::thread::scope(|scope| {
                let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
                let mut done = worker();
                for helper in helpers {
                    done.extend(
                        helper
                            .join()
                            .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                    );
                }
                done
            })
        };
        let mut out: Vec<Option<Pooled>> = (0..texts.len()).map(|_| None).collect();
        for (i, pooled) in done {
            out[i] = Some(pooled);
        }
        Ok(out
            .into_iter()
            .map(|pooled| pooled.expect("every text is in one batch"))
            .collect())
    }
}

impl Embedder for SentenceEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(self
            .pooled(texts, false)?
            .into_iter()
            .map(|pooled| pooled.whole)
            .collect())
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Passage>> {
        Ok(self
            .pooled(texts, true)?
            .into_iter()
            .map(|pooled| Passage {
                vector: pooled.whole,
                sentences: pooled.parts,
            })
            .collect())
    }
}

/// The tokens whose characters lie within the byte range `span` of the text (special tokens,
/// which have no characters, never do); `None` when the text was cut before it.
fn token_range(offsets: &[(usize, usize)], span: &Range<usize>) -> Option<Range<usize>> {
    let inside =
        |&(start, end): &(usize, usize)| end > start && start >= span.start && end <= span.end;
    let first = offsets.iter().position(inside)?;
    let last = offsets.iter().rposition(inside)?;
    Some(first..last + 1)
}

pub(crate) fn read_file(dir: &Path, file: &str) -> Result<Vec<u8>> {
    let path = dir.join(file);
    std::fs::read(&path).map_err(|err| model_error(&path.display().to_string(), err))
}

/// The identity of the model in `dir` without loading it: dimensions from config.json, the
/// weights' hash as [`weights_sha256`] finds it.
pub(crate) fn read_identity(dir: &Path, name: &str) -> Result<ModelIdentity> {
    let config: serde_json::Value = serde_json::from_slice(&read_file(dir, "config.json")?)
        .map_err(|err| model_error("config.json", err))?;
    let dimensions = config["hidden_size"]
        .as_u64()
        .ok_or_else(|| model_error("config.json", "no hidden_size"))? as usize;
    Ok(ModelIdentity {
        name: name.to_string(),
        dimensions,
        weights_sha256: weights_sha256(dir)?,
    })
}

/// The SHA-256 of `dir`'s weights: from the file installation wrote beside them, else computed
/// (and remembered there when the directory is writable).
fn weights_sha256(dir: &Path) -> Result<String> {
    if let Ok(text) = std::fs::read_to_string(dir.join(HASH_FILE)) {
        let hash = text.trim();
        if hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(hash.to_string());
        }
    }
    let hash = file_sha256(&dir.join("model.safetensors"))?;
    let _ = std::fs::write(dir.join(HASH_FILE), format!("{hash}\n"));
    Ok(hash)
}

/// The SHA-256 of a file, as lowercase hex.
pub(crate) fn file_sha256(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
