//! A BERT encoder for CPU inference on candle: the forward pass of Hugging Face's `BertModel`
//! (embeddings → N × [self-attention → add & norm → GELU feed-forward → add & norm]), written for
//! what a 2-core laptop wants rather than for training:
//!
//! * **no padding**: a batch is its sequences packed end to end (`T` tokens); every linear layer is
//!   one `T × hidden` matmul, attention runs per sequence on its own rows (in parallel), so no
//!   compute goes to padding and no attention mask exists;
//! * Q, K and V are one fused projection (one matmul instead of three);
//! * Q is scaled before `QKᵀ` (a `len × head` tensor instead of `len × len`);
//! * bias adds, GELU and softmax are fused, parallel kernels ([`crate::kernels`]); per-sequence
//!   attention keeps the `heads × len × len` score tensors small (a padded 16-sequence batch allocated
//!   50 MB of fresh pages per layer: 12 % of the run went to the kernel zeroing them).
//!
//! Weights load from a `model.safetensors` of either layout: sentence-transformers (`embeddings.…`)
//! or a `…ForSequenceClassification` checkpoint (`bert.embeddings.…`, plus `bert.pooler.…` and
//! `classifier.…`, used by [`crate::cross`]). Parity with an independent float64 reference is a test
//! (`tests/tests/vec.rs`, `tests/tests/rerank.rs`).

use std::path::Path;

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::{LayerNorm, Module, VarBuilder};
use serde::Deserialize;

use rayon::prelude::*;

use crate::kernels::{BiasAdd, BiasGelu, Softmax};

/// The fields of a BERT `config.json` the forward pass needs.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    #[serde(default = "default_positions")]
    pub max_position_embeddings: usize,
    #[serde(default = "default_types")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// Outputs of a sequence-classification head (1 for a relevance cross-encoder).
    #[serde(default)]
    pub num_labels: Option<usize>,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_positions() -> usize {
    512
}
fn default_types() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}

/// A linear layer kept as `Wᵀ` (contiguous, ready for `x · Wᵀ`) and its bias.
struct Dense {
    wt: Tensor,
    bias: Tensor,
}

impl Dense {
    fn load(vb: VarBuilder, inp: usize, out: usize) -> Result<Dense> {
        let w = vb.get((out, inp), "weight")?;
        Ok(Dense {
            wt: w.t()?.contiguous()?,
            bias: vb.get(out, "bias")?,
        })
    }

    /// Several layers reading the same input as one: weights side by side.
    fn fuse(parts: &[Dense]) -> Result<Dense> {
        let wts: Vec<&Tensor> = parts.iter().map(|d| &d.wt).collect();
        let bs: Vec<&Tensor> = parts.iter().map(|d| &d.bias).collect();
        Ok(Dense {
            wt: Tensor::cat(&wts, 1)?,
            bias: Tensor::cat(&bs, 0)?,
        })
    }

    /// `x · Wᵀ` for a 2-D `x`, without the bias.
    fn matmul(&self, x: &Tensor) -> Result<Tensor> {
        x.matmul(&self.wt)
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.matmul(x)?.apply_op2_no_bwd(&self.bias, &BiasAdd)
    }
}

struct Layer {
    qkv: Dense,
    out: Dense,
    ln1: LayerNorm,
    up: Dense,
    down: Dense,
    ln2: LayerNorm,
}

/// A loaded encoder. Cheap to share across threads (tensors are reference-counted).
pub struct Encoder {
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    emb_ln: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    /// Hidden size.
    pub hidden: usize,
    /// Longest input the position table allows.
    pub max_len: usize,
    /// Where the `bert.` weights were (for heads that sit beside them).
    pub(crate) prefixed: bool,
}

fn layer_norm(vb: VarBuilder, size: usize, eps: f64) -> Result<LayerNorm> {
    let (w, b) = if vb.contains_tensor("gamma") {
        (vb.get(size, "gamma")?, vb.get(size, "beta")?)
    } else {
        (vb.get(size, "weight")?, vb.get(size, "bias")?)
    };
    Ok(LayerNorm::new(w, b, eps))
}

