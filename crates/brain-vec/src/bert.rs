//! The local embedder: a BERT-family sentence-transformers model run on the CPU ([`crate::encoder`]).
//!
//! The folder holds `config.json`, `tokenizer.json` and `model.safetensors` (what `brain model fetch`
//! installs). Embedding = BERT forward pass, mean pooling over the real tokens (attention mask), L2
//! normalization — the sentence-transformers recipe for all-MiniLM-L6-v2.
//!
//! The tokenizer.json trap: the published file pads *and truncates* every input to 128 tokens. Padding
//! to a fixed length wastes compute, and truncation at 128 silently drops the tail of a 256-token chunk.
//! We turn fixed padding off (each batch is padded to its own longest input) and truncate at the model's
//! position limit (`max_position_embeddings`, 512).
//!
//! Speed: a batch is inputs packed end to end (no padding; see [`crate::encoder`]), at most
//! [`BATCH_TOKENS`] tokens; inputs are sorted by length first so batches are balanced.

use std::path::{Path, PathBuf};

use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::VecError;
use crate::embed::{Embedder, normalize};
use crate::encoder::{BertConfig, Encoder, Kernel};
use crate::recipe::{Pooling, Recipe};
use crate::weights::Weights;

/// Tokens per forward pass. Measured 2026-11-22 on this 2-core box (bench/embed.sh): 4k–8k tokens per
/// batch is the plateau for MiniLM; larger batches only add memory.
pub const BATCH_TOKENS: usize = 4096;

/// A loaded local model. Load once, reuse for every batch.
pub struct Bert {
    model: Encoder,
    tokenizer: Tokens,
    id: String,
    dims: usize,
    max_len: usize,
    /// Pooling and prompts, from the folder's sentence-transformers files.
    recipe: Recipe,
    /// Where the quantized weights are kept between processes, and what they were made from.
    int8_copy: Option<(PathBuf, Vec<u8>)>,
    /// Whether that copy was read or written (at most one write per process).
    int8_saved: std::sync::Once,
}

/// How a model's text becomes token ids: the BERT-uncased tokenizer built in code for a known
/// `tokenizer.json` ([`crate::wordpiece`]), or any other read from its JSON.
pub enum Tokens {
    /// Built from `vocab.txt` (~1 ms instead of 8–25).
    Built(crate::wordpiece::BertUncased),
    /// Read from `tokenizer.json`.
    Json(Box<Tokenizer>),
    /// A SentencePiece unigram tokenizer ([`crate::unigram`], `tokenizer.unigram`).
    Unigram(crate::unigram::Unigram),
}

impl Tokens {
    /// One past the largest id the tokenizer can give (its vocabulary and added tokens): what an
    /// embedding table needs rows for.
    pub fn vocab_size(&self) -> usize {
        match self {
            Tokens::Built(t) => t.vocab_size(),
            Tokens::Unigram(t) => t.vocab_size(),
            Tokens::Json(t) => t
                .get_vocab(true)
                .values()
                .max()
                .map_or(0, |m| *m as usize + 1),
        }
    }

