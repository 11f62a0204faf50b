//! The sentence embedder: a BERT encoder, mean pooling, L2 normalisation.

use std::io::Read;
use std::path::Path;

use cairn_core::embedding::{Embedder, ModelIdentity};
use cairn_core::{Error, Result};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// The longest text, in tokens, that is embedded; the rest of a longer text is cut. The model's
/// tokenizer.json says 128, which would ignore half of a typical memory.
pub const MAX_TOKENS: usize = 256;

/// Texts embedded in one forward pass. Texts are sorted by length first, so a batch pads little.
const BATCH: usize = 32;

/// The file beside the weights where their SHA-256 is kept, so loading need not hash 90 MB.
pub(crate) const HASH_FILE: &str = "cairn-weights.sha256";

/// all-MiniLM-L6-v2 (or any BERT sentence encoder in the same layout), loaded from a directory.
pub struct SentenceEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    identity: ModelIdentity,
}

fn model_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("{what}: {err}"),
    }
}

impl SentenceEmbedder {
    /// Loads the model in `dir` (config.json, tokenizer.json, model.safetensors), naming it
    /// `name` in its identity.
    pub fn load(dir: &Path, name: &str) -> Result<Self> {
        let config: Config = serde_json::from_slice(&read_file(dir, "config.json")?)
            .map_err(|err| model_error("config.json", err))?;
        let identity = read_identity(dir, name)?;
        let mut tokenizer = Tokenizer::from_bytes(read_file(dir, "tokenizer.json")?)
            .map_err(|err| model_error("tokenizer.json", err))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|err| model_error("tokenizer.json", err))?;
        let weights = dir.join("model.safetensors");
        let device = Device::Cpu;
        // SAFETY: the weights file is memory-mapped read-only; cairn never writes it while a
        // model is loaded (installation writes a new file and renames it into place).
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &device) }
            .map_err(|err| model_error("model.safetensors", err))?;
        let model = BertModel::load(vb, &config).map_err(|err| model_error("model", err))?;
        Ok(SentenceEmbedder {
            model,
            tokenizer,
            device,
            identity,
        })
    }

    fn embed_batch(&self, texts: &[&str]) -> candle_core::Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::wrap)?;
        let rows = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| {
            let rows: Vec<Tensor> = encodings
                .iter()
                .map(|e| Tensor::new(f(e), &self.device))
                .collect::<candle_core::Result<_>>()?;
            Tensor::stack(&rows, 0)
        };
        let ids = rows(&|e| e.get_ids())?;
        let type_ids = rows(&|e| e.get_type_ids())?;
        let mask = rows(&|e| e.get_attention_mask())?;
        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?;
        // Mean over the real tokens only: padding must not pull the average.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?;
        let mean = summed.broadcast_div(&counts)?;
        let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        mean.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

impl Embedder for SentenceEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self
                .embed_batch(&batch)
                .map_err(|err| model_error("embedding", err))?;
            for (&i, vector) in chunk.iter().zip(vectors) {
                out[i] = vector;
            }
        }
        Ok(out)
    }
}

fn read_file(dir: &Path, file: &str) -> Result<Vec<u8>> {
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
