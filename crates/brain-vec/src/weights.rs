//! Reading a `model.safetensors` for CPU inference with one pass over each tensor.
//!
//! candle's `VarBuilder` (which the encoder used before) copies every tensor out of the mapped file,
//! and the encoder then copied the linear weights a second time to transpose them; with the 47 MB
//! word-embedding table that was ~90 ms of a fresh process's model load. Here:
//!
//! * the file is memory-mapped and its header parsed once (the `safetensors` crate);
//! * a linear weight is not copied at all when it is stored as aligned f32 (the usual case): a
//!   [`Matrix`] reads it in place from the mapping; a query's matmuls use it as is (`simd::dots_nt`),
//!   and only batch inference makes a transposed copy (one blocked pass, on first use);
//! * the word-embedding table is never copied: [`Weights::rows`] gathers the rows a batch needs.
//!
//! f32, f16 and bf16 tensors are read (converted to f32).

use std::path::Path;
use std::sync::Arc;

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

    /// The shape of tensor `name`, when there is one (nothing is read).
    pub fn shape(&self, name: &str) -> Option<Vec<usize>> {
        self.meta.info(name).map(|i| i.shape.clone())
    }

    /// Whether a tensor of that name exists.
    pub fn has(&self, name: &str) -> bool {
        self.meta.info(name).is_some()
    }

    /// The raw bytes and dtype of `name`, checked against `shape`: a float tensor.
    fn raw(&self, name: &str, shape: &[usize]) -> Result<(&[u8], Dtype), Error> {
        match self.stored(name, shape)? {
            (_, Dtype::I8) => Err(format!("`{name}` is I8; f32, f16 or bf16 expected")),
            r => Ok(r),
        }
    }

    /// The raw bytes and dtype of `name`, checked against `shape`: a float tensor, or an i8
    /// table with block scales (see [`Weights::rows`]).
    fn stored(&self, name: &str, shape: &[usize]) -> Result<(&[u8], Dtype), Error> {
        let info = self
            .meta
            .info(name)
            .ok_or_else(|| format!("no tensor `{name}`"))?;
        if info.shape != shape {
            return Err(format!(
                "`{name}` has shape {:?}, expected {shape:?}",
                info.shape
            ));
        }
        let (a, b) = info.data_offsets;
        let bytes = self
            .map
            .get(self.base + a..self.base + b)
            .ok_or_else(|| format!("`{name}` lies outside the file"))?;
        let width = match info.dtype {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::BF16 => 2,
            Dtype::I8 => 1,
            d => return Err(format!("`{name}` is {d:?}; f32, f16 or bf16 expected")),
        };
        if bytes.len() != shape.iter().product::<usize>() * width {
            return Err(format!(
                "`{name}`: {} bytes for shape {shape:?}",
                bytes.len()
            ));
        }
        Ok((bytes, info.dtype))
    }

    /// Element `i` of a raw tensor as f32.
    #[inline(always)]
    fn at(bytes: &[u8], dtype: Dtype, i: usize) -> f32 {
        match dtype {
            Dtype::F32 => f32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ]),
            Dtype::F16 => half::f16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]).to_f32(),
            _ => half::bf16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]).to_f32(),
        }
    }

    /// The `(rows, cols)` matrix `name`, row-major: in place when stored as aligned f32, else converted.
    pub fn matrix(self: &Arc<Self>, name: &str, rows: usize, cols: usize) -> Result<Matrix, Error> {
        let (bytes, dtype) = self.raw(name, &[rows, cols])?;
        let data = if dtype == Dtype::F32 && bytemuck::try_cast_slice::<u8, f32>(bytes).is_ok() {
            let start = bytes.as_ptr() as usize - self.map.as_ptr() as usize;
            Data::Mapped(Arc::clone(self), start..start + bytes.len())
        } else {
            Data::Owned(
                (0..rows * cols)
                    .map(|i| Self::at(bytes, dtype, i))
                    .collect(),
            )
        };
        Ok(Matrix { data, rows, cols })
    }

    /// `name`, a tensor of `shape`, as f32 numbers in row-major order.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, Error> {
        let (bytes, dtype) = self.raw(name, shape)?;
        let n: usize = shape.iter().product();
        Ok((0..n).map(|i| Self::at(bytes, dtype, i)).collect())
    }

    /// The `(rows, cols)` matrix `name` transposed, `(cols, rows)` row-major, read in one blocked pass.
    pub fn transposed(
        self: &Arc<Self>,
        name: &str,
        rows: usize,
        cols: usize,
    ) -> Result<crate::mat::Mat, Error> {
        let m = self.matrix(name, rows, cols)?;
        crate::mat::Mat::new(cols, rows, transpose(&[&m]))
    }

    /// Rows `ids` of the `(n, dim)` table `name`, without copying the table; an id past the table is
    /// an error.
    ///
    /// An i8 table (a 4-bit model's, [`crate::q4`]) has its scales beside it, `{name}.scales`
    /// (`[n, dim / block]`, float): element `j` of a row is its i8 value times the scale of its
    /// block `j / block`.
    pub fn rows(&self, name: &str, n: usize, dim: usize, ids: &[u32]) -> Result<Vec<f32>, Error> {
        let (bytes, dtype) = self.stored(name, &[n, dim])?;
        let scaled = if dtype == Dtype::I8 {
            let scales = format!("{name}.scales");
            let blocks = self
                .shape(&scales)
                .and_then(|s| s.get(1).copied())
                .filter(|&b| b > 0 && dim.is_multiple_of(b))
                .ok_or_else(|| format!("`{name}` is I8 without `{scales}` of [{n}, blocks]"))?;
            let (sb, st) = self.raw(&scales, &[n, blocks])?;
            Some((sb, st, blocks, dim / blocks))
        } else {
            None
        };
        let mut out = Vec::with_capacity(ids.len() * dim);
        for &id in ids {
            let id = id as usize;
            if id >= n {
                return Err(format!("token id {id} is past `{name}` ({n} rows)"));
            }
            match scaled {
                None => out.extend((id * dim..(id + 1) * dim).map(|i| Self::at(bytes, dtype, i))),
                Some((sb, st, blocks, width)) => out.extend((0..dim).map(|j| {
                    let scale = Self::at(sb, st, id * blocks + j / width);
                    f32::from(bytes[id * dim + j] as i8) * scale
                })),
            }
        }
        Ok(out)
    }
}

