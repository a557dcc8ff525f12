//! The cross-encoder reranker: a BERT `…ForSequenceClassification` checkpoint (e.g.
//! `cross-encoder/ms-marco-MiniLM-L-6-v2`) that reads `[CLS] query [SEP] passage [SEP]` and scores how
//! well the passage answers the query. Score = classifier(tanh(pooler(h[CLS]))); with one label the
//! relevance is its sigmoid, as sentence-transformers' `CrossEncoder` reports it.
//!
//! The folder holds `config.json`, `tokenizer.json` and `model.safetensors`. Parity with an
//! independent float64 forward pass is proven on a tiny random-weight fixture
//! (`tests/fixtures/rerank-tiny/`, `tests/rerank_reference.py`).

use std::path::Path;

use tokenizers::{Tokenizer, TruncationParams, TruncationStrategy};

use crate::VecError;
use crate::encoder::{BertConfig, Encoder};
use crate::mat::Mat;
use crate::weights::Weights;

/// Longest `[CLS] query [SEP] passage [SEP]` input by default: 192 tokens, measured with the shipped
/// ms-marco-MiniLM-L-12-v2 over SciFact's hybrid top 10 (issue 56, 2026-11-28, AMD EPYC, 2 cores): a
/// fresh reranked query p50 369 ms against 459 ms at 256, nDCG@10 0.7265 against 0.7270.
pub const DEFAULT_MAX_TOKENS: usize = 192;

/// A loaded cross-encoder.
pub struct CrossEncoder {
    model: Encoder,
    /// The pooler's `Wᵀ` (`hidden × hidden`) and bias, where the model has one.
    pooler: Option<(Mat, Vec<f32>)>,
    /// The classifier's `Wᵀ` (`hidden × labels`) and bias.
    classifier: (Mat, Vec<f32>),
    tokenizer: Tokenizer,
    labels: usize,
}

impl CrossEncoder {
    /// Load the folder `dir`; inputs are truncated (longest side first) to `max_tokens`.
    pub fn load(dir: &Path, max_tokens: usize) -> Result<CrossEncoder, VecError> {
        let (cfg_path, tok_path, w_path) = crate::bert::model_files(dir)?;
        let broken = |reason: String| VecError::ModelBroken {
            path: dir.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(&cfg_path).map_err(VecError::io(&cfg_path))?;
        let cfg: BertConfig =
            serde_json::from_str(&text).map_err(|e| broken(format!("config.json: {e}")))?;
        let labels = cfg.num_labels.unwrap_or(1).max(1);
        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| broken(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens.min(cfg.max_position_embeddings).max(8),
                strategy: TruncationStrategy::LongestFirst,
                ..TruncationParams::default()
            }))
            .map_err(|e| broken(format!("tokenizer.json: {e}")))?;
        let w = |e: String| broken(format!("model.safetensors: {e}"));
        let weights = std::sync::Arc::new(Weights::open(&w_path).map_err(w)?);
        let model = Encoder::load(weights.clone(), &cfg).map_err(w)?;
        let h = cfg.hidden_size;
        let linear = |prefix: &str, out: usize| -> Result<(Mat, Vec<f32>), String> {
            Ok((
                weights.transposed(&format!("{prefix}.weight"), out, h)?,
                weights.tensor(&format!("{prefix}.bias"), &[out])?,
            ))
        };
        let pooler_name = if model.prefixed {
            "bert.pooler.dense"
        } else {
            "pooler.dense"
        };
        let pooler = if weights.has(&format!("{pooler_name}.weight")) {
            Some(linear(pooler_name, h).map_err(w)?)
        } else {
            None
        };
        let classifier = linear("classifier", labels).map_err(|e| {
            broken(format!(
                "model.safetensors has no classifier head ({e}): is this a sequence-classification (cross-encoder) model?"
            ))
        })?;
        Ok(CrossEncoder {
            model,
            pooler,
            classifier,
            tokenizer,
            labels,
        })
    }

    /// The token ids and segment ids of one query–passage pair.
    pub fn encode(&self, query: &str, passage: &str) -> Result<(Vec<u32>, Vec<u32>), VecError> {
        let enc = self
            .tokenizer
            .encode((query, passage), true)
            .map_err(|e| VecError::Inference(e.to_string()))?;
        Ok((enc.get_ids().to_vec(), enc.get_type_ids().to_vec()))
    }

    /// Raw classifier outputs (the first label's logit) for each passage against `query`.
    pub fn logits(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, VecError> {
        let pairs: Vec<(Vec<u32>, Vec<u32>)> = passages
            .iter()
            .map(|p| self.encode(query, p))
            .collect::<Result<_, _>>()?;
        let lens: Vec<usize> = pairs.iter().map(|(i, _)| i.len()).collect();
        let mut out = vec![0f32; passages.len()];
        for batch in crate::bert::plan_batches(&lens, crate::bert::BATCH_TOKENS) {
            let blens: Vec<usize> = batch.iter().map(|&i| lens[i]).collect();
            let ids: Vec<u32> = batch
                .iter()
                .flat_map(|&i| pairs[i].0.iter().copied())
                .collect();
            let types: Vec<u32> = batch
                .iter()
                .flat_map(|&i| pairs[i].1.iter().copied())
                .collect();
            if ids.is_empty() {
                continue;
            }
            let hidden = self
                .model
                .forward(&ids, &types, &blens)
                .map_err(VecError::Inference)?;
            // Each sequence's [CLS] row, through the pooler (tanh) where there is one, then the
            // classifier's first label.
            let mut at = 0;
            let mut logits = Vec::with_capacity(blens.len());
            for &l in &blens {
                let cls = hidden.row(at);
                at += l;
                let pooled = match &self.pooler {
                    Some((wt, b)) => linear(cls, wt, b).into_iter().map(f32::tanh).collect(),
                    None => cls.to_vec(),
                };
                let (wt, b) = &self.classifier;
                logits.push(linear(&pooled, wt, b).first().copied().unwrap_or(0.0));
            }
            for (&i, l) in batch.iter().zip(logits) {
                out[i] = l;
            }
        }
        Ok(out)
    }

    /// Relevance in [0, 1] of each passage: the sigmoid of its logit (single-label models only).
    pub fn scores(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, VecError> {
        if self.labels != 1 {
            return Err(VecError::BadInput(format!(
                "the reranker has {} labels; only single-score cross-encoders are supported",
                self.labels
            )));
        }
        Ok(self
            .logits(query, passages)?
            .into_iter()
            .map(|l| 1.0 / (1.0 + (-l).exp()))
            .collect())
    }
}

/// `x · Wᵀ + b` for one row `x`, with `Wᵀ` given (`inp × out`): a head's few hundred numbers.
fn linear(x: &[f32], wt: &Mat, b: &[f32]) -> Vec<f32> {
    let mut y = b.to_vec();
    for (xi, row) in x.iter().zip(wt.data.chunks_exact(wt.cols.max(1))) {
        for (y, w) in y.iter_mut().zip(row) {
            *y += xi * w;
        }
    }
    y
}
