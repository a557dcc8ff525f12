//! A set's corpus indexed in a home — lexically, and embedded when the mode needs vectors — with
//! the same [`Engine`] `brain ask` uses open on it ([`Bench`]): what `brain eval` scores once and
//! `brain tune` scores again and again.
//!
//! A kept home makes re-runs cheap: the lexical index is rebuilt only when the corpus changed
//! (its sha256 is stored beside it), and embedding is incremental by content hash, so a second
//! `--mode hybrid` run embeds nothing.

use std::path::Path;
use std::time::Instant;

use brain_doc::{Doc, ErrorCode, Source};
use brain_lex::{Indexer, SyncError};
use brain_rank::Engine;
use brain_rank::RunError;
use brain_rank::route::Mode;
use brain_rank::{RankError, Strategy};
use brain_store::Home;
use brain_store::{Collection, Config, ConfigError, Trust};
use brain_vec::{EmbedderSpec, VecError};

use crate::beir::{self, BeirError};

/// Name of the collection the set is indexed into.
pub const COLLECTION: &str = "eval";

/// Where the collection's files are, from the home (written only for evidence in context).
pub(crate) const COLLECTION_PATH: &str = "corpus/eval";

/// Date given to every corpus document (BEIR documents have none; a fixed date keeps runs identical).
const FIXED_DATE: &str = "2020-01-01T00:00:00Z";

