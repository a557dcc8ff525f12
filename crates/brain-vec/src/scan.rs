//! Brute-force search of a [`Store`]: exact top-k documents by their best row's cosine, read from the
//! int8 rows. In a schema-3 store those rows are the vectors (scale × row) and the error bounds
//! below are 0: the f32 rescoring reads the same rows, dequantized. In a schema-2 store they are a
//! copy of the f32 rows, and the rescoring reads those.
//!
//! The scan is memory-bound: 272k rows × 384 f32 are 418 MB, ~36 ms on two cores; their int8 copy is
//! a quarter of that. Each int8 row `q` has a scale `s` (`max |v| / 127`) and an error bound
//! `e = ‖v − s·q‖₂`, written with the store; for a query `x`, Cauchy–Schwarz gives
//! `|x·v − s·(x·q)| ≤ e·‖x‖₂`. So one pass over the int8 rows yields, per row, an interval that holds the
//! exact score, and per document (its best row) an interval too. With `θ` the k-th largest lower end
//! among documents, a document whose upper end is below `θ` cannot be in the top k, and a row whose
//! upper end is below `θ` cannot be its document's best row if that document is. Only the rows left are
//! rescored in f32 — the same kernel as the f32 scan, so scores, order and ties are the f32 scan's
//! exactly. On 384-dim MiniLM vectors that is a few hundred rows.
//!
//! Stores written before the int8 copy existed (`Manifest::int8` false) are scanned in f32.

use rayon::prelude::*;

use crate::docs::Docs;
use crate::simd;
use crate::store::{DocScore, Filter, Store};

/// Rows per rayon task.
const BLOCK: usize = 1024;

/// Slack added to every int8 error bound for the rounding of the f32 sums themselves.
const ROUNDING: f32 = 1e-4;

/// The query for the integer scan: `x ≈ s·q` with int16 `q`, the scale `s`, and the error
/// `‖x − s·q‖₂`; `None` for a query with a non-finite value (the f32 scan takes it). The largest
/// `|q|` keeps a row's integer dot product (`d` products of at most `127 · |q|`) below 2³¹.
fn quantize_query(x: &[f32]) -> Option<(Vec<i16>, f32, f32)> {
    let max = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    if !max.is_finite() {
        return None;
    }
    let top = (i32::MAX as usize / (127 * x.len().max(1))).min(i16::MAX as usize) as f32;
    let scale = if max > 0.0 { max / top } else { 1.0 };
    let mut err2 = 0f64;
    let q = x
        .iter()
        .map(|&v| {
            let q = (v / scale).round().clamp(-top, top) as i16;
            let r = f64::from(v) - f64::from(scale) * f64::from(q);
            err2 += r * r;
            q
        })
        .collect();
    Some((q, scale, (err2.sqrt() as f32) * (1.0 + 1e-6)))
}

/// Scale and error bound of one int8 row, written into `out` (`v.len()` values). A row with a
/// non-finite value gets an infinite bound: it is always rescored exactly.
pub(crate) fn quantize(v: &[f32], out: &mut Vec<i8>) -> [f32; 2] {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 && max.is_finite() {
        max / 127.0
    } else {
        1.0
    };
    let mut err2 = 0f64;
    for &x in v {
        let q = (x / scale).round().clamp(-127.0, 127.0) as i8;
        out.push(q);
        let r = f64::from(x) - f64::from(scale) * f64::from(q);
        err2 += r * r;
    }
    let bound = err2.sqrt() as f32;
    if bound.is_finite() {
        [scale, bound * (1.0 + 1e-6)]
    } else {
        [scale, f32::INFINITY]
    }
}

/// Keep each document's best row of a block: rows of a document are contiguous.
fn fold_best(local: &mut Vec<DocScore>, doc: usize, row: usize, score: f32) {
    match local.last_mut() {
        Some(last) if last.doc == doc => {
            if score > last.score {
                *last = DocScore { doc, row, score };
            }
        }
        _ => local.push(DocScore { doc, row, score }),
    }
}