    /// The ids of `text` with `[CLS]`/`[SEP]`, truncated at the model limit, unpadded.
    pub fn ids(&self, text: &str) -> Result<Vec<u32>, String> {
        match self {
            Tokens::Built(t) => Ok(t.encode(text)),
            Tokens::Unigram(t) => Ok(t.encode(text)),
            Tokens::Json(t) => t
                .encode(text, true)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| e.to_string()),
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The saved copy of the quantized weights, beside the model (derived from public weights: no
/// user data). Read in place by a fresh process, so its queries take the int8 kernel without
/// quantizing (~20 ms); written by the first process that quantizes (a `vecindex` batch, a
/// long-lived surface's [`Embedder::prepare`]). Keyed by the weights file's size, modification
/// time and inode: a replaced model (installed by a rename) never reads a stale copy.
pub const INT8_COPY: &str = ".brain-int8.bin";

/// What the saved quantized weights of `weights` are keyed by.
fn int8_key(weights: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(weights).ok()?;
    Some(format!("{} {} {} {}", m.len(), m.mtime(), m.mtime_nsec(), m.ino()).into_bytes())
}

/// The three files of a BERT-family model folder (embedder and cross-encoder alike): `config.json`,
/// the tokenizer (`tokenizer.json`, or `tokenizer.unigram` for a 4-bit multilingual model,
/// [`crate::q4`]), `model.safetensors`. A missing folder or file is [`VecError::ModelMissing`]
/// naming it.
pub(crate) fn model_files(dir: &Path) -> Result<(PathBuf, PathBuf, PathBuf), VecError> {
    if !dir.is_dir() {
        return Err(VecError::ModelMissing {
            path: dir.to_path_buf(),
        });
    }
    let file = |name: &str| -> Result<PathBuf, VecError> {
        let p = dir.join(name);
        if p.is_file() {
            Ok(p)
        } else {
            Err(VecError::ModelMissing { path: p })
        }
    };
    let tokenizer = match file(crate::unigram::FILE) {
        Ok(p) => p,
        Err(_) => file("tokenizer.json")?,
    };
    Ok((file("config.json")?, tokenizer, file("model.safetensors")?))
}

impl Bert {
    /// Load the model folder `dir`. A missing folder or file is [`VecError::ModelMissing`] at once.
    pub fn load(dir: &Path) -> Result<Bert, VecError> {
        let (config_path, tok_path, weights_path) = model_files(dir)?;
        let kernel = Kernel::from_env().map_err(VecError::BadInput)?;
        let broken = |reason: String| VecError::ModelBroken {
            path: dir.to_path_buf(),
            reason,
        };
        let config_text =
            std::fs::read_to_string(&config_path).map_err(VecError::io(&config_path))?;
        let config: BertConfig =
            serde_json::from_str(&config_text).map_err(|e| broken(format!("config.json: {e}")))?;
        config
            .check()
            .map_err(|e| broken(format!("config.json: {e}")))?;
        let (dims, max_len) = (config.hidden_size, config.max_position_embeddings);
        let recipe = Recipe::read(dir).map_err(broken)?;
        // The tokenizer (a large JSON) and the weights load at the same time.
        let (tokenizer, model) = std::thread::scope(|s| {
            let tok = s.spawn(|| -> Result<Tokens, VecError> {
                let _t = brain_doc::timings::span("tokenizer.load");
                load_tokenizer(&tok_path, max_len)
                    .map_err(|e| broken(format!("{}: {e}", file_name(&tok_path))))
            });
            let _t = brain_doc::timings::span("weights.load");
            let model = Weights::open(&weights_path)
                .map_err(|e| broken(format!("model.safetensors: {e}")))
                .and_then(|w| {
                    let _t = brain_doc::timings::span("encoder.load");
                    Encoder::load(std::sync::Arc::new(w), &config)
                        .map(|e| e.with_kernel(kernel))
                        .map_err(|e| broken(format!("model.safetensors: {e}")))
                });
            let tok = tok
                .join()
                .unwrap_or_else(|_| Err(broken("tokenizer.json: loader panicked".into())));
            (tok, model)
        });
        let (tokenizer, model) = (tokenizer?, model?);
        // A tokenizer of another model gives ids the embedding table does not have: refused here,
        // not at the first text that reaches one.
        if tokenizer.vocab_size() > config.vocab_size {
            return Err(broken(format!(
                "{} gives ids up to {} but the model's vocabulary has {} rows: they belong to different models",
                file_name(&tok_path),
                tokenizer.vocab_size(),
                config.vocab_size
            )));
        }
        let int8_copy = (model.kernel() == crate::encoder::Kernel::Int8)
            .then(|| int8_key(&weights_path).map(|k| (dir.join(INT8_COPY), k)))
            .flatten();
        let int8_saved = std::sync::Once::new();
        if let Some((path, key)) = &int8_copy
            && let Ok(file) = std::fs::File::open(path)
        {
            let _t = brain_doc::timings::span("int8.load");
            // Mapped with its pages (MAP_POPULATE): a query reads every layer, and one call maps
            // them cheaper than ~400 faults do (a fresh vector ask, paired: CPU 18.03 -> 17.33 and
            // 17.14 -> 16.65 ms, page faults 1,919 -> 1,538; 2026-11-29).
            // SAFETY: the copy is written by an atomic rename and never modified in place.
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) };
            if let Ok(map) = map
                && model.load_int8(&std::sync::Arc::new(map), key)
            {
                int8_saved.call_once(|| {});
            }
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Bert {
            model,
            tokenizer,
            id: format!("local:{name}"),
            dims,
            max_len,
            recipe,
            int8_copy,
            int8_saved,
        })
    }

    /// Keep the quantized weights for the next process, once every layer is quantized (best effort:
    /// a model folder that is not writable keeps none, and queries there take the f32 path).
    fn save_int8(&self) {
        let Some((path, key)) = &self.int8_copy else {
            return;
        };
        if self.int8_saved.is_completed() {
            return;
        }
        if let Some(bytes) = self.model.int8_bytes(key) {
            self.int8_saved.call_once(|| {
                let _ = brain_doc::atomic::write(path, &bytes);
            });
        }
    }

    /// The token ids of `text` as the model sees them (with `[CLS]`/`[SEP]`, truncated, unpadded).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, VecError> {
        let mut ids = self.tokenizer.ids(text).map_err(VecError::Inference)?;
        ids.truncate(self.max_len);
        Ok(ids)
    }

