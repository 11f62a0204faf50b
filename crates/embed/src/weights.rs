//! A safetensors file. Tensors a model converts or copies at load time are read with plain
//! reads (the page cache keeps them, not the process): the sentence encoder's layers, which it
//! quantises, and every tensor of CLIP's towers, which candle copies — mapped, a tensor's pages
//! would stay resident beside its copy until the load ends, doubling the peak. The encoder's
//! large word embedding table is memory-mapped instead and paged in only for the words actually
//! seen, so a loaded encoder's resident memory is its quantised layers, not the 90 MB file.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use candle_core::{DType, Device, Shape, Tensor as CandleTensor};
use candle_nn::VarBuilder;
use candle_nn::var_builder::SimpleBackend;
use memmap2::Mmap;
use serde::Deserialize;

pub struct Weights {
    file: std::fs::File,
    map: Mmap,
    tensors: HashMap<String, Tensor>,
}

#[derive(Deserialize)]
struct Tensor {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

impl Weights {
    pub fn open(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // SAFETY: the file is mapped read-only; cairn never writes a model file in place
        // (installation writes a new file and renames it over the old one).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| e.to_string())?;
        let header_len = map
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
            .ok_or("not a safetensors file (shorter than its header)")?;
        let header = map
            .get(8..8 + header_len)
            .ok_or("not a safetensors file (the header runs past the end)")?;
        let mut tensors: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| format!("unreadable header: {e}"))?;
        tensors.remove("__metadata__");
        let data = 8 + header_len;
        let mut parsed = HashMap::new();
        for (name, value) in tensors {
            let mut tensor: Tensor = serde_json::from_value(value)
                .map_err(|e| format!("tensor {name}: unreadable entry: {e}"))?;
            let [start, end] = tensor.data_offsets;
            if start > end || data + end > map.len() {
                return Err(format!("tensor {name} lies outside the file"));
            }
            tensor.data_offsets = [data + start, data + end];
            // The sentence-transformers export names tensors without the model prefix; others
            // keep it. Either is accepted.
            let name = name.strip_prefix("bert.").unwrap_or(&name).to_string();
            parsed.insert(name, tensor);
        }
        Ok(Weights {
            file,
            map,
            tensors: parsed,
        })
    }

    /// The bytes of an `F32` tensor of the given shape.
    pub fn range(&self, name: &str, shape: &[usize]) -> Result<Range<usize>, String> {
        let tensor = self
            .tensors
            .get(name)
            .ok_or_else(|| format!("the weights have no tensor {name}"))?;
        if tensor.dtype != "F32" || tensor.shape != shape {
            return Err(format!(
                "tensor {name} is {} {:?}, expected F32 {shape:?}",
                tensor.dtype, tensor.shape
            ));
        }
        let [start, end] = tensor.data_offsets;
        if end - start != shape.iter().product::<usize>() * 4 {
            return Err(format!("tensor {name} has the wrong size"));
        }
        Ok(start..end)
    }

    /// The names of the file's tensors, in no order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// The shape of the tensor `name`, if the file has it.
    pub fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.tensors.get(name).map(|t| t.shape.as_slice())
    }

    /// An `F32` tensor of the given shape, read from the file.
    pub fn read(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        use std::io::{Read, Seek, SeekFrom};
        let range = self.range(name, shape)?;
        let mut bytes = vec![0u8; range.len()];
        // `&File` reads too: seeking and reading through a shared reference.
        let mut file = &self.file;
        file.seek(SeekFrom::Start(range.start as u64))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| format!("tensor {name}: {e}"))?;
        Ok(floats(&bytes))
    }

    /// Checks that the file holds every tensor of `expected`, each of its shape; the error names
    /// the first that is wrong and counts the rest.
    pub fn check(&self, expected: &[(String, Vec<usize>)]) -> Result<(), String> {
        let mut wrong = Vec::new();
        for (name, shape) in expected {
            match self.shape_of(name) {
                None => wrong.push(format!("{name} is missing")),
                Some(found) if found != shape.as_slice() => {
                    wrong.push(format!("{name} is {found:?}, the config says {shape:?}"))
                }
                Some(_) => {}
            }
        }
        match wrong.split_first() {
            None => Ok(()),
            Some((first, [])) => Err(first.clone()),
            Some((first, rest)) => Err(format!(
                "{first} (and {} more tensors are missing or misshapen)",
                rest.len()
            )),
        }
    }

    /// Floats in a byte range found by [`Weights::range`].
    pub fn floats_at(&self, range: Range<usize>, out: &mut [f32]) {
        for (x, bytes) in out.iter_mut().zip(self.map[range].chunks_exact(4)) {
            *x = f32::from_le_bytes(bytes.try_into().expect("4 bytes"));
        }
    }
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect()
}

/// Candle's view of the weights: `F32`, on the CPU, each tensor read from the file when a
/// network's constructor asks for it.
pub fn builder(weights: Weights) -> VarBuilder<'static> {
    VarBuilder::from_backend(Box::new(weights), DType::F32, Device::Cpu)
}

impl SimpleBackend for Weights {
    fn get(
        &self,
        shape: Shape,
        name: &str,
        _: candle_nn::Init,
        dtype: DType,
        device: &Device,
    ) -> candle_core::Result<CandleTensor> {
        let values = self
            .read(name, shape.dims())
            .map_err(candle_core::Error::msg)?;
        CandleTensor::from_vec(values, shape, device)?.to_dtype(dtype)
    }

    fn get_unchecked(
        &self,
        name: &str,
        dtype: DType,
        device: &Device,
    ) -> candle_core::Result<CandleTensor> {
        let shape = self
            .shape_of(name)
            .ok_or_else(|| candle_core::Error::msg(format!("the weights have no tensor {name}")))?
            .to_vec();
        self.get(
            shape.into(),
            name,
            candle_nn::Init::Const(0.0),
            dtype,
            device,
        )
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.shape_of(name).is_some()
    }
}
