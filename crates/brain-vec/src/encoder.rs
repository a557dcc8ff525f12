//! A BERT encoder for CPU inference: the forward pass of Hugging Face's `BertModel`
//! (embeddings → N × [self-attention → add & norm → GELU feed-forward → add & norm]), written for
//! what a 2-core laptop wants rather than for training:
//!
//! * **no padding**: a batch is its sequences packed end to end (`T` tokens); every linear layer is
//!   one `T × hidden` matmul, attention runs per sequence on its own rows (in parallel), so no
//!   compute goes to padding and no attention mask exists;
//! * Q, K and V are one fused projection (one matmul instead of three);
//! * attention reads each head's Q, K and V where the fused projection wrote them and writes its
//!   context into the head's columns of the output (strided views, [`crate::mat`]): no copies,
//!   transposes or permutes; the scale `1/√d` rides on the `QKᵀ` product;
//! * bias adds, GELU and softmax are fused, parallel kernels ([`crate::kernels`]); per-sequence
//!   attention keeps the `len × len` score matrices small (a padded 16-sequence batch allocated
//!   50 MB of fresh pages per layer: 12 % of the run went to the kernel zeroing them).
//!
//! Matrices are plain row-major `Vec<f32>`s ([`Mat`]) and the products gemm-f32's kernels; the
//! encoder ran on candle's tensors until 2026-12 (issue 59: candle was 142 CPU-s of every clean
//! build, for the one product this module now calls directly).
//!
//! Weights load from a `model.safetensors` of either layout: sentence-transformers (`embeddings.…`)
//! or a `…ForSequenceClassification` checkpoint (`bert.embeddings.…`, plus `bert.pooler.…` and
//! `classifier.…`, used by [`crate::cross`]), through [`crate::weights`]: one pass per tensor, layers
//! read in parallel, the word-embedding table gathered from the mapped file rather than copied. Parity with an independent float64 reference is a test
//! (`tests/tests/vec.rs`, `tests/tests/rerank.rs`).

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::kernels::{self, AddNorm};
use crate::mat::{self, Mat, View};
use crate::q8::{self, QDense};
use crate::simd;
use crate::weights::{Matrix, Weights, transpose};

/// The encoder's errors: one line saying what did not fit.
pub type Result<T> = std::result::Result<T, String>;

macro_rules! bail {
    ($($t:tt)*) => { return Err(format!($($t)*)) };
}

pub use crate::config::BertConfig;

/// A linear layer: `W` (`(out, in)`, row-major, as stored) in one or more row blocks read in place
/// from the weights file, `Wᵀ` made on first use by a batch, and the bias.
pub(crate) struct Dense {
    /// Row blocks of `W` (several when Q, K and V are fused), each `(rows, inp)`.
    parts: Vec<Matrix>,
    inp: usize,
    out: usize,
    /// `Wᵀ`, `(in, out)` row-major, for batches; built once, when the first batch needs it.
    wt: OnceLock<Mat>,
    /// `W` quantized for the int8 kernel ([`Kernel::Int8`]); built once, when the first batch needs
    /// it (`None`: the shape does not fit, f32 it is).
    q8: OnceLock<Option<QDense>>,
    bias: Vec<f32>,
}

/// How the encoder multiplies batches (queries and other short inputs always take the f32 path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// f32 gemm (every CPU).
    F32,
    /// int8 weights × int8 activations on AVX-512 VNNI ([`crate::q8`]); only where the CPU has it.
    Int8,
}

impl Kernel {
    /// The kernel for batch embedding: `$BRAIN_EMBED_KERNEL` = `f32` | `int8` | `auto` (default:
    /// int8 where the CPU has AVX-512 VNNI, else f32). `int8` on a CPU without it is f32, said by
    /// [`Kernel::name`] in the run's report. An unknown value is an error naming the variable.
    pub fn from_env() -> std::result::Result<Kernel, String> {
        let v = brain_doc::env::get(brain_doc::env::BRAIN_EMBED_KERNEL).unwrap_or("");
        let int8 = q8::available();
        match v {
            "" | "auto" | "int8" => Ok(if int8 { Kernel::Int8 } else { Kernel::F32 }),
            "f32" => Ok(Kernel::F32),
            other => Err(format!(
                "BRAIN_EMBED_KERNEL={other}: expected f32, int8 or auto"
            )),
        }
    }

