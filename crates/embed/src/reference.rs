//! The reference: the same model in `f32` on candle, an implementation independent of cairn's
//! own encoder. Tests and the benchmark measure how closely the 8-bit encoder agrees with it
//! (cargo feature `reference`).

use std::path::Path;

use cairn_core::Result;
use cairn_core::embedding::{Embedder, ModelIdentity};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::sentence::{MAX_TOKENS, model_error, read_file, read_identity};

/// Texts embedded in one forward pass. Texts are sorted by length first, so a batch pads little.
const BATCH: usize = 32;

/// The model in `f32` on candle, in padded batches of 32 texts.
pub struct ReferenceEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    identity: ModelIdentity,
}

impl ReferenceEmbedder {
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
        Ok(ReferenceEmbedder {
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

impl Embedder for ReferenceEmbedder {
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
