//! Reading a legacy (before PyTorch 1.6, not a zip archive) `torch.save` file of a state dict,
//! which is how the look model's weights ship, so they can be converted once at install.
//!
//! Such a file is a run of pickles followed by raw storage bytes:
//! 1. the magic number `0x1950a86a20f9469cfc6c` (a pickled 10-byte integer), then the protocol
//!    version and a dict of the writer's type sizes (checked little-endian);
//! 2. the state dict: each tensor a `torch._utils._rebuild_tensor_v2(storage, offset, size,
//!    stride, …)` whose storage is a persistent id `('storage', FloatStorage, key, device, numel)`;
//! 3. the list of storage keys, in the order their bytes follow;
//! 4. for each key, its element count (a little-endian `i64`) and its elements.
//!
//! The pickles are read with candle's unpickler; the tensors are gathered through their strides
//! (many of these are not contiguous) into plain row-major `f32`. Only float tensors are kept
//! (the BatchNorm counters, `num_batches_tracked`, are `i64` and mean nothing to inference).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use cairn_core::{Error, Result};
use candle_core::DType;
use candle_core::pickle::{Object, Stack, TensorInfo};

/// A tensor read from the file: its shape and its elements, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedTensor {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// The pickled magic number that opens a legacy file: protocol 2, a `LONG1` of 10 bytes, stop.
const MAGIC: [u8; 15] = [
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e,
];

fn pth_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("{}: {message}", path.display()),
    }
}

/// Every float tensor of the state dict saved in `path`, by name.
pub fn read_legacy_state_dict(path: &Path) -> Result<HashMap<String, LoadedTensor>> {
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut magic = [0u8; MAGIC.len()];
    reader.read_exact(&mut magic)?;
    if magic != MAGIC {
        return Err(pth_error(
            path,
            "not a legacy torch.save file (the magic number is missing)",
        ));
    }
    let _protocol = unpickle(path, &mut reader)?;
    if let Object::Dict(sys_info) = unpickle(path, &mut reader)? {
        let little = Object::Unicode("little_endian".into());
        if sys_info
            .iter()
            .any(|(k, v)| *k == little && *v != Object::Bool(true))
        {
            return Err(pth_error(path, "the file was written big-endian"));
        }
    }
    let Object::Dict(entries) = unpickle(path, &mut reader)? else {
        return Err(pth_error(path, "the saved object is not a state dict"));
    };
    let mut tensors: Vec<TensorInfo> = Vec::new();
    for (name, value) in entries {
        if let Some(info) = value
            .into_tensor_info(name, Path::new(""))
            .map_err(|err| pth_error(path, err))?
        {
            tensors.push(info);
        }
    }
    let Object::List(keys) = unpickle(path, &mut reader)? else {
        return Err(pth_error(path, "the storage keys are missing"));
    };
    // Each storage's bytes, in the order the keys list them.
    let mut storages: HashMap<String, Vec<f32>> = HashMap::new();
    for key in keys {
        let key = key
            .unicode()
            .map_err(|_| pth_error(path, "a storage key is not a string"))?;
        let dtype = tensors
            .iter()
            .find(|t| storage_key(t) == key)
            .map(|t| t.dtype)
            .ok_or_else(|| pth_error(path, format!("storage {key} belongs to no tensor")))?;
        let mut count = [0u8; 8];
        reader.read_exact(&mut count)?;
        let count = usize::try_from(i64::from_le_bytes(count))
            .map_err(|_| pth_error(path, format!("storage {key} has a negative size")))?;
        let mut bytes = vec![0u8; count * dtype.size_in_bytes()];
        reader.read_exact(&mut bytes)?;
        if dtype == DType::F32 {
            let values = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            storages.insert(key, values);
        }
    }
    let mut loaded = HashMap::new();
    for info in tensors.into_iter().filter(|t| t.dtype == DType::F32) {
        let storage = storages
            .get(storage_key(&info))
            .ok_or_else(|| pth_error(path, format!("{}: its storage is missing", info.name)))?;
        let values = gather(storage, &info).ok_or_else(|| {
            pth_error(
                path,
                format!("{}: its view reaches past its storage", info.name),
            )
        })?;
        let shape = info.layout.shape().dims().to_vec();
        loaded.insert(info.name, LoadedTensor { shape, values });
    }
    Ok(loaded)
}

/// The next pickle in the file.
fn unpickle(path: &Path, reader: &mut impl BufRead) -> Result<Object> {
    let mut stack = Stack::empty();
    stack
        .read_loop(reader)
        .and_then(|()| stack.finalize())
        .map_err(|err| pth_error(path, format!("unreadable pickle: {err}")))
}

/// The storage key a tensor reads (candle files it as a path under the directory given).
fn storage_key(info: &TensorInfo) -> &str {
    info.path.trim_start_matches('/')
}

/// The tensor's elements in row-major order, read from `storage` through its strides; `None`
/// when an index falls outside the storage.
fn gather(storage: &[f32], info: &TensorInfo) -> Option<Vec<f32>> {
    let dims = info.layout.shape().dims();
    let strides = info.layout.stride();
    let offset = info.layout.start_offset() / DType::F32.size_in_bytes();
    let count: usize = dims.iter().product();
    let mut values = Vec::with_capacity(count);
    let mut index = vec![0usize; dims.len()];
    for _ in 0..count {
        let at = offset + index.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>();
        values.push(*storage.get(at)?);
        // The next index, the last dimension fastest.
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Some(values)
}

#[cfg(test)]
mod tests {
    use candle_core::{Layout, Shape};

    use super::*;

    fn info(dims: &[usize], stride: Vec<usize>, offset: usize) -> TensorInfo {
        TensorInfo {
            name: "t".into(),
            dtype: DType::F32,
            layout: Layout::new(Shape::from(dims.to_vec()), stride, offset * 4),
            path: "/0".into(),
            storage_size: 0,
        }
    }

    #[test]
    fn a_transposed_view_is_gathered_row_major() {
        // A 2×3 tensor stored column by column (as many of the look model's weights are).
        let storage = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
        let values = gather(&storage, &info(&[2, 3], vec![1, 2], 0)).unwrap();
        assert_eq!(values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // An offset view of the same storage.
        let values = gather(&storage, &info(&[2], vec![2], 1)).unwrap();
        assert_eq!(values, [4.0, 5.0]);
    }

    #[test]
    fn a_view_past_its_storage_is_refused() {
        assert!(gather(&[1.0, 2.0], &info(&[3], vec![1], 0)).is_none());
    }

    #[test]
    fn a_file_that_is_not_a_legacy_pickle_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("weights.pth");
        std::fs::write(&path, b"PK\x03\x04 a zip archive, not a legacy pickle").unwrap();
        let err = read_legacy_state_dict(&path).unwrap_err();
        assert!(err.to_string().contains("not a legacy torch.save"), "{err}");
    }
}