    /// `f32` or `int8-vnni`, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::F32 => "f32",
            Kernel::Int8 => "int8-vnni",
        }
    }
}

/// Up to this many rows (a query, a short passage), `x · Wᵀ` is `W · xᵀ` by dot products over the rows
/// of `W` in place ([`simd::dots_nt`]): one pass over the weights, no transposed copy of the model,
/// split over the pool by blocks of output rows. Longer inputs go to gemm with `Wᵀ`, which tiles
/// them well (measured 2026-11-23, docs/vectors.md).
const SHORT_ROWS: usize = 32;

/// Output rows per task of a short matmul (96 KB of a 384-wide `W`).
const ROWS_PER_TASK: usize = 64;

impl Dense {
    /// `<prefix>.weight` (`(out, inp)`) and `<prefix>.bias`.
    pub(crate) fn load(w: &Arc<Weights>, prefix: &str, inp: usize, out: usize) -> Result<Dense> {
        Ok(Dense {
            parts: vec![w.matrix(&format!("{prefix}.weight"), out, inp)?],
            inp,
            out,
            wt: OnceLock::new(),
            q8: OnceLock::new(),
            bias: w.tensor(&format!("{prefix}.bias"), &[out])?,
        })
    }

    /// Several layers reading the same input as one: outputs side by side.
    fn fuse(parts: Vec<Dense>) -> Result<Dense> {
        let bias: Vec<f32> = parts.iter().flat_map(|d| d.bias.iter().copied()).collect();
        let inp = parts.first().map_or(0, |d| d.inp);
        let out = parts.iter().map(|d| d.out).sum();
        Ok(Dense {
            parts: parts.into_iter().flat_map(|d| d.parts).collect(),
            inp,
            out,
            wt: OnceLock::new(),
            q8: OnceLock::new(),
            bias,
        })
    }

    /// `Wᵀ`, transposed from the weights on first use.
    fn wt(&self) -> Result<&Mat> {
        if let Some(t) = self.wt.get() {
            return Ok(t);
        }
        let parts: Vec<&Matrix> = self.parts.iter().collect();
        let t = Mat::new(self.inp, self.out, transpose(&parts))?;
        Ok(self.wt.get_or_init(|| t))
    }

    /// `W` quantized, made on first use (`None` when the shape does not fit the kernel).
    fn q8(&self) -> Option<&QDense> {
        self.q8
            .get_or_init(|| {
                let parts: Vec<&[f32]> = self.parts.iter().map(|p| p.data()).collect();
                QDense::new(&parts, self.inp)
            })
            .as_ref()
    }

    /// `x · Wᵀ` for a 2-D `x`, without the bias. With [`Kernel::Int8`]: batches always take the
    /// int8 kernel (quantizing `W` on first use); short inputs (queries) only once `W` is quantized
    /// ([`Encoder::prepare`]: a long-lived process), since quantizing costs a fresh process more
    /// than the f32 query path.
    fn matmul(&self, x: &Mat, kernel: Kernel) -> Result<Mat> {
        let m = x.rows;
        if x.cols != self.inp {
            bail!(
                "an input of {m} × {} for {} × {}",
                x.cols,
                self.out,
                self.inp
            )
        }
        let prepared = self.q8.get().is_some_and(Option::is_some);
        if kernel == Kernel::Int8
            && (m > SHORT_ROWS || prepared)
            && let Some(q) = self.q8()
        {
            let mut y = vec![0f32; m * q.out()];
            q.matmul(&x.data, &mut y);
            return Mat::new(m, self.out, y);
        }
        if m > SHORT_ROWS {
            let wt = self.wt()?;
            let mut y = vec![0f32; m * self.out];
            mat::matmul(x.view(), wt.view(), 1.0, &mut y, self.out)?;
            return Mat::new(m, self.out, y);
        }
        let xs = &x.data;
        let k = self.inp;
        // (out, m): row j holds x_i · w_j for every input row i.
        let mut wx = vec![0f32; self.out * m];
        let mut rest = wx.as_mut_slice();
        for part in &self.parts {
            let (mine, tail) = rest.split_at_mut(part.rows * m);
            rest = tail;
            let w = part.data();
            if w.len() != part.rows * k {
                bail!("a weight of {} numbers for {} × {k}", w.len(), part.rows)
            }
            mine.par_chunks_mut(ROWS_PER_TASK * m)
                .zip(w.par_chunks(ROWS_PER_TASK * k))
                .for_each(|(o, w)| simd::dots_nt(xs, k, w, o));
        }
        let mut y = vec![0f32; m * self.out];
        for (j, col) in wx.chunks_exact(m.max(1)).enumerate() {
            for (i, v) in col.iter().enumerate() {
                y[i * self.out + j] = *v;
            }
        }
        Mat::new(m, self.out, y)
    }

