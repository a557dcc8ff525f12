//! A BERT encoder for CPU inference on candle: the forward pass of Hugging Face's `BertModel`
//! (embeddings → N × [self-attention → add & norm → GELU feed-forward → add & norm]), written for
//! what a 2-core laptop wants rather than for training:
//!
//! * Q, K and V are one fused projection (one matmul instead of three), every linear a 2-D matmul;
//! * Q is scaled before `QKᵀ` (a `len × head` tensor instead of `len × len`);
//! * bias adds, GELU and the masked softmax are fused, parallel kernels ([`crate::kernels`]);
//! * a batch without padding skips the attention mask altogether.
//!
//! Weights load from a `model.safetensors` of either layout: sentence-transformers (`embeddings.…`)
//! or a `…ForSequenceClassification` checkpoint (`bert.embeddings.…`, plus `bert.pooler.…` and
//! `classifier.…`, used by [`crate::cross`]). Parity with an independent float64 reference is a test
//! (`tests/tests/vec.rs`, `tests/tests/rerank.rs`).

use std::path::Path;

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::{LayerNorm, Module, VarBuilder};
use serde::Deserialize;

use crate::kernels::{BiasAdd, BiasGelu, MaskedSoftmax};

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

    /// Hidden states `(n, len, hidden)` of a batch: `ids` and `types` are `n` rows padded to one
    /// length `len`, `lens` the real length of each row (padding is masked out of attention).
    pub fn forward(&self, ids: &[u32], types: &[u32], lens: &[usize], len: usize) -> Result<Tensor> {
        let n = lens.len();
        let dev = Device::Cpu;
        let h = self.hidden;
        let ids_t = Tensor::from_slice(ids, n * len, &dev)?;
        let types_t = Tensor::from_slice(types, n * len, &dev)?;
        let pos = Tensor::arange(0u32, len as u32, &dev)?;
        let x = self
            .word
            .index_select(&ids_t, 0)?
            .add(&self.token_type.index_select(&types_t, 0)?)?
            .reshape((n, len, h))?
            .broadcast_add(&self.position.index_select(&pos, 0)?)?
            .reshape((n * len, h))?;
        let mut x = self.emb_ln.forward(&x)?;
        let mask = if lens.iter().all(|&l| l == len) {
            None
        } else {
            let m: Vec<f32> = lens
                .iter()
                .flat_map(|&l| (0..len).map(move |j| if j < l { 0.0 } else { f32::MIN / 2.0 }))
                .collect();
            Some(Tensor::from_vec(m, (n, len), &dev)?)
        };
        for layer in &self.layers {
            x = self.layer(layer, &x, n, len, mask.as_ref())?;
        }
        x.reshape((n, len, h))
    }

    fn layer(&self, l: &Layer, x: &Tensor, n: usize, len: usize, mask: Option<&Tensor>) -> Result<Tensor> {
        let h = self.hidden;
        let hd = h / self.heads;
        // (n·len, 3h) → three (n, heads, len, hd) tensors.
        let qkv = l
            .qkv
            .forward(x)?
            .reshape((n, len, 3, self.heads, hd))?
            .permute((2, 0, 3, 1, 4))?;
        let q = (qkv.get(0)? * (1.0 / (hd as f64).sqrt()))?;
        let k = qkv.get(1)?.contiguous()?;
        let v = qkv.get(2)?.contiguous()?;
        let scores = q.matmul(&k.t()?)?;
        let probs = match mask {
            Some(m) => scores.apply_op2_no_bwd(m, &MaskedSoftmax)?,
            None => candle_nn::ops::softmax_last_dim(&scores)?,
        };
        let ctx = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((n * len, h))?;
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
