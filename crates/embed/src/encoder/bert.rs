//! The encoder's layers and its forward pass.

use std::ops::Range;
use std::path::Path;

use serde::Deserialize;

use super::linear::{QuantizedLinear, Scratch};
use super::math;
use crate::weights::Weights;

/// The parts of a Hugging Face `config.json` the encoder reads.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub vocab_size: usize,
    #[serde(default = "default_type_vocab_size")]
    pub type_vocab_size: usize,
    #[serde(default = "default_layer_norm_eps")]
    pub layer_norm_eps: f32,
    #[serde(default = "default_hidden_act")]
    pub hidden_act: String,
}

fn default_type_vocab_size() -> usize {
    2
}
fn default_layer_norm_eps() -> f32 {
    1e-12
}
fn default_hidden_act() -> String {
    "gelu".into()
}

struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    /// Query, key and value side by side.
    attention_in: QuantizedLinear,
    attention_out: QuantizedLinear,
    attention_norm: Norm,
    feed_forward_in: QuantizedLinear,
    feed_forward_out: QuantizedLinear,
    output_norm: Norm,
}

pub struct Encoder {
    config: BertConfig,
    weights: Weights,
    word_embeddings: Range<usize>,
    position_embeddings: Vec<f32>,
    type_embeddings: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

/// One tokenised text.
pub struct Sequence<'a> {
    pub ids: &'a [u32],
    pub type_ids: &'a [u32],
    /// Ranges of its tokens that are also pooled on their own (its sentences), each non-empty
    /// and within the sequence.
    pub parts: &'a [Range<usize>],
}

/// A sequence's embedding: the mean of all its tokens, and the mean of each of its parts, all
/// L2-normalised.
pub struct Pooled {
    pub whole: Vec<f32>,
    pub parts: Vec<Vec<f32>>,
}

/// The buffers of one forward pass, reused across batches by one thread.
#[derive(Default)]
pub struct Workspace {
    hidden: Vec<f32>,
    projected: Vec<f32>,
    wide: Vec<f32>,
    attention: Attention,
    linear: Scratch,
}

/// Attention's buffers.
#[derive(Default)]
struct Attention {
    context: Vec<f32>,
    keys: Vec<f32>,
    scores: Vec<f32>,
}