    pub(crate) fn forward(&self, x: &Mat, kernel: Kernel) -> Result<Mat> {
        let mut y = self.matmul(x, kernel)?;
        kernels::bias_add(&mut y.data, &self.bias)?;
        Ok(y)
    }
}

struct Layer {
    qkv: Dense,
    /// The attention's output projection; its bias is `norm1`'s.
    out: Dense,
    norm1: AddNorm,
    up: Dense,
    /// The feed-forward's down projection; its bias is `norm2`'s.
    down: Dense,
    norm2: AddNorm,
}

/// A loaded encoder. Cheap to share across threads (tensors are reference-counted).
pub struct Encoder {
    weights: Arc<Weights>,
    /// Name and row count of the word-embedding table (gathered from the mapped file).
    word: (String, usize),
    /// The position table, `max_len × hidden`.
    position: Mat,
    /// The token-type table, `types × hidden`.
    token_type: Mat,
    /// The embeddings' layer norm (a zero bias: the sum arrives whole).
    emb_ln: AddNorm,
    layers: Vec<Layer>,
    heads: usize,
    /// Hidden size.
    pub hidden: usize,
    /// Longest input the position table allows.
    pub max_len: usize,
    /// Where the `bert.` weights were (for heads that sit beside them).
    pub(crate) prefixed: bool,
    /// How batches are multiplied ([`Kernel::F32`] unless [`Encoder::with_kernel`] says otherwise).
    kernel: Kernel,
}

/// The weight and bias of the layer norm at `prefix` (`gamma`/`beta` in older exports).
fn norm_tensors(w: &Weights, prefix: &str, size: usize) -> Result<(Vec<f32>, Vec<f32>)> {
    let (a, b) = if w.has(&format!("{prefix}.gamma")) {
        ("gamma", "beta")
    } else {
        ("weight", "bias")
    };
    let t = |n: &str| w.tensor(&format!("{prefix}.{n}"), &[size]);
    Ok((t(a)?, t(b)?))
}

fn layer_norm(w: &Weights, prefix: &str, size: usize, eps: f64) -> Result<AddNorm> {
    let (gamma, beta) = norm_tensors(w, prefix, size)?;
    Ok(AddNorm {
        bias: vec![0.0; size],
        gamma,
        beta,
        eps: eps as f32,
    })
}

/// The layer norm at `prefix` fused with the residual and `dense`'s bias.
fn add_norm(w: &Weights, prefix: &str, dense: &Dense, size: usize, eps: f64) -> Result<AddNorm> {
    let (gamma, beta) = norm_tensors(w, prefix, size)?;
    Ok(AddNorm {
        bias: dense.bias.clone(),
        gamma,
        beta,
        eps: eps as f32,
    })
}

/// The first bytes of a saved copy of the quantized weights (the last byte: its format version).
const INT8_MAGIC: &[u8] = b"BRAINQ8\x01";

