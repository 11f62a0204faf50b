//! EfficientNet-Lite0, the forward pass: how an image looks as 1,280 numbers.
//!
//! The network (Tan & Le's EfficientNet with the "Lite" changes: no squeeze-and-excite, ReLU6,
//! a fixed stem and head) is a 3×3 stride-2 stem convolution to 32 channels, sixteen
//! inverted-residual blocks (expand 1×1 → depthwise k×k → project 1×1, with a residual when the
//! shape is kept), a 1×1 head to 1,280 channels and a global average: those are the features.
//! A 1,000-way classifier over them is kept too; the tests check the port with it (a photo of
//! a cat is a cat).
//!
//! Every convolution pads like TensorFlow's "SAME": the output is ⌈input / stride⌉ wide and the
//! padding that needs is split with the extra pixel at the bottom and right. BatchNorm (ε 10⁻³)
//! is folded into the convolution before it at load. The 1×1 convolutions, nearly all the work,
//! are matrix products on candle; the depthwise and stem convolutions are direct loops, run on
//! every core.

use std::collections::HashMap;

use cairn_core::{Error, Result};
use candle_core::{Device, Tensor};

use super::legacy_pth::LoadedTensor;

/// The side of the square image the network takes.
pub const INPUT_SIDE: usize = 224;

/// How many features it gives (the head's channels).
pub const FEATURES: usize = 1280;

/// BatchNorm's ε in this model.
const BN_EPSILON: f32 = 1e-3;

/// The blocks' stages: (expansion, kernel, first stride, output channels, repeats).
const STAGES: [(usize, usize, usize, usize, usize); 7] = [
    (1, 3, 1, 16, 1),
    (6, 3, 2, 24, 2),
    (6, 5, 2, 40, 2),
    (6, 3, 2, 80, 3),
    (6, 5, 1, 112, 3),
    (6, 5, 2, 192, 4),
    (6, 3, 1, 320, 1),
];

/// The channels of the stem.
const STEM: usize = 32;

/// A feature map: channels × height × width, row-major.
struct Map {
    values: Vec<f32>,
    channels: usize,
    height: usize,
    width: usize,
}

/// A k×k convolution with BatchNorm folded in: `weight` is out × in × k × k (in = 1 for a
/// depthwise one, which maps channel c to channel c).
struct Conv {
    weight: Vec<f32>,
    bias: Vec<f32>,
    outputs: usize,
    inputs: usize,
    kernel: usize,
    stride: usize,
    depthwise: bool,
}

/// A 1×1 convolution with BatchNorm folded in, as a matrix (out × in) for candle.
struct Pointwise {
    weight: Tensor,
    bias: Tensor,
}

struct Block {
    expand: Option<Pointwise>,
    depthwise: Conv,
    project: Pointwise,
    residual: bool,
}

/// The loaded network.
pub struct Lite0 {
    stem: Conv,
    blocks: Vec<Block>,
    head: Pointwise,
    classifier: (Tensor, Tensor),
}

/// The tensors by name, taken one by one; a missing or misshapen one is an error naming it.
pub struct Weights {
    tensors: HashMap<String, LoadedTensor>,
}