impl Encoder {
    /// Loads `config.json` and `model.safetensors` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let config: BertConfig = serde_json::from_slice(
            &std::fs::read(dir.join("config.json")).map_err(|e| format!("config.json: {e}"))?,
        )
        .map_err(|e| format!("config.json: {e}"))?;
        if config.hidden_act != "gelu" {
            return Err(format!(
                "config.json: activation {} is not supported (only gelu)",
                config.hidden_act
            ));
        }
        let (hidden, inner) = (config.hidden_size, config.intermediate_size);
        if config.num_attention_heads == 0 || hidden % config.num_attention_heads != 0 {
            return Err("config.json: hidden_size is not a multiple of the heads".into());
        }
        let weights = Weights::open(&dir.join("model.safetensors"))
            .map_err(|e| format!("model.safetensors: {e}"))?;
        let read = |name: &str, shape: &[usize]| {
            weights
                .read(name, shape)
                .map_err(|e| format!("model.safetensors: {e}"))
        };
        let norm = |prefix: &str| -> Result<Norm, String> {
            Ok(Norm {
                gain: read(&format!("{prefix}.LayerNorm.weight"), &[hidden])?,
                bias: read(&format!("{prefix}.LayerNorm.bias"), &[hidden])?,
            })
        };
        let dense = |name: &str, inputs: usize, outputs: usize| -> Result<_, String> {
            Ok((
                read(&format!("{name}.weight"), &[outputs, inputs])?,
                read(&format!("{name}.bias"), &[outputs])?,
            ))
        };
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<_, String> {
            let (w, b) = dense(name, inputs, outputs)?;
            Ok(QuantizedLinear::new(&w, &b, inputs, outputs))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let prefix = format!("encoder.layer.{i}");
            let [q, k, v] = ["query", "key", "value"]
                .map(|part| dense(&format!("{prefix}.attention.self.{part}"), hidden, hidden));
            let (q, k, v) = (q?, k?, v?);
            layers.push(Layer {
                attention_in: QuantizedLinear::concat(
                    &[(&q.0, &q.1), (&k.0, &k.1), (&v.0, &v.1)],
                    hidden,
                ),
                attention_out: linear(&format!("{prefix}.attention.output.dense"), hidden, hidden)?,
                attention_norm: norm(&format!("{prefix}.attention.output"))?,
                feed_forward_in: linear(&format!("{prefix}.intermediate.dense"), hidden, inner)?,
                feed_forward_out: linear(&format!("{prefix}.output.dense"), inner, hidden)?,
                output_norm: norm(&format!("{prefix}.output"))?,
            });
        }
        let word_embeddings = weights
            .range(
                "embeddings.word_embeddings.weight",
                &[config.vocab_size, hidden],
            )
            .map_err(|e| format!("model.safetensors: {e}"))?;
        Ok(Encoder {
            position_embeddings: read(
                "embeddings.position_embeddings.weight",
                &[config.max_position_embeddings, hidden],
            )?,
            type_embeddings: read(
                "embeddings.token_type_embeddings.weight",
                &[config.type_vocab_size, hidden],
            )?,
            embedding_norm: norm("embeddings")?,
            word_embeddings,
            layers,
            weights,
            config,
        })
    }

    /// The mean-pooled, L2-normalised embedding of each sequence and of each of its parts.
    pub fn embed(&self, sequences: &[Sequence<'_>], work: &mut Workspace) -> Vec<Pooled> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has both features (checked just above).
            return unsafe { self.embed_avx2(sequences, work) };
        }
        self.forward(sequences, work)
    }

    /// [`Encoder::forward`] compiled for AVX2 and FMA: everything it calls is inlined into it,
    /// so the element-wise loops run eight lanes wide.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn embed_avx2(&self, sequences: &[Sequence<'_>], work: &mut Workspace) -> Vec<Pooled> {
        self.forward(sequences, work)
    }

    #[inline(always)]
    fn forward(&self, sequences: &[Sequence<'_>], work: &mut Workspace) -> Vec<Pooled> {
        let hidden = self.config.hidden_size;
        let spans = spans(sequences);
        let tokens = spans.last().map_or(0, |s| s.end);
        self.embeddings(sequences, &mut work.hidden);
        for layer in &self.layers {
            // Self-attention, then the residual sum and normalisation.
            layer
                .attention_in
                .forward(&work.hidden, &mut work.projected, &mut work.linear);
            self.attend(&spans, &work.projected, &mut work.attention);
            layer
                .attention_out
                .forward(&work.attention.context, &mut work.wide, &mut work.linear);
            add_and_norm(
                &mut work.hidden,
                &work.wide,
                &layer.attention_norm,
                self.epsilon(),
            );
            // The feed-forward block, likewise.
            layer
                .feed_forward_in
                .forward(&work.hidden, &mut work.projected, &mut work.linear);
            math::gelu(&mut work.projected);
            layer
                .feed_forward_out
                .forward(&work.projected, &mut work.wide, &mut work.linear);
            add_and_norm(
                &mut work.hidden,
                &work.wide,
                &layer.output_norm,
                self.epsilon(),
            );
        }
        debug_assert_eq!(work.hidden.len(), tokens * hidden);
        spans
            .iter()
            .zip(sequences)
            .map(|(span, sequence)| {
                let rows = &work.hidden[span.start * hidden..span.end * hidden];
                Pooled {
                    whole: unit_mean(rows, hidden),
                    parts: sequence
                        .parts
                        .iter()
                        .map(|part| {
                            unit_mean(&rows[part.start * hidden..part.end * hidden], hidden)
                        })
                        .collect(),
                }
            })
            .collect()
    }

    fn epsilon(&self) -> f32 {
        self.config.layer_norm_eps
    }

    /// Word, position and type embeddings of every token, summed and normalised.
    #[inline(always)]
    fn embeddings(&self, sequences: &[Sequence<'_>], out: &mut Vec<f32>) {
        let hidden = self.config.hidden_size;
        out.clear();
        let mut word = vec![0f32; hidden];
        for sequence in sequences {
            for (position, (&id, &kind)) in sequence.ids.iter().zip(sequence.type_ids).enumerate() {
                let id = (id as usize).min(self.config.vocab_size - 1);
                let start = self.word_embeddings.start + id * hidden * 4;
                self.weights.floats_at(start..start + hidden * 4, &mut word);
                let position = position.min(self.config.max_position_embeddings - 1);
                let kind = (kind as usize).min(self.config.type_vocab_size - 1);
                let at = &self.position_embeddings[position * hidden..(position + 1) * hidden];
                let of = &self.type_embeddings[kind * hidden..(kind + 1) * hidden];
                let row = out.len();
                out.extend(word.iter().zip(at).zip(of).map(|((w, p), t)| w + p + t));
                let norm = &self.embedding_norm;
                math::layer_norm(&mut out[row..], &norm.gain, &norm.bias, self.epsilon());
            }
        }
    }

    /// Multi-head attention of each sequence over itself: `projected` holds each token's query,
    /// key and value side by side; `context` gets the heads' outputs side by side.
    #[inline(always)]
    fn attend(&self, spans: &[Range<usize>], projected: &[f32], work: &mut Attention) {
        let hidden = self.config.hidden_size;
        let heads = self.config.num_attention_heads;
        let tokens = spans.last().map_or(0, |s| s.end);
        work.context.clear();
        work.context.resize(tokens * hidden, 0.0);
        for span in spans {
            for head in 0..heads {
                // Head sizes known at compile time keep a query's sums in registers.
                match hidden / heads {
                    32 => attend_head::<32>(span, head, hidden, projected, work),
                    64 => attend_head::<64>(span, head, hidden, projected, work),
                    size => attend_head_any(span, head, size, hidden, projected, work),
                }
            }
        }
    }
}

/// Lanes of a vector register; the keys are laid out in multiples of it.
const LANES: usize = 8;
/// Blocks of [`LANES`] keys scored together for one query.
const BLOCKS: usize = 4;

/// One head's attention over one sequence, for a head size `D` known at compile time.
///
/// The keys are transposed (one row per dimension, padded to a multiple of [`LANES`]), so that
/// eight scores are computed at once with no horizontal sums; each query's scores and output
/// stay in registers while the keys and values stream past.
#[inline(always)]
fn attend_head<const D: usize>(
    span: &Range<usize>,
    head: usize,
    hidden: usize,
    projected: &[f32],
    work: &mut Attention,
) {
    let width = 3 * hidden;
    let n = span.len();
    let padded = n.div_ceil(LANES) * LANES;
    let scale = 1.0 / (D as f32).sqrt();
    let (q, k, v) = (head * D, hidden + head * D, 2 * hidden + head * D);
    work.keys.clear();
    work.keys.resize(D * padded, 0.0);
    for (j, token) in span.clone().enumerate() {
        let key = &projected[token * width + k..token * width + k + D];
        for (d, &x) in key.iter().enumerate() {
            work.keys[d * padded + j] = x;
        }
    }
    work.scores.resize(padded, 0.0);
    let keys: &[f32] = &work.keys;
    for i in span.clone() {
        let query: [f32; D] = std::array::from_fn(|d| projected[i * width + q + d] * scale);
        // Four blocks of eight keys at a time: four independent sums in flight instead of one
        // chain of dependent additions (each block's sum still runs over d in order).
        let mut block = 0;
        for scores in work.scores.chunks_exact_mut(BLOCKS * LANES) {
            let mut sums = [[0f32; LANES]; BLOCKS];
            for (d, &component) in query.iter().enumerate() {
                let row = &keys[d * padded + block..d * padded + block + BLOCKS * LANES];
                for (sum, keys) in sums.iter_mut().zip(row.chunks_exact(LANES)) {
                    for t in 0..LANES {
                        sum[t] += component * keys[t];
                    }
                }
            }
            scores.copy_from_slice(sums.as_flattened());
            block += BLOCKS * LANES;
        }
        for scores in work.scores[block..].chunks_exact_mut(LANES) {
            let mut sums = [0f32; LANES];
            for (d, &component) in query.iter().enumerate() {
                let keys = &keys[d * padded + block..d * padded + block + LANES];
                for t in 0..LANES {
                    sums[t] += component * keys[t];
                }
            }
            scores.copy_from_slice(&sums);
            block += LANES;
        }
        let scores = &mut work.scores[..n];
        math::softmax(scores);
        let mut out = [0f32; D];
        for (j, &p) in span.clone().zip(scores.iter()) {
            let value = &projected[j * width + v..j * width + v + D];
            for d in 0..D {
                out[d] += p * value[d];
            }
        }
        work.context[i * hidden + head * D..i * hidden + (head + 1) * D].copy_from_slice(&out);
    }
}

/// The same for any head size, without the registers.
fn attend_head_any(
    span: &Range<usize>,
    head: usize,
    size: usize,
    hidden: usize,
    projected: &[f32],
    work: &mut Attention,
) {
    let width = 3 * hidden;
    let scale = 1.0 / (size as f32).sqrt();
    let (q, k, v) = (head * size, hidden + head * size, 2 * hidden + head * size);
    work.scores.resize(span.len(), 0.0);
    for i in span.clone() {
        let query = &projected[i * width + q..i * width + q + size];
        for (j, score) in span.clone().zip(work.scores.iter_mut()) {
            let key = &projected[j * width + k..j * width + k + size];
            *score = math::dot(query, key) * scale;
        }
        math::softmax(&mut work.scores);
        let out = &mut work.context[i * hidden + head * size..i * hidden + (head + 1) * size];
        for (j, &p) in span.clone().zip(work.scores.iter()) {
            let value = &projected[j * width + v..j * width + v + size];
            for (o, x) in out.iter_mut().zip(value) {
                *o += p * x;
            }
        }
    }
}

/// `hidden = norm(hidden + update)`, row by row.
#[inline(always)]
fn add_and_norm(hidden: &mut [f32], update: &[f32], norm: &Norm, epsilon: f32) {
    let size = norm.gain.len();
    for (row, add) in hidden.chunks_exact_mut(size).zip(update.chunks_exact(size)) {
        for (x, a) in row.iter_mut().zip(add) {
            *x += a;
        }
        math::layer_norm(row, &norm.gain, &norm.bias, epsilon);
    }
}

/// The rows of each sequence in the batch's token matrix.
/// The mean of `rows` (each `hidden` wide), L2-normalised.
#[inline(always)]
fn unit_mean(rows: &[f32], hidden: usize) -> Vec<f32> {
    let mut mean = vec![0f32; hidden];
    for row in rows.chunks_exact(hidden) {
        for (m, x) in mean.iter_mut().zip(row) {
            *m += x;
        }
    }
    let norm = math::dot(&mean, &mean).sqrt().max(f32::MIN_POSITIVE);
    mean.iter_mut().for_each(|m| *m /= norm);
    mean
}

fn spans(sequences: &[Sequence<'_>]) -> Vec<Range<usize>> {
    let mut start = 0;
    sequences
        .iter()
        .map(|s| {
            let span = start..start + s.ids.len();
            start = span.end;
            span
        })
        .collect()
}
