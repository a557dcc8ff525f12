//! The vector side of the [`Engine`]: opening the model and store on first use, the vector lists
//! of a plan (one embedding call, one scan per sub-query), and the embedding-backlog warning.

use std::path::PathBuf;

use brain_doc::Classified;
use brain_doc::{ErrorCode, Hit};
use brain_vec::search::VecSearch;
use brain_vec::{EmbedderSpec, VecError};
use jiff::Zoned;

use super::Engine;
use crate::Filters;
use crate::error::{RunError, Unavailable};

/// What the embedding backlog depends on: the store's generation and the registry's files.
pub(super) type LagKey = (u64, Vec<Option<(std::time::SystemTime, u64)>>);

impl From<&VecError> for Unavailable {
    fn from(e: &VecError) -> Self {
        Unavailable {
            code: e.code(),
            message: e.to_string(),
            fix: e.fix(),
        }
    }
}

impl Engine {
    /// Whether vector search can run without trying: a store manifest exists and the embedder is
    /// there (a local model folder with weights, or an HTTP backend).
    pub fn vectors_available(&self) -> bool {
        // A team engine holds the vectors; this home needs only the model to embed the query.
        if self.remote.is_some() {
            return self.spec.as_ref().is_ok_and(EmbedderSpec::present);
        }
        if let Some(Ok(_)) = self.vec.get() {
            return true;
        }
        let manifest = self.vec_dir().join("manifest.json").is_file();
        manifest && self.spec.as_ref().is_ok_and(EmbedderSpec::present)
    }

    fn vec_dir(&self) -> PathBuf {
        self.home.vectors()
    }

    /// Whether the home has a vector store to compare stored vectors with (a file check).
    pub fn has_stored_vectors(&self) -> bool {
        matches!(self.vec.get(), Some(Ok(_))) || self.vec_dir().join("manifest.json").is_file()
    }

    /// Read the stored vectors (no model is loaded): through the store a search opened, else
    /// one opened now; `None` without a store (or a store that does not open).
    pub fn with_stored_vectors<T>(
        &self,
        f: impl FnOnce(&brain_vec::store::Store) -> T,
    ) -> Option<T> {
        if let Some(Ok(vs)) = self.vec.get() {
            return Some(f(&vs.store));
        }
        let dir = self.vec_dir();
        if !dir.join("manifest.json").is_file() {
            return None;
        }
        // A few hits' vectors: peeked, not opened whole (O(1) in the store's size).
        brain_vec::store::Store::peek(&dir).ok().map(|s| f(&s))
    }

    /// A long-lived surface between requests: once the model is loaded, let it get ready for many
    /// queries ([`brain_vec::Embedder::prepare`], once; ~20 ms, off the request's clock).
    pub fn prepare_vectors(&self) {
        if let Some(Ok(vs)) = self.vec.get() {
            self.prepared.call_once(|| vs.embedder.prepare());
        }
    }

    /// The cosine scale of the model that made the vector store searched (the default scale when
    /// no vector list ran: then no hit carries a cosine).
    pub(super) fn cosine_scale(&self) -> crate::strength::CosineScale {
        if self.remote.is_some() {
            return match &self.spec {
                Ok(spec) => brain_vec::catalog::cosine_scale(&spec.model_id()),
                Err(_) => brain_vec::catalog::DEFAULT_COSINE,
            };
        }
        match self.vec.get() {
            Some(Ok(vs)) => brain_vec::catalog::cosine_scale(&vs.store.manifest.fingerprint.model),
            _ => brain_vec::catalog::DEFAULT_COSINE,
        }
    }

    /// The near-duplicate thresholds of the strategy, the cosine read on the scale of the model
    /// that made the vector store (its manifest, read without opening the store).
    pub fn dedup_thresholds(&self) -> crate::dedup::Thresholds {
        let t: crate::dedup::Thresholds = self.strategy.dedup.into();
        match brain_vec::embed::store_model(&self.vec_dir()) {
            Some(model) => t.on_scale(brain_vec::catalog::cosine_scale(&model)),
            None => t,
        }
    }

    /// The vector handle, opened on first use (model load included).
    pub fn vectors(&self) -> Result<&VecSearch, Unavailable> {
        self.vectors_embedding(&[]).map(|(vs, _)| vs)
    }