impl Weights {
    pub fn new(tensors: HashMap<String, LoadedTensor>) -> Self {
        Weights { tensors }
    }

    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let tensor = self.tensors.remove(name).ok_or_else(|| Error::Model {
            message: format!("look model: the weights have no tensor {name}"),
        })?;
        if tensor.shape != shape {
            return Err(Error::Model {
                message: format!(
                    "look model: {name} has shape {:?}, expected {shape:?}",
                    tensor.shape
                ),
            });
        }
        Ok(tensor.values)
    }

    /// The convolution `name` (`…_conv`) with its BatchNorm `bn` folded in.
    fn conv(
        &mut self,
        name: &str,
        bn: &str,
        shape: [usize; 4],
        stride: usize,
        depthwise: bool,
    ) -> Result<Conv> {
        let mut weight = self.take(&format!("{name}.weight"), &shape)?;
        let outputs = shape[0];
        let gamma = self.take(&format!("{bn}.weight"), &[outputs])?;
        let beta = self.take(&format!("{bn}.bias"), &[outputs])?;
        let mean = self.take(&format!("{bn}.running_mean"), &[outputs])?;
        let var = self.take(&format!("{bn}.running_var"), &[outputs])?;
        let per_output = weight.len() / outputs;
        let mut bias = Vec::with_capacity(outputs);
        for o in 0..outputs {
            let scale = gamma[o] / (var[o] + BN_EPSILON).sqrt();
            for w in &mut weight[o * per_output..(o + 1) * per_output] {
                *w *= scale;
            }
            bias.push(beta[o] - mean[o] * scale);
        }
        Ok(Conv {
            weight,
            bias,
            outputs,
            inputs: shape[1],
            kernel: shape[2],
            stride,
            depthwise,
        })
    }

    fn pointwise(
        &mut self,
        name: &str,
        bn: &str,
        outputs: usize,
        inputs: usize,
    ) -> Result<Pointwise> {
        let conv = self.conv(name, bn, [outputs, inputs, 1, 1], 1, false)?;
        Ok(Pointwise {
            weight: tensor(conv.weight, (outputs, inputs))?,
            bias: tensor(conv.bias, (outputs, 1))?,
        })
    }
}

fn tensor(values: Vec<f32>, shape: (usize, usize)) -> Result<Tensor> {
    Tensor::from_vec(values, shape, &Device::Cpu).map_err(candle_error)
}

fn candle_error(err: candle_core::Error) -> Error {
    Error::Model {
        message: format!("look model: {err}"),
    }
}

impl Lite0 {
    /// The network from its weights (EfficientNet-PyTorch's names: `_conv_stem`, `_bn0`,
    /// `_blocks.N._expand_conv`, `_conv_head`, `_fc` …).
    pub fn new(mut weights: Weights) -> Result<Self> {
        let stem = weights.conv("_conv_stem", "_bn0", [STEM, 3, 3, 3], 2, false)?;
        let mut blocks = Vec::new();
        let mut inputs = STEM;
        for (expansion, kernel, first_stride, outputs, repeats) in STAGES {
            for repeat in 0..repeats {
                let name = format!("_blocks.{}", blocks.len());
                let stride = if repeat == 0 { first_stride } else { 1 };
                let hidden = inputs * expansion;
                let expand = if expansion == 1 {
                    None
                } else {
                    Some(weights.pointwise(
                        &format!("{name}._expand_conv"),
                        &format!("{name}._bn0"),
                        hidden,
                        inputs,
                    )?)
                };
                let depthwise = weights.conv(
                    &format!("{name}._depthwise_conv"),
                    &format!("{name}._bn1"),
                    [hidden, 1, kernel, kernel],
                    stride,
                    true,
                )?;
                let project = weights.pointwise(
                    &format!("{name}._project_conv"),
                    &format!("{name}._bn2"),
                    outputs,
                    hidden,
                )?;
                blocks.push(Block {
                    expand,
                    depthwise,
                    project,
                    residual: stride == 1 && inputs == outputs,
                });
                inputs = outputs;
            }
        }
        let head = weights.pointwise("_conv_head", "_bn1", FEATURES, inputs)?;
        let classes = 1000;
        let classifier = (
            tensor(
                weights.take("_fc.weight", &[classes, FEATURES])?,
                (classes, FEATURES),
            )?,
            tensor(weights.take("_fc.bias", &[classes])?, (classes, 1))?,
        );
        Ok(Lite0 {
            stem,
            blocks,
            head,
            classifier,
        })
    }

    /// The pooled features of an image given as 3 × [`INPUT_SIDE`]² planes, already scaled.
    pub fn features(&self, planes: Vec<f32>) -> Result<Vec<f32>> {
        let mut map = Map {
            values: planes,
            channels: 3,
            height: INPUT_SIDE,
            width: INPUT_SIDE,
        };
        map = self.stem.apply(&map);
        for block in &self.blocks {
            // Only a residual block keeps a copy of its input; maps are handed on, not copied.
            let skip = block.residual.then(|| map.values.clone());
            let spread = match &block.expand {
                Some(expand) => block.depthwise.apply(&expand.apply(map, true)?),
                None => block.depthwise.apply(&map),
            };
            let mut projected = block.project.apply(spread, false)?;
            if let Some(skip) = skip {
                for (out, skip) in projected.values.iter_mut().zip(skip) {
                    *out += skip;
                }
            }
            map = projected;
        }
        let head = self.head.apply(map, true)?;
        let area = (head.height * head.width) as f32;
        Ok(head
            .values
            .chunks_exact(head.height * head.width)
            .map(|plane| plane.iter().sum::<f32>() / area)
            .collect())
    }

