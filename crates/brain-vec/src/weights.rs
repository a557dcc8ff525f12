//! Reading a `model.safetensors` for CPU inference with one pass over each tensor.
//!
//! candle's `VarBuilder` copies every tensor out of the mapped file, and our encoder then copied the
//! linear weights a second time to transpose them; with the 47 MB word-embedding table that was
//! ~90 ms of a fresh process's model load. Here:
//!
//! * the file is memory-mapped and its header parsed once (the `safetensors` crate candle uses);
//! * a linear weight is read straight into its transposed layout (one pass, blocked), and the layers
//!   are read in parallel;
//! * the word-embedding table is never copied: [`Weights::rows`] gathers the rows a batch needs.
//!
//! f32, f16 and bf16 tensors are read (converted to f32).

use std::path::Path;

use candle_core::{Device, Tensor};
use memmap2::Mmap;
use safetensors::tensor::{Dtype, Metadata};

/// A mapped weights file.
pub struct Weights {
    map: Mmap,
    meta: Metadata,
    /// Offset of the data section (8 + header length).
    base: usize,
}

/// Why a weight could not be read.
pub type Error = String;

impl Weights {
    /// Map and parse `path`.
    #[allow(unsafe_code)]
    pub fn open(path: &Path) -> Result<Weights, Error> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // SAFETY: model files are installed by a rename (fetch.rs) and never written in place, so the
        // mapping does not change under us; a deleted file stays mapped intact on Unix.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| e.to_string())?;
        let (header, meta) =
            safetensors::SafeTensors::read_metadata(&map).map_err(|e| e.to_string())?;
        Ok(Weights {
            map,
            meta,
            base: 8 + header,
        })
    }

    /// Whether a tensor of that name exists.
    pub fn has(&self, name: &str) -> bool {
        self.meta.info(name).is_some()
    }

    /// The raw bytes, dtype and shape of `name`, checked against `shape`.
    fn raw(&self, name: &str, shape: &[usize]) -> Result<(&[u8], Dtype), Error> {
        let info = self
            .meta
            .info(name)
            .ok_or_else(|| format!("no tensor `{name}`"))?;
        if info.shape != shape {
            return Err(format!("`{name}` has shape {:?}, expected {shape:?}", info.shape));
        }
        let (a, b) = info.data_offsets;
        let bytes = self
            .map
            .get(self.base + a..self.base + b)
            .ok_or_else(|| format!("`{name}` lies outside the file"))?;
        let width = match info.dtype {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::BF16 => 2,
            d => return Err(format!("`{name}` is {d:?}; f32, f16 or bf16 expected")),
        };
        if bytes.len() != shape.iter().product::<usize>() * width {
            return Err(format!("`{name}`: {} bytes for shape {shape:?}", bytes.len()));
        }
        Ok((bytes, info.dtype))
    }

    /// Element `i` of a raw tensor as f32.
    #[inline(always)]
    fn at(bytes: &[u8], dtype: Dtype, i: usize) -> f32 {
        match dtype {
            Dtype::F32 => {
                f32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]])
            }
            Dtype::F16 => half::f16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]).to_f32(),
            _ => half::bf16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]).to_f32(),
        }
    }

    /// `name` as an f32 tensor of `shape`.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<Tensor, Error> {
        let (bytes, dtype) = self.raw(name, shape)?;
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|i| Self::at(bytes, dtype, i)).collect();
        Tensor::from_vec(v, shape, &Device::Cpu).map_err(|e| e.to_string())
    }

    /// The `(rows, cols)` matrix `name` transposed, `(cols, rows)` row-major, read in one blocked pass.
    pub fn transposed(&self, name: &str, rows: usize, cols: usize) -> Result<Tensor, Error> {
        let (bytes, dtype) = self.raw(name, &[rows, cols])?;
        const B: usize = 32;
        let mut out = vec![0f32; rows * cols];
        for r0 in (0..rows).step_by(B) {
            for c0 in (0..cols).step_by(B) {
                for r in r0..(r0 + B).min(rows) {
                    for c in c0..(c0 + B).min(cols) {
                        out[c * rows + r] = Self::at(bytes, dtype, r * cols + c);
                    }
                }
            }
        }
        Tensor::from_vec(out, (cols, rows), &Device::Cpu).map_err(|e| e.to_string())
    }

    /// Rows `ids` of the `(n, dim)` table `name`, without copying the table; an id past the table is
    /// an error.
    pub fn rows(&self, name: &str, n: usize, dim: usize, ids: &[u32]) -> Result<Vec<f32>, Error> {
        let (bytes, dtype) = self.raw(name, &[n, dim])?;
        let mut out = Vec::with_capacity(ids.len() * dim);
        for &id in ids {
            let id = id as usize;
            if id >= n {
                return Err(format!("token id {id} is past `{name}` ({n} rows)"));
            }
            out.extend((id * dim..(id + 1) * dim).map(|i| Self::at(bytes, dtype, i)));
        }
        Ok(out)
    }
}