/// One document per entry (a document split across two blocks appears twice: keep its better half),
/// best first, ties by [`brain_doc::tie_key`] of the document id (not by place in the store, which
/// follows the order documents were indexed in: two builds of the same files answer alike), at most
/// `k`.
fn top_docs(mut best: Vec<DocScore>, k: usize, docs: &Docs) -> Vec<DocScore> {
    best.sort_by(|a, b| a.doc.cmp(&b.doc).then(b.score.total_cmp(&a.score)));
    best.dedup_by_key(|s| s.doc);
    let tie = |s: &DocScore| docs.get(s.doc).map(|e| brain_doc::tie_key(e.id));
    best.sort_by(|a, b| b.score.total_cmp(&a.score).then(tie(a).cmp(&tie(b))));
    best.truncate(k);
    best
}

impl Store {
    /// The best `k` documents for unit vector `query`, each with its best row, passing `filter`.
    pub fn search(&self, query: &[f32], k: usize, filter: &Filter) -> Vec<DocScore> {
        self.search_traced(query, k, filter).0
    }

    /// [`Store::search`], and how many rows were scored in f32 (all of them without an int8 copy).
    pub fn search_traced(
        &self,
        query: &[f32],
        k: usize,
        filter: &Filter,
    ) -> (Vec<DocScore>, usize) {
        let d = self.manifest.fingerprint.dims;
        if query.len() != d || k == 0 || self.is_empty() {
            return (Vec::new(), 0);
        }
        let allowed = self.allowed(filter);
        match (self.int8(), quantize_query(query)) {
            (Some((rows, params)), Some(q)) => {
                self.search_int8(rows, params, query, &q, k, &allowed)
            }
            _ => (self.search_f32(query, k, &allowed), self.len()),
        }
    }

    /// [`Store::search`] with every row scored in f32, no integer pass: the oracle the integer
    /// pass is tested against (the same answer, exactly).
    pub fn search_exhaustive(&self, query: &[f32], k: usize, filter: &Filter) -> Vec<DocScore> {
        if query.len() != self.manifest.fingerprint.dims || k == 0 || self.is_empty() {
            return Vec::new();
        }
        self.search_f32(query, k, &self.allowed(filter))
    }

    /// Per document, whether `filter` lets it through.
    fn allowed(&self, filter: &Filter) -> Vec<bool> {
        if filter.is_empty() {
            vec![true; self.docs.len()]
        } else {
            (0..self.docs.len())
                .map(|i| filter.allows(&self.docs, i))
                .collect()
        }
    }

    /// Whether row `i`'s document may be returned.
    fn row_allowed(&self, allowed: &[bool], i: usize) -> Option<usize> {
        let doc = self.chunk_doc(i) as usize;
        allowed.get(doc).copied().unwrap_or(false).then_some(doc)
    }

    /// Every row in f32: the f32 rows of a generation that has them, else each block's int8 rows
    /// times their scales (schema 3, for a query the integer pass cannot take).
    fn search_f32(&self, query: &[f32], k: usize, allowed: &[bool]) -> Vec<DocScore> {
        let d = query.len();
        let blocks = self.len().div_ceil(BLOCK);
        let best: Vec<DocScore> = (0..blocks)
            .into_par_iter()
            .flat_map_iter(|block| {
                let base = block * BLOCK;
                let n = BLOCK.min(self.len() - base);
                let mut owned = Vec::new();
                let rows = match self.vectors().get(base * d..(base + n) * d) {
                    Some(rows) => rows,
                    None => {
                        owned.resize(n * d, 0f32);
                        for (j, row) in owned.chunks_exact_mut(d).enumerate() {
                            self.row_f32(base + j, row);
                        }
                        &owned[..]
                    }
                };
                let mut scores = vec![0f32; n];
                simd::scores_f32(rows, query, &mut scores);
                let mut local = Vec::new();
                for (j, &score) in scores.iter().enumerate() {
                    if let Some(doc) = self.row_allowed(allowed, base + j) {
                        fold_best(&mut local, doc, base + j, score);
                    }
                }
                local
            })
            .collect();
        top_docs(best, k, &self.docs)
    }