/// A safetensors file of `tensors` (name, dtype, shape, little-endian bytes), as brain writes
/// converted models ([`crate::onnx`], [`crate::q4`]).
pub fn serialize(tensors: &[(String, Dtype, Vec<usize>, Vec<u8>)]) -> Result<Vec<u8>, Error> {
    let views = tensors
        .iter()
        .map(|(n, dtype, shape, bytes)| {
            safetensors::tensor::TensorView::new(*dtype, shape.clone(), bytes)
                .map(|v| (n.clone(), v))
                .map_err(|e| format!("`{n}`: {e}"))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    safetensors::serialize(views, None).map_err(|e| e.to_string())
}

/// Where a [`Matrix`]'s numbers are.
enum Data {
    /// A byte range of the mapped file, aligned f32.
    Mapped(Arc<Weights>, std::ops::Range<usize>),
    /// Converted (f16, bf16, or unaligned f32).
    Owned(Vec<f32>),
}

/// A row-major f32 matrix of a weights file.
pub struct Matrix {
    data: Data,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
}

impl Matrix {
    /// The numbers, row-major.
    pub fn data(&self) -> &[f32] {
        match &self.data {
            // The range was checked to cast when the matrix was made.
            Data::Mapped(w, r) => w
                .map
                .get(r.clone())
                .and_then(|b| bytemuck::try_cast_slice(b).ok())
                .unwrap_or(&[]),
            Data::Owned(v) => v,
        }
    }
}

/// Matrices of equal column count stacked by rows, transposed: `(cols, Σ rows)` row-major, in one
/// blocked pass.
pub fn transpose(parts: &[&Matrix]) -> Vec<f32> {
    const B: usize = 32;
    let cols = parts.first().map_or(0, |m| m.cols);
    let total: usize = parts.iter().map(|m| m.rows).sum();
    let mut out = vec![0f32; total * cols];
    let mut at = 0;
    for m in parts {
        let d = m.data();
        for r0 in (0..m.rows).step_by(B) {
            for c0 in (0..cols).step_by(B) {
                for r in r0..(r0 + B).min(m.rows) {
                    for c in c0..(c0 + B).min(cols) {
                        out[c * total + at + r] = d[r * cols + c];
                    }
                }
            }
        }
        at += m.rows;
    }
    out
}