/// Why an evaluation failed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Beir(#[from] BeirError),
    #[error(transparent)]
    Index(#[from] SyncError),
    #[error(transparent)]
    Rank(#[from] RankError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("temporary home: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Lex(#[from] brain_lex::LexError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Vec(#[from] VecError),
    #[error(transparent)]
    Team(#[from] brain_team::TeamError),
    #[error("{0}")]
    BadInput(String),
    /// The block could not be assembled (its class kept).
    #[error("{1}")]
    Context(ErrorCode, String),
}

impl brain_doc::Classified for EvalError {
    /// The exit-code class: an unreadable set is bad input (64), a lock 70, the rest internal.
    fn code(&self) -> ErrorCode {
        match self {
            EvalError::Beir(_) | EvalError::BadInput(_) => ErrorCode::BadQuery,
            EvalError::Index(e) => e.code(),
            EvalError::Rank(e) => e.code(),
            EvalError::Run(e) => e.code(),
            EvalError::Vec(e) => e.code(),
            EvalError::Team(e) => e.code(),
            EvalError::Config(e) => e.code(),
            EvalError::Lex(e) => e.code(),
            EvalError::Io(_) => ErrorCode::Internal,
            EvalError::Context(code, _) => *code,
        }
    }

    /// The fix of the error inside (a reranker or model to install, a lock to wait for, …).
    fn fix(&self) -> String {
        match self {
            EvalError::Index(e) => e.fix(),
            EvalError::Rank(e) => e.fix(),
            EvalError::Run(e) => e.fix(),
            EvalError::Vec(e) => e.fix(),
            EvalError::Team(e) => e.fix(),
            EvalError::Config(e) => e.fix(),
            EvalError::Lex(e) => e.fix(),
            EvalError::Beir(_)
            | EvalError::BadInput(_)
            | EvalError::Io(_)
            | EvalError::Context(..) => String::new(),
        }
    }
}

/// A set's corpus indexed in a home with an engine open on it: what `brain eval` scores once and
/// `brain tune` scores again and again (one index, one model, many strategies).
pub struct Bench {
    pub engine: Engine,
    pub mode: Mode,
    /// Whether vectors are searched.
    pub vectors: bool,
    pub passages: u64,
    pub index_ms: u64,
    pub embedded: usize,
    pub embed_ms: u64,
    /// The engine and index searched, when a team engine answers.
    pub remote: Option<String>,
    /// Whether each query is reranked (`--rerank`).
    pub rerank: bool,
    /// Queries answered in fused order though reranking was asked (over the budget).
    pub not_reranked: std::sync::atomic::AtomicUsize,
    pub(crate) now: jiff::Zoned,
    _tmp: Option<tempfile::TempDir>,
}

impl Bench {
    /// Index `corpus` (the set in `dir`) into `home` (a temporary folder when `None`), embed it when
    /// `mode` needs vectors, and open the engine with `strategy` (a file) or the defaults.
    pub fn open(
        dir: &Path,
        corpus: &[beir::CorpusDoc],
        home: Option<&Path>,
        mode: Mode,
        strategy: Option<&Path>,
        embedder: Option<&EmbedderSpec>,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Bench, EvalError> {
        if mode == Mode::Recent {
            return Err(EvalError::BadInput(
                "evaluate --mode lex, vec, hybrid or auto".into(),
            ));
        }
        let mut tmp = None;
        let root = match home {
            Some(h) => {
                std::fs::create_dir_all(h)?;
                h.to_path_buf()
            }
            None => {
                let t = tempfile::Builder::new().prefix("brain-eval-").tempdir()?;
                let p = t.path().to_path_buf();
                tmp = Some(t);
                p
            }
        };
        let home = Home::at(&root);
        match strategy {
            Some(p) => {
                Strategy::load(p).map_err(|e| EvalError::BadInput(e.to_string()))?;
                std::fs::copy(p, root.join(Strategy::FILE))?;
            }
            None => {
                let _ = std::fs::remove_file(root.join(Strategy::FILE));
            }
        }
        let started = Instant::now();
        let passages = index_lexically(&home, dir, corpus)?;
        let index_ms = started.elapsed().as_millis() as u64;
        let spec = match embedder {
            Some(s) => s.clone(),
            None => EmbedderSpec::from_env(&home.models())?,
        };
        // Auto routes to hybrid where vectors exist: it is evaluated as `brain ask` runs with this
        // embedder — with vectors when the model is there, lexically when it is not.
        let vectors = match mode {
            Mode::Lex => false,
            Mode::Auto => spec.present(),
            _ => true,
        };
        let (mut embedded, mut embed_ms) = (0, 0);
        if vectors {
            let t = Instant::now();
            embedded = embed(&home, &spec, corpus, progress)?;
            embed_ms = t.elapsed().as_millis() as u64;
        }
        let engine = Engine::open_with(&home, spec)?;
        if vectors && engine.remote().is_none() {
            engine.vectors().map_err(RunError::Unavailable)?;
            // Many queries in one process, as in a warm MCP session: queries take the int8 kernel
            // where the CPU has it (what `brain eval` scores is what a long-lived surface serves).
            engine.prepare_vectors();
        }
        Ok(Bench {
            engine,
            mode,
            vectors,
            passages,
            index_ms,
            embedded,
            embed_ms,
            remote: None,
            rerank: false,
            not_reranked: std::sync::atomic::AtomicUsize::new(0),
            // `$BRAIN_NOW` fixes "now" for a set whose questions say "last week".
            now: brain_rank::clock::now(),
            _tmp: tmp,
        })
    }

    /// The corpus ids of the best [`DEPTH`] documents for `text`, and the hits themselves.
    pub fn rank(&self, text: &str, depth: usize) -> Result<Vec<brain_doc::Hit>, EvalError> {
        self.search(text, depth, false)
    }

    /// The best `depth` hits for `text` in the evaluated mode, with their snippets and lines when
    /// `snippets` (what a block is assembled from).
    pub(crate) fn search(
        &self,
        text: &str,
        depth: usize,
        snippets: bool,
    ) -> Result<Vec<brain_doc::Hit>, EvalError> {
        let req = self
            .engine
            .request(&self.now)
            .plain(&words_only(text))
            .map(|b| {
                b.limit(depth, 1)
                    .mode(self.mode)
                    .rerank(self.rerank)
                    .snippets(snippets)
                    .build()
            });
        match req.and_then(|req| self.engine.search(&req, &self.now)) {
            Ok(a) => {
                if a.warnings.iter().any(|w| w.starts_with("not reranked")) {
                    self.not_reranked
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(a.hits)
            }
            // A query with nothing searchable (only stop words) ranks nothing.
            Err(RunError::Query(_)) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    }
}

/// A hit's corpus id (`4983.md` → `4983`).
pub fn hit_id(h: &brain_doc::Hit) -> String {
    corpus_id(&h.path)
}

/// The corpus fingerprint stored beside a kept home's index.
pub(crate) const CORPUS_SHA: &str = "eval-corpus.sha256";

/// Index the corpus lexically unless the home already holds exactly it; the number of passages.
fn index_lexically(
    home: &Home,
    dir: &Path,
    corpus_docs: &[beir::CorpusDoc],
) -> Result<u64, EvalError> {
    let corpus = dir.join("corpus.jsonl");
    let sha = brain_doc::sha256_hex(&std::fs::read(&corpus)?);
    let mark = home.root().join(CORPUS_SHA);
    if std::fs::read_to_string(&mark).is_ok_and(|s| s.trim() == sha)
        && let Ok(lex) = brain_lex::LexIndex::open(home)
    {
        return Ok(lex.reader()?.searcher().num_docs());
    }
    let mut config = Config::load(home)?;
    if config.collection(COLLECTION).is_none() {
        config.add_collection(Collection {
            name: COLLECTION.into(),
            path: COLLECTION_PATH.into(),
            glob: "**/*.md".into(),
            role: "eval".into(),
            trust: Trust::High,
            follow_links: false,
        })?;
        config.save()?;
    }
    let mut indexer = Indexer::open(home, true)?;
    for d in corpus_docs {
        // A BEIR id is not always a safe file name; the document path only has to be unique.
        let _ = indexer.index_doc(&to_doc(d), Some(COLLECTION))?;
    }
    let summary = indexer.finish()?;
    std::fs::write(&mark, sha)?;
    Ok(summary.passages)
}

/// Embed the corpus into the home's vector store (incremental); the documents embedded.
fn embed(
    home: &Home,
    spec: &EmbedderSpec,
    corpus_docs: &[beir::CorpusDoc],
    progress: &dyn Fn(usize, usize),
) -> Result<usize, EvalError> {
    let embedder = brain_vec::backend::open(spec)?;
    let inputs: Vec<brain_vec::index::Input> = corpus_docs
        .iter()
        .map(|d| brain_vec::index::Input::from_doc(to_doc(d)))
        .collect();
    let opts = brain_vec::index::Options {
        prune: true,
        ..Default::default()
    };
    let total = inputs.len();
    let report = brain_vec::index::update(
        &home.vectors(),
        embedder.as_ref(),
        &inputs,
        &opts,
        &|done| progress(done, total),
    )?;
    Ok(report.embedded)
}

/// BEIR queries are text, not our query language: quotes, a leading `-` and `field:` would change
/// their meaning, so they become plain words (the analyzers split at the same characters anyway).
fn words_only(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.replace(['"', ':'], " ")
                .trim_start_matches('-')
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The doc record of a corpus document: title as the title, text as the body; a session set's
/// metadata gives its date, end, project, agent and session id.
pub(crate) fn to_doc(d: &beir::CorpusDoc) -> Doc {
    let m = &d.metadata;
    let source = Source {
        kind: if m.session_id.is_some() {
            "session".into()
        } else {
            "eval".into()
        },
        agent: m.agent.clone(),
        file: String::new(),
        lines: None,
        sha256: None,
        parts: vec![],
    };
    let path = format!("{}.md", d.id);
    let mut doc = Doc::new(
        format!("{COLLECTION}/{path}"),
        d.title.clone(),
        m.date.as_deref().unwrap_or(FIXED_DATE),
        source,
    );
    doc.collection = Some(COLLECTION.into());
    doc.path = path;
    doc.body = d.text.clone();
    for (k, v) in [
        ("ended", &m.ended),
        ("project", &m.project),
        ("session_id", &m.session_id),
    ] {
        if let Some(v) = v {
            doc.meta
                .insert(k.into(), serde_json::Value::from(v.clone()));
        }
    }
    doc
}

/// `4983.md` → `4983`.
fn corpus_id(path: &str) -> String {
    path.strip_suffix(".md").unwrap_or(path).to_string()
}