    /// One forward pass over a batch (packed, no padding): pool each input's tokens (their mean, or
    /// the first token's state), normalize.
    fn forward(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>, VecError> {
        let lens: Vec<usize> = batch.iter().map(|b| b.len()).collect();
        let ids: Vec<u32> = batch.iter().flat_map(|b| b.iter().copied()).collect();
        if ids.is_empty() {
            return Ok(batch.iter().map(|_| vec![0.0; self.dims]).collect());
        }
        let types = vec![0u32; ids.len()];
        let hidden = self
            .model
            .forward(&ids, &types, &lens)
            .map_err(VecError::Inference)?;
        let flat = &hidden.data;
        let d = self.dims;
        let mut at = 0;
        let cls = self.recipe.pooling == Pooling::Cls;
        Ok(lens
            .iter()
            .map(|&l| {
                let rows = &flat[at * d..(at + l) * d];
                at += l;
                let mut v = vec![0f32; d];
                if cls {
                    if let Some(first) = rows.get(..d) {
                        v.copy_from_slice(first);
                    }
                } else {
                    for row in rows.chunks_exact(d) {
                        v.iter_mut().zip(row).for_each(|(a, x)| *a += x);
                    }
                    let inv = 1.0 / l.max(1) as f32;
                    v.iter_mut().for_each(|a| *a *= inv);
                }
                normalize(&mut v);
                v
            })
            .collect())
    }
}

/// sha256 of `(tokenizer.json, vocab.txt)` pairs whose pipeline [`crate::wordpiece`] rebuilds exactly:
/// BertNormalizer (clean text, CJK spacing, accents stripped, lowercase), BertPreTokenizer, WordPiece
/// (`[UNK]`, `##`, 100 characters), `[CLS] $A [SEP]`, the five special tokens. Today: the files of
/// sentence-transformers/all-MiniLM-L6-v2, and the tokenizer.json of bge-small-en-v1.5 and
/// e5-small-v2 (the same vocabulary and pipeline; their vocab.txt is written from it by
/// `brain model fetch`). Equality with the JSON-loaded tokenizer is tested token for token over
/// every corpus text (tests/tests/vec.rs).
pub const BERT_UNCASED: &[(&str, &str)] = &[
    (
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        BERT_UNCASED_VOCAB,
    ),
    (
        "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
        BERT_UNCASED_VOCAB,
    ),
    (
        "ffb28886478b9b17a8c06f4fe6741b970d5dd3de13330ccc3b9f686df8a0545a",
        BERT_UNCASED_VOCAB,
    ),
];

/// sha256 of bert-base-uncased's vocab.txt (30,522 lines).
const BERT_UNCASED_VOCAB: &str = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3";

/// The tokenizer of the model whose `tokenizer.json` is `path`, truncating at `max_len`. A known
/// BERT-uncased tokenizer is built from `vocab.txt` beside it ([`crate::wordpiece`]: ~1 ms)
/// instead of deserializing the JSON (18–25 ms, the longest step of a fresh process's model load,
/// measured 2026-11-25 with BRAIN_TIMINGS); any other is read from its JSON.
pub fn load_tokenizer(path: &Path, max_len: usize) -> Result<Tokens, String> {
    let vocab_path = path.with_file_name("vocab.txt");
    let is_unigram = path.file_name().is_some_and(|n| n == crate::unigram::FILE);
    // Checked before and unchanged since ([`crate::checked`]): vocab.txt alone.
    if !is_unigram
        && crate::checked::vouched(path, &vocab_path, BERT_UNCASED)
        && let Some(vocab) = std::fs::read(&vocab_path)
            .ok()
            .and_then(|v| String::from_utf8(v).ok())
    {
        return crate::wordpiece::BertUncased::new(vocab, max_len).map(Tokens::Built);
    }
    let json = std::fs::read(path).map_err(|e| e.to_string())?;
    if is_unigram {
        return crate::unigram::Unigram::from_file_bytes(&json, max_len).map(Tokens::Unigram);
    }
    if let Some((vocab, pair)) = known_pair(&json, &vocab_path) {
        crate::checked::remember(path, &vocab_path, pair);
        return crate::wordpiece::BertUncased::new(vocab, max_len).map(Tokens::Built);
    }
    json_tokenizer(&json, max_len).map(|t| Tokens::Json(Box::new(t)))
}

/// The text of the `vocab.txt` at `vocab` if it and `tokenizer.json` (its bytes) are a pair
/// [`crate::wordpiece`] rebuilds exactly.
pub fn known_bert_uncased(json: &[u8], vocab: &Path) -> Option<String> {
    known_pair(json, vocab).map(|(v, _)| v)
}

/// [`known_bert_uncased`], with the pair of [`BERT_UNCASED`] it is.
fn known_pair(json: &[u8], vocab: &Path) -> Option<(String, (&'static str, &'static str))> {
    let vocab = std::fs::read(vocab).ok()?;
    let pair = (brain_doc::sha256_hex(json), brain_doc::sha256_hex(&vocab));
    let known = *BERT_UNCASED
        .iter()
        .find(|(t, v)| *t == pair.0 && *v == pair.1)?;
    Some((String::from_utf8(vocab).ok()?, known))
}

/// A tokenizer from its `tokenizer.json` bytes, with the trap undone.
pub fn json_tokenizer(json: &[u8], max_len: usize) -> Result<Tokenizer, String> {
    let mut t = Tokenizer::from_bytes(json).map_err(|e| e.to_string())?;
    fix_tokenizer(&mut t, max_len)?;
    Ok(t)
}

/// Undo the tokenizer.json trap: pad to the batch's longest input, truncate at the model limit.
fn fix_tokenizer(tok: &mut Tokenizer, max_len: usize) -> Result<(), String> {
    let pad = tok.get_padding().cloned().unwrap_or_default();
    tok.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..pad
    }));
    let trunc = tok.get_truncation().cloned().unwrap_or_default();
    tok.with_truncation(Some(TruncationParams {
        max_length: max_len,
        ..trunc
    }))
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// Order of `lens` by length, cut into batches of at most `budget` tokens (packed: a batch costs
/// the sum of its lengths; sorting keeps each batch's attention work even).
pub(crate) fn plan_batches(lens: &[usize], budget: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| lens[i]);
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut tokens = 0;
    for i in order {
        if !cur.is_empty() && tokens + lens[i] > budget {
            out.push(std::mem::take(&mut cur));
            tokens = 0;
        }
        cur.push(i);
        tokens += lens[i];
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Embedder for Bert {
    fn model_id(&self) -> String {
        self.id.clone()
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn kernel(&self) -> &'static str {
        self.model.kernel().name()
    }

    fn prepare(&self) {
        self.model.prepare();
        self.save_int8();
    }

    fn count_tokens(&self, text: &str) -> Option<usize> {
        self.token_ids(text).ok().map(|ids| ids.len())
    }

    fn recipe_tag(&self) -> String {
        self.recipe.tag()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        self.embed_prompted(texts, &self.recipe.passage)
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        self.embed_prompted(texts, &self.recipe.query)
    }
}

impl Bert {
    /// Embed `texts`, each with `prompt` before it (the model's query or passage prompt).
    fn embed_prompted(&self, texts: &[&str], prompt: &str) -> Result<Vec<Vec<f32>>, VecError> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| {
                if prompt.is_empty() {
                    self.token_ids(t)
                } else {
                    self.token_ids(&format!("{prompt}{t}"))
                }
            })
            .collect::<Result<_, _>>()?;
        let lens: Vec<usize> = ids.iter().map(Vec::len).collect();
        let mut out = vec![Vec::new(); texts.len()];
        let budget = brain_doc::env::get(brain_doc::env::BRAIN_EMBED_BATCH_TOKENS)
            .and_then(|v| v.parse().ok())
            .unwrap_or(BATCH_TOKENS);
        for batch in plan_batches(&lens, budget) {
            let inputs: Vec<&[u32]> = batch.iter().map(|&i| ids[i].as_slice()).collect();
            for (i, v) in batch.iter().zip(self.forward(&inputs)?) {
                out[*i] = v;
            }
        }
        self.save_int8();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::Classified;

    #[test]
    fn batches_are_length_sorted_and_within_budget() {
        let lens = [300, 10, 12, 290, 11, 500];
        let plan = plan_batches(&lens, 600);
        let flat: Vec<usize> = plan.iter().flatten().copied().collect();
        assert_eq!(flat, vec![1, 4, 2, 3, 0, 5]);
        for b in &plan {
            let tokens: usize = b.iter().map(|&i| lens[i]).sum();
            assert!(b.len() == 1 || tokens <= 600, "{b:?}");
        }
    }

    #[test]
    fn a_missing_folder_is_model_missing_with_exit_65() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = Bert::load(&dir.path().join("nope"))
            .err()
            .expect("must fail");
        assert!(matches!(err, VecError::ModelMissing { .. }));
        assert_eq!(err.code().exit_code(), 65);
    }
}