/// Matmuls below this many multiply-adds run on one thread. gemm's default (48·48·256 ≈ 0.6 M) wakes
/// the pool for every linear layer of a query (≈ 5–7 M each), and on 2 cores the wake-up costs more
/// than it saves: one query-sized linear took 250 µs on one thread and 460 µs on two (2026-11-22).
/// Batches (thousands of rows) stay parallel. gemm keeps this in a process-wide setting.
pub const THREADING_THRESHOLD: usize = 16 << 20;

impl Encoder {
    /// Load the encoder of `cfg` from `weights` (sentence-transformers or `bert.`-prefixed names).
    pub fn load(weights: Arc<Weights>, cfg: &BertConfig) -> Result<Encoder> {
        gemm_common::gemm::set_threading_threshold(THREADING_THRESHOLD);
        if let Err(e) = cfg.check() {
            bail!("config.json: {e}")
        }
        if !matches!(cfg.hidden_act.as_str(), "gelu" | "gelu_python") {
            bail!(
                "hidden_act `{}` is not supported (only gelu)",
                cfg.hidden_act
            )
        }
        let h = cfg.hidden_size;
        if cfg.num_attention_heads == 0 || !h.is_multiple_of(cfg.num_attention_heads) {
            bail!(
                "hidden_size {h} is not a multiple of {} heads",
                cfg.num_attention_heads
            )
        }
        let prefixed = weights.has("bert.embeddings.word_embeddings.weight");
        let p = if prefixed { "bert." } else { "" };
        let w = &weights;
        let eps = cfg.layer_norm_eps;
        let layers = (0..cfg.num_hidden_layers)
            .into_par_iter()
            .map(|i| -> Result<Layer> {
                let l = format!("{p}encoder.layer.{i}");
                let a = format!("{l}.attention");
                let qkv = Dense::fuse(vec![
                    Dense::load(w, &format!("{a}.self.query"), h, h)?,
                    Dense::load(w, &format!("{a}.self.key"), h, h)?,
                    Dense::load(w, &format!("{a}.self.value"), h, h)?,
                ])?;
                let out = Dense::load(w, &format!("{a}.output.dense"), h, h)?;
                let down = Dense::load(w, &format!("{l}.output.dense"), cfg.intermediate_size, h)?;
                Ok(Layer {
                    qkv,
                    norm1: add_norm(w, &format!("{a}.output.LayerNorm"), &out, h, eps)?,
                    out,
                    up: Dense::load(
                        w,
                        &format!("{l}.intermediate.dense"),
                        h,
                        cfg.intermediate_size,
                    )?,
                    norm2: add_norm(w, &format!("{l}.output.LayerNorm"), &down, h, eps)?,
                    down,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let e = format!("{p}embeddings");
        let word = format!("{e}.word_embeddings.weight");
        match w.shape(&word) {
            None => bail!("no tensor `{word}`"),
            // Its rows are read per token later: the shape is checked now, so a config of
            // another model is refused at load, not at the first text.
            Some(shape) if shape != [cfg.vocab_size, h] => bail!(
                "`{word}` has shape {shape:?}, expected [{}, {h}] (config.json's vocab_size and hidden_size)",
                cfg.vocab_size
            ),
            Some(_) => {}
        }
        let table = |name: String, rows: usize| -> Result<Mat> {
            Mat::new(rows, h, w.tensor(&name, &[rows, h])?)
        };
        Ok(Encoder {
            position: table(
                format!("{e}.position_embeddings.weight"),
                cfg.max_position_embeddings,
            )?,
            token_type: table(
                format!("{e}.token_type_embeddings.weight"),
                cfg.type_vocab_size,
            )?,
            emb_ln: layer_norm(w, &format!("{e}.LayerNorm"), h, eps)?,
            word: (word, cfg.vocab_size),
            layers,
            heads: cfg.num_attention_heads,
            hidden: h,
            max_len: cfg.max_position_embeddings,
            prefixed,
            weights,
            kernel: Kernel::F32,
        })
    }

    /// This encoder with batches multiplied by `kernel` ([`Kernel::Int8`] falls back to f32 on a CPU
    /// without AVX-512 VNNI).
    pub fn with_kernel(mut self, kernel: Kernel) -> Encoder {
        self.kernel = if kernel == Kernel::Int8 && !q8::available() {
            Kernel::F32
        } else {
            kernel
        };
        self
    }

    /// The kernel batches are multiplied with.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The linear layers in a fixed order (the saved copy's).
    fn denses(&self) -> impl Iterator<Item = &Dense> {
        self.layers
            .iter()
            .flat_map(|l| [&l.qkv, &l.out, &l.up, &l.down])
    }

    /// The quantized weights as bytes for [`Encoder::load_int8`], under `key` (what they were made
    /// from); `None` unless every layer is quantized.
    pub fn int8_bytes(&self, key: &[u8]) -> Option<Vec<u8>> {
        if self.kernel != Kernel::Int8
            || !self.denses().all(|d| matches!(d.q8.get(), Some(Some(_))))
        {
            return None;
        }
        let mut out = Vec::with_capacity(24 << 20);
        out.extend_from_slice(INT8_MAGIC);
        out.extend_from_slice(&(key.len() as u32).to_le_bytes());
        out.extend_from_slice(key);
        out.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for d in self.denses() {
            d.q8.get()?.as_ref()?.write_to(&mut out);
        }
        Some(out)
    }

    /// Take the quantized weights from a copy [`Encoder::int8_bytes`] wrote (mapped, read in
    /// place): every layer or none. False when the copy is not for `key`, not for this model's
    /// shapes, or cut short — then nothing changes.
    pub fn load_int8(&self, map: &Arc<memmap2::Mmap>, key: &[u8]) -> bool {
        if self.kernel != Kernel::Int8 || !map.starts_with(INT8_MAGIC) {
            return false;
        }
        let mut at = INT8_MAGIC.len();
        let u32_next = |at: &mut usize| -> Option<usize> {
            let b = map.get(*at..*at + 4)?;
            *at += 4;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let Some(klen) = u32_next(&mut at) else {
            return false;
        };
        if map.get(at..at + klen) != Some(key) {
            return false;
        }
        at += klen;
        if u32_next(&mut at) != Some(self.layers.len()) {
            return false;
        }
        let mut got = Vec::new();
        for d in self.denses() {
            match QDense::from_bytes(map, &mut at, d.out, d.inp) {
                Some(q) => got.push(q),
                None => return false,
            }
        }
        if at != map.len() {
            return false;
        }
        for (d, q) in self.denses().zip(got) {
            let _ = d.q8.set(Some(q));
        }
        true
    }

    /// Quantize every linear layer now (~20 ms), so that short inputs — queries — take the int8
    /// kernel too (a warm MCP session's query embedding: docs/vectors.md). Nothing with
    /// [`Kernel::F32`].
    pub fn prepare(&self) {
        if self.kernel != Kernel::Int8 {
            return;
        }
        self.layers.par_iter().for_each(|l| {
            for d in [&l.qkv, &l.out, &l.up, &l.down] {
                let _ = d.q8();
            }
        });
    }

    /// Hidden states `(T, hidden)` of a batch of sequences packed end to end: `ids` and `types` hold
    /// every sequence's tokens one after the other (`T` in all), `lens` each sequence's length.
    /// Sequence `i`'s rows start at the sum of the lengths before it.
    pub fn forward(&self, ids: &[u32], types: &[u32], lens: &[usize]) -> Result<Mat> {
        // On a pool thread, the parallel pieces (gemm, kernels, attention) fork and join within the
        // pool instead of parking and waking the caller for each of ~100 operations.
        rayon::scope(|_| self.forward_in_pool(ids, types, lens))
    }

    fn forward_in_pool(&self, ids: &[u32], types: &[u32], lens: &[usize]) -> Result<Mat> {
        let t = ids.len();
        let h = self.hidden;
        if types.len() != t || lens.iter().sum::<usize>() != t {
            bail!(
                "{t} ids, {} types, lengths summing to {}",
                types.len(),
                lens.iter().sum::<usize>()
            )
        }
        if let Some(l) = lens.iter().find(|&&l| l > self.max_len) {
            bail!(
                "a sequence of {l} tokens is longer than the model's {}",
                self.max_len
            )
        }
        let (word, vocab) = &self.word;
        let words = self.weights.rows(word, *vocab, h, ids)?;
        // Each token's type row plus its position's, the residual the norm adds to its word row.
        let mut extra = Vec::with_capacity(t * h);
        let positions = lens.iter().flat_map(|&l| 0..l);
        for (&ty, p) in types.iter().zip(positions) {
            let ty = ty as usize;
            if ty >= self.token_type.rows {
                bail!("token type {ty} of a model with {}", self.token_type.rows)
            }
            let (a, b) = (self.token_type.row(ty), self.position.row(p));
            extra.extend(a.iter().zip(b).map(|(a, b)| a + b));
        }
        let mut x = Mat::new(t, h, self.emb_ln.apply(&words, &extra)?)?;
        let mut spans = Vec::with_capacity(lens.len());
        let mut at = 0;
        for &l in lens {
            spans.push((at, l));
            at += l;
        }
        for layer in &self.layers {
            x = self.layer(layer, &x, &spans)?;
        }
        Ok(x)
    }

    fn layer(&self, l: &Layer, x: &Mat, spans: &[(usize, usize)]) -> Result<Mat> {
        let h = self.hidden;
        let heads = self.heads;
        let hd = h / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let kn = self.kernel;
        let qkv = l.qkv.forward(x, kn)?;
        let q3 = &qkv.data;
        // Attention per sequence, on its own rows of the packed batch, each head reading its Q, K
        // and V columns in place and writing its context into its columns of `ctx`. (A fused kernel
        // of plain loops, register-tiled, was measured against gemm on 2026-11-27: 8,610 against
        // 10,379 tokens/s with bge. gemm wins.)
        let attend = |(at, len): (usize, usize), out: &mut [f32]| -> Result<()> {
            let mut scores = vec![0f32; len * len];
            for head in 0..heads {
                let col = head * hd;
                let q = View::block(q3, 3 * h, at, len, col, hd);
                let k = View::block(q3, 3 * h, at, len, h + col, hd);
                let v = View::block(q3, 3 * h, at, len, 2 * h + col, hd);
                mat::matmul(q, k.t(), scale, &mut scores, len)?;
                kernels::softmax(&mut scores, len)?;
                let probs = View::block(&scores, len, 0, len, 0, len);
                mat::matmul(probs, v, 1.0, out.get_mut(col..).unwrap_or(&mut []), h)?;
            }
            Ok(())
        };
        let mut ctx = vec![0f32; x.rows * h];
        // Each sequence's rows of `ctx`, apart.
        let mut parts: Vec<((usize, usize), &mut [f32])> = Vec::with_capacity(spans.len());
        let mut rest = ctx.as_mut_slice();
        for &(at, len) in spans {
            let (mine, tail) = rest.split_at_mut((len * h).min(rest.len()));
            rest = tail;
            if len > 0 {
                parts.push(((at, len), mine));
            }
        }
        // One short input (a query) is not worth waking the pool for.
        if parts.len() > 1 {
            parts
                .into_par_iter()
                .try_for_each(|(span, out)| attend(span, out))?;
        } else {
            parts
                .into_iter()
                .try_for_each(|(span, out)| attend(span, out))?;
        }
        let ctx = Mat::new(x.rows, h, ctx)?;
        let a = Mat::new(
            x.rows,
            h,
            l.norm1.apply(&l.out.matmul(&ctx, kn)?.data, &x.data)?,
        )?;
        // The matmul's own output, made gelu(x + bias) in place.
        let mut up = l.up.matmul(&a, kn)?;
        kernels::bias_gelu(&mut up.data, &l.up.bias)?;
        Mat::new(
            x.rows,
            h,
            l.norm2.apply(&l.down.matmul(&up, kn)?.data, &a.data)?,
        )
    }
}