    /// Integer bounds first, then f32 for the rows that could still be a top-k document's best.
    ///
    /// A row `v ≈ s_v·q_v` (int8, error `e_v`) against the query `x ≈ s_x·q_x` (int16, error `e_x`):
    /// `x·v = s_v·s_x·(q_x·q_v) + s_v·(x − s_x·q_x)·q_v + x·(v − s_v·q_v)`, where the integer dot product
    /// is exact, `|(x − s_x·q_x)·q_v| ≤ e_x·‖q_v‖ ≤ e_x·127·√d`, and `|x·(v − s_v·q_v)| ≤ ‖x‖·e_v`. The
    /// int16 query adds ~1e-4 to a bound of ~1e-2, and the integer kernel does twice the products
    /// per instruction of an int8 × f32 one.
    fn search_int8(
        &self,
        rows: &[i8],
        params: &[[f32; 2]],
        query: &[f32],
        (qx, s_x, e_x): &(Vec<i16>, f32, f32),
        k: usize,
        allowed: &[bool],
    ) -> (Vec<DocScore>, usize) {
        let d = query.len();
        let norm = simd::dot(query, query).sqrt();
        let qx_err = e_x * 127.0 * (d as f32).sqrt();
        // The approximation error for this query of a row of parameters `p` (scale, error).
        let error = |p: [f32; 2]| p[1] * norm + p[0] * qx_err + ROUNDING;
        // Row i's (∞ without parameters: always rescored).
        let bound = |i: usize| params.get(i).map_or(f32::INFINITY, |&p| error(p));
        // Per row: the middle of its interval; per document of a block: its best lower and upper ends.
        let mut approx = vec![f32::NAN; self.len()];
        let docs: Vec<(usize, f32, f32)> = approx
            .par_chunks_mut(BLOCK)
            .zip(rows.par_chunks(d * BLOCK))
            .enumerate()
            .flat_map_iter(|(block, (approx, rows))| {
                let base = block * BLOCK;
                let mut raw = vec![0i32; approx.len()];
                simd::scores_i8_i16(rows, qx, &mut raw);
                let mut local: Vec<(usize, f32, f32)> = Vec::new();
                // The block's rows document by document (each owns a consecutive run).
                let (mut doc, mut at, end) = (self.doc_at_row(base), base, base + approx.len());
                while at < end && doc < self.docs.len() {
                    let (first, count) = self.docs.rows(doc);
                    let stop = (first.saturating_add(count) as usize).min(end);
                    if stop > at && allowed.get(doc).copied().unwrap_or(false) {
                        let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
                        for i in at..stop {
                            let j = i - base;
                            let p = params.get(i).copied().unwrap_or([1.0, f32::INFINITY]);
                            let a = p[0] * s_x * (raw[j] as f32);
                            approx[j] = a;
                            let e = error(p);
                            // A non-finite score (a broken vector) keeps its document and row
                            // in play.
                            let (l, h) = if a.is_finite() && e.is_finite() {
                                (a - e, a + e)
                            } else {
                                (f32::NEG_INFINITY, f32::INFINITY)
                            };
                            lo = lo.max(l);
                            hi = hi.max(h);
                        }
                        local.push((doc, lo, hi));
                    }
                    at = at.max(stop);
                    doc += 1;
                }
                local
            })
            .collect();
        // Merge documents split across blocks.
        let mut lo = vec![f32::NEG_INFINITY; self.docs.len()];
        let mut hi = vec![f32::NEG_INFINITY; self.docs.len()];
        for &(doc, l, h) in &docs {
            lo[doc] = lo[doc].max(l);
            hi[doc] = hi[doc].max(h);
        }
        // θ: the k-th best lower end among documents (−∞ when fewer than k have one).
        let mut lows: Vec<f32> = lo.iter().copied().filter(|l| l.is_finite()).collect();
        let theta = if lows.len() >= k {
            *lows.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a)).1
        } else {
            f32::NEG_INFINITY
        };
        let mut row = vec![0f32; d];
        let mut best = Vec::new();
        let mut rescored = 0;
        for doc in 0..self.docs.len() {
            if !allowed[doc] || hi[doc] < theta {
                continue;
            }
            let (first, count) = self.docs.rows(doc);
            let (first, count) = (first as usize, count as usize);
            let end = first.saturating_add(count).min(self.len());
            for (i, &a) in approx.iter().enumerate().take(end).skip(first) {
                if a.is_finite() && a + bound(i) < theta {
                    continue;
                }
                let mut s = [0f32];
                if !self.row_f32(i, &mut row) {
                    continue;
                }
                simd::scores_f32(&row, query, &mut s);
                fold_best(&mut best, doc, i, s[0]);
                rescored += 1;
            }
        }
        (top_docs(best, k, &self.docs), rescored)
    }
}