    /// The 1,000 ImageNet class scores (logits) of pooled `features`.
    pub fn classify(&self, features: &[f32]) -> Result<Vec<f32>> {
        let (weight, bias) = &self.classifier;
        let features = tensor(features.to_vec(), (FEATURES, 1))?;
        weight
            .matmul(&features)
            .and_then(|t| t.broadcast_add(bias))
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1())
            .map_err(candle_error)
    }
}

fn relu6(x: f32) -> f32 {
    x.clamp(0.0, 6.0)
}

impl Pointwise {
    fn apply(&self, input: Map, activate: bool) -> Result<Map> {
        let area = input.height * input.width;
        let x = tensor(input.values, (input.channels, area))?;
        let mut y = self
            .weight
            .matmul(&x)
            .and_then(|t| t.broadcast_add(&self.bias))
            .map_err(candle_error)?;
        if activate {
            y = y.clamp(0f32, 6f32).map_err(candle_error)?;
        }
        let channels = y.dim(0).map_err(candle_error)?;
        let values = y
            .flatten_all()
            .and_then(|t| t.to_vec1())
            .map_err(candle_error)?;
        Ok(Map {
            values,
            channels,
            height: input.height,
            width: input.width,
        })
    }
}

/// TensorFlow "SAME": the output size and the padding before (the extra pixel goes after).
fn same(size: usize, kernel: usize, stride: usize) -> (usize, usize) {
    let out = size.div_ceil(stride);
    let total = ((out - 1) * stride + kernel).saturating_sub(size);
    (out, total / 2)
}

impl Conv {
    /// The convolution, its bias and ReLU6, on every core (output channels split between them).
    fn apply(&self, input: &Map) -> Map {
        let (height, pad_top) = same(input.height, self.kernel, self.stride);
        let (width, pad_left) = same(input.width, self.kernel, self.stride);
        let plane = height * width;
        let mut values = vec![0f32; self.outputs * plane];
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per_thread = self.outputs.div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            for (part, chunk) in values.chunks_mut(per_thread * plane).enumerate() {
                scope.spawn(move || {
                    for (i, out) in chunk.chunks_exact_mut(plane).enumerate() {
                        let o = part * per_thread + i;
                        self.output_plane(input, o, out, (width, pad_top, pad_left));
                    }
                });
            }
        });
        Map {
            values,
            channels: self.outputs,
            height,
            width,
        }
    }

    /// Output channel `o` into `out` (`width` wide, padded by `pad_top` and `pad_left`).
    fn output_plane(
        &self,
        input: &Map,
        o: usize,
        out: &mut [f32],
        (width, pad_top, pad_left): (usize, usize, usize),
    ) {
        let k = self.kernel;
        let in_plane = input.height * input.width;
        let channels = if self.depthwise {
            o..o + 1
        } else {
            0..self.inputs
        };
        out.fill(self.bias[o]);
        for (c_index, c) in channels.enumerate() {
            let source = &input.values[c * in_plane..(c + 1) * in_plane];
            let weights = &self.weight[(o * self.inputs + c_index) * k * k..][..k * k];
            for ky in 0..k {
                for kx in 0..k {
                    let w = weights[ky * k + kx];
                    for (y, row) in out.chunks_exact_mut(width).enumerate() {
                        let Some(sy) = (y * self.stride + ky).checked_sub(pad_top) else {
                            continue;
                        };
                        if sy >= input.height {
                            continue;
                        }
                        let source_row = &source[sy * input.width..(sy + 1) * input.width];
                        for (x, value) in row.iter_mut().enumerate() {
                            let Some(sx) = (x * self.stride + kx).checked_sub(pad_left) else {
                                continue;
                            };
                            if let Some(pixel) = source_row.get(sx) {
                                *value += w * pixel;
                            }
                        }
                    }
                }
            }
        }
        for value in out.iter_mut() {
            *value = relu6(*value);
        }
    }
}
