//! A BERT-family model's `config.json`: the fields the forward pass needs, and the bounds a model
//! must keep to be loaded at all (checked before any weight is read).

use serde::Deserialize;

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

/// The largest model this loader accepts, field by field: a config past these is not a text
/// embedder or cross-encoder of the sizes brain runs (BERT-large is 1024 × 24 × 16, 4096 wide,
/// 512 positions) and would allocate absurdly before any weight is read. Our choice (2026-11-26).
const MAX_HIDDEN: usize = 4096;
const MAX_LAYERS: usize = 48;
const MAX_INTERMEDIATE: usize = 16_384;
const MAX_POSITIONS: usize = 32_768;
const MAX_VOCAB: usize = 1_000_000;
const MAX_TYPES: usize = 16;

impl BertConfig {
    /// Why this config cannot be a model brain runs (a size of 0 or past the bounds above, heads
    /// that do not divide the width, a layer-norm epsilon that is not a small positive number).
    pub fn check(&self) -> std::result::Result<(), String> {
        let field = |name: &str, v: usize, max: usize| -> std::result::Result<(), String> {
            if v == 0 || v > max {
                Err(format!(
                    "{name} {v} is not a size this loader runs (1 to {max})"
                ))
            } else {
                Ok(())
            }
        };
        field("hidden_size", self.hidden_size, MAX_HIDDEN)?;
        field("num_hidden_layers", self.num_hidden_layers, MAX_LAYERS)?;
        field(
            "intermediate_size",
            self.intermediate_size,
            MAX_INTERMEDIATE,
        )?;
        field(
            "max_position_embeddings",
            self.max_position_embeddings,
            MAX_POSITIONS,
        )?;
        field("vocab_size", self.vocab_size, MAX_VOCAB)?;
        field("type_vocab_size", self.type_vocab_size, MAX_TYPES)?;
        field(
            "num_attention_heads",
            self.num_attention_heads,
            self.hidden_size,
        )?;
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(format!(
                "hidden_size {} is not a multiple of {} heads",
                self.hidden_size, self.num_attention_heads
            ));
        }
        if !(self.layer_norm_eps > 0.0 && self.layer_norm_eps < 1.0) {
            return Err(format!(
                "layer_norm_eps {} is not in (0, 1)",
                self.layer_norm_eps
            ));
        }
        Ok(())
    }
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