    /// [`Engine::vectors`], and `texts` embedded: when this call opens the handle, as soon as the
    /// model is loaded, while the store is still opening ([`VecSearch::open_embedding`]); when the
    /// handle is open already, then and there.
    fn vectors_embedding(
        &self,
        texts: &[&str],
    ) -> Result<(&VecSearch, Vec<Vec<f32>>), Unavailable> {
        let mut early: Option<Vec<Vec<f32>>> = None;
        let vs = self
            .vec
            .get_or_init(|| match &self.spec {
                Ok(spec) => {
                    let _t = brain_doc::timings::span("vec.open");
                    VecSearch::open_embedding(&self.vec_dir(), spec, texts)
                        .map(|(vs, v)| {
                            early = Some(v);
                            vs
                        })
                        .map_err(|e| (&e).into())
                }
                Err(m) => Err(Unavailable {
                    code: ErrorCode::BadQuery,
                    message: m.clone(),
                    fix: "fix $BRAIN_EMBEDDER or brain.yaml's embedder section (local:<dir>, openai:<url>#<model>, ollama:<url>#<model>)".into(),
                }),
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let memo = || {
            self.embedded
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let keep = |v: &Vec<Vec<f32>>| {
            *memo() = Some((texts.iter().map(|t| t.to_string()).collect(), v.clone()));
        };
        let vectors = match early {
            Some(v) if v.len() == texts.len() => {
                keep(&v);
                v
            }
            _ if texts.is_empty() => Vec::new(),
            _ => {
                let known = memo().as_ref().and_then(|(t, v)| {
                    t.iter()
                        .map(String::as_str)
                        .eq(texts.iter().copied())
                        .then(|| v.clone())
                });
                match known {
                    Some(v) => v,
                    None => {
                        let _t = brain_doc::timings::span("query.embed");
                        let v = vs
                            .embedder
                            .embed_queries(texts)
                            .map_err(|e| Unavailable::from(&e))?;
                        keep(&v);
                        v
                    }
                }
            }
        };
        Ok((vs, vectors))
    }

    /// The vector lists of `plan` (index into the plan, hits with their chunk texts).
    #[allow(clippy::type_complexity)]
    pub(super) fn vector_lists(
        &self,
        plan: &[(usize, &str)],
        filters: &Filters,
        depth: usize,
        now: &Zoned,
    ) -> Result<Vec<(usize, Vec<(Hit, String)>)>, RunError> {
        let texts: Vec<&str> = plan.iter().map(|(_, text)| *text).collect();
        let (vs, vectors) = self
            .vectors_embedding(&texts)
            .map_err(RunError::Unavailable)?;
        let filter = brain_vec::store::Filter {
            collections: filters.collections.clone(),
            projects: filters.projects.clone(),
            agents: filters.agents.iter().map(|a| a.to_lowercase()).collect(),
            since: filters.since.map(|t| t.as_second()),
            until: filters.until.map(|t| t.as_second()),
        };
        let tz = now.time_zone().clone();
        // The store knows neither memory types, tags nor lifecycles: the lexical index says which
        // of its documents pass (a few lookups, only where something is filtered or hidden).
        let lq = crate::rank::lex_query(
            &crate::query::Query {
                filters: filters.clone(),
                ..Default::default()
            },
            now.timestamp(),
        );
        let ranker = self.ranker().ok();
        let mut out = Vec::new();
        for ((i, _), v) in plan.iter().zip(vectors) {
            let mut hits = Vec::new();
            let t_scan = brain_doc::timings::span("vec.scan");
            let found = vs.hits_with_text(&v, depth, &filter);
            drop(t_scan);
            let _t = brain_doc::timings::span("vec.hits");
            for (mut h, text) in found {
                let id = format!("{}/{}", h.collection, h.path);
                if let Some(r) = ranker
                    && !r
                        .searcher()
                        .visible(&id, &lq)
                        .map_err(crate::rank::RankError::from)?
                {
                    continue;
                }
                self.complete_vec_hit(&mut h, now, &tz);
                hits.push((h, text));
            }
            out.push((*i, hits));
        }
        Ok(out)
    }

    /// Give a vector hit what the lexical side gives: the file on disk, the local-calendar age.
    fn complete_vec_hit(&self, h: &mut Hit, now: &Zoned, tz: &jiff::tz::TimeZone) {
        if h.file.is_none()
            && let Some(dir) = self
                .config
                .as_ref()
                .and_then(|c| c.collection_dir(&h.collection))
        {
            let f = dir.join(&h.path);
            if f.is_file() {
                h.file = Some(f.display().to_string());
            }
        }
        // Dates as the lexical side gives them: RFC 3339 in UTC (a bare `YYYY-MM-DD` is midnight).
        if let Some(d) = brain_vec::store::date_seconds(&h.date)
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
        {
            h.date = d.to_string();
            h.age_days = crate::age_days(d, now.timestamp(), tz);
        }
    }

    /// "N documents need embeddings" when the vector store lags the lexical registry. Cached while
    /// the store generation and the registry's files (database and WAL) are unchanged: the count
    /// opens the registry and reads every row, ~15 % of a warm vector query.
    pub(super) fn vector_lag(&self) -> Option<String> {
        let vs = self.vectors().ok()?;
        let db = self.home.state_db();
        let stat = |p: &std::path::Path| {
            std::fs::metadata(p)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())))
        };
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        let key: LagKey = (
            vs.store.manifest.generation,
            vec![stat(&db), stat(std::path::Path::new(&wal))],
        );
        let mut cache = self
            .lag
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((k, v)) = cache.as_ref()
            && *k == key
        {
            return v.clone();
        }
        // The registry keeps the count (two rows read, whatever the corpus's size); a cache file
        // beside it, stamped with the registry's files, once saved counting every row.
        let n = self.count_lag(vs);
        let v = n.filter(|&n| n > 0).map(|n| {
            format!("{n} document(s) are not embedded yet and can only match lexically (run `vecindex --all`)")
        });
        *cache = Some((key, v.clone()));
        v
    }

    /// Documents the registry says need embeddings under the store's fingerprint (`None`: no
    /// registry, or it could not be read).
    fn count_lag(&self, vs: &VecSearch) -> Option<u64> {
        let _t = brain_doc::timings::span("backlog.count");
        let reg = brain_store::Registry::open_existing(&self.home).ok()??;
        let fp = vs.store.manifest.fingerprint.id();
        reg.backlog(Some(&fp)).ok()
    }
}