impl Encoder {
    /// Load the encoder of `cfg` from `vb` (the root of the safetensors file).
    pub fn load(vb: VarBuilder, cfg: &BertConfig) -> Result<Encoder> {
        if !matches!(cfg.hidden_act.as_str(), "gelu" | "gelu_python") {
            candle_core::bail!("hidden_act `{}` is not supported (only gelu)", cfg.hidden_act)
        }
        let h = cfg.hidden_size;
        if cfg.num_attention_heads == 0 || h % cfg.num_attention_heads != 0 {
            candle_core::bail!("hidden_size {h} is not a multiple of {} heads", cfg.num_attention_heads)
        }
        let prefixed = vb.contains_tensor("bert.embeddings.word_embeddings.weight");
        let vb = if prefixed { vb.pp("bert") } else { vb };
        let e = vb.pp("embeddings");
        let eps = cfg.layer_norm_eps;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            let qkv = Dense::fuse(&[
                Dense::load(a.pp("self.query"), h, h)?,
                Dense::load(a.pp("self.key"), h, h)?,
                Dense::load(a.pp("self.value"), h, h)?,
            ])?;
            layers.push(Layer {
                qkv,
                out: Dense::load(a.pp("output.dense"), h, h)?,
                ln1: layer_norm(a.pp("output.LayerNorm"), h, eps)?,
                up: Dense::load(l.pp("intermediate.dense"), h, cfg.intermediate_size)?,
                down: Dense::load(l.pp("output.dense"), cfg.intermediate_size, h)?,
                ln2: layer_norm(l.pp("output.LayerNorm"), h, eps)?,
            });
        }
        Ok(Encoder {
            word: e.get((cfg.vocab_size, h), "word_embeddings.weight")?,
            position: e.get((cfg.max_position_embeddings, h), "position_embeddings.weight")?,
            token_type: e.get((cfg.type_vocab_size, h), "token_type_embeddings.weight")?,
            emb_ln: layer_norm(e.pp("LayerNorm"), h, eps)?,
            layers,
            heads: cfg.num_attention_heads,
            hidden: h,
            max_len: cfg.max_position_embeddings,
            prefixed,
        })
    }

    /// Hidden states `(T, hidden)` of a batch of sequences packed end to end: `ids` and `types` hold
    /// every sequence's tokens one after the other (`T` in all), `lens` each sequence's length.
    /// Sequence `i`'s rows start at the sum of the lengths before it.
    pub fn forward(&self, ids: &[u32], types: &[u32], lens: &[usize]) -> Result<Tensor> {
        let dev = Device::Cpu;
        let t = ids.len();
        if types.len() != t || lens.iter().sum::<usize>() != t {
            candle_core::bail!("{t} ids, {} types, lengths summing to {}", types.len(), lens.iter().sum::<usize>())
        }
        if let Some(l) = lens.iter().find(|&&l| l > self.max_len) {
            candle_core::bail!("a sequence of {l} tokens is longer than the model's {}", self.max_len)
        }
        let pos: Vec<u32> = lens.iter().flat_map(|&l| 0..l as u32).collect();
        let ids_t = Tensor::from_slice(ids, t, &dev)?;
        let types_t = Tensor::from_slice(types, t, &dev)?;
        let pos_t = Tensor::from_vec(pos, t, &dev)?;
        let x = self
            .word
            .index_select(&ids_t, 0)?
            .add(&self.token_type.index_select(&types_t, 0)?)?
            .add(&self.position.index_select(&pos_t, 0)?)?;
        let mut x = self.emb_ln.forward(&x)?;
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

    fn layer(&self, l: &Layer, x: &Tensor, spans: &[(usize, usize)]) -> Result<Tensor> {
        let h = self.hidden;
        let hd = h / self.heads;
        let scale = 1.0 / (hd as f64).sqrt();
        let qkv = l.qkv.forward(x)?;
        // Attention per sequence, on its own rows of the packed batch.
        let ctx: Vec<Tensor> = spans
            .par_iter()
            .filter(|(_, len)| *len > 0)
            .map(|&(at, len)| -> Result<Tensor> {
                // (len, 3h) → (3, heads, len, hd)
                let s = qkv
                    .narrow(0, at, len)?
                    .reshape((len, 3, self.heads, hd))?
                    .permute((1, 2, 0, 3))?;
                let q = (s.get(0)? * scale)?;
                let k = s.get(1)?.contiguous()?;
                let v = s.get(2)?.contiguous()?;
                let probs = q.matmul(&k.t()?)?.apply_op1_no_bwd(&Softmax)?;
                probs.matmul(&v)?.transpose(0, 1)?.contiguous()?.reshape((len, h))
            })
            .collect::<Result<_>>()?;
        let ctx = Tensor::cat(&ctx, 0)?;
        let a = l.ln1.forward(&l.out.forward(&ctx)?.add(x)?)?;
        let up = l.up.matmul(&a)?.apply_op2_no_bwd(&l.up.bias, &BiasGelu)?;
        l.ln2.forward(&l.down.forward(&up)?.add(&a)?)
    }
}

/// Map the weights of `path` rather than reading them (model load drops by one 90 MB copy).
#[allow(unsafe_code)]
pub fn weights(path: &Path) -> Result<VarBuilder<'static>> {
    // SAFETY: model files are installed by a rename (fetch.rs) and never written in place, so the
    // mapping does not change while the tensors are built from it (they are copied out at load).
    unsafe { VarBuilder::from_mmaped_safetensors(&[path], DType::F32, &Device::Cpu) }
}

