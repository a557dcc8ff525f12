//! Evidence in context (issue 56): retrieval counts a session in the top 5, but an agent sees only
//! the block `brain context` assembles from the hits. For a set whose questions carry the text that
//! answers them (`metadata.evidence`: LoCoMo's evidence turns, a judged line of a real session),
//! this measures the share of questions whose every evidence text lies inside that block, at each
//! token budget.
//!
//! The block is assembled by the caller ([`Assemble`]: `brain-context` sits on this crate's
//! floor, so the command passes its assembly in) from the hits the evaluated mode ranks, with
//! snippets, as `brain context --hits` would; the corpus is written as files into the
//! evaluation home's collection ([`write_corpus`]) so the assembly reads documents as it reads a
//! user's.

use std::collections::HashSet;
use std::path::Path;

use brain_rank::Engine;
use brain_store::Home;
use serde::{Deserialize, Serialize};

use crate::beir::{BeirQuery, CorpusDoc};
use crate::bench::{Bench, COLLECTION, COLLECTION_PATH, EvalError, to_doc};

/// The budgets reported when none are asked for (issue 56: 1,000 and 2,000 tokens).
pub const DEFAULT_BUDGETS: [usize; 2] = [1000, 2000];

/// Search hits a block is assembled from: as many as `brain context` considers.
pub const CANDIDATES: usize = 60;

/// Assembles the block an agent would receive for `question` from its search `hits` (the command
/// passes `brain_context::from_hits`).
pub trait Assemble: Sync {
    fn block(
        &self,
        engine: &Engine,
        question: &str,
        hits: Vec<brain_doc::Hit>,
        budget: usize,
        now: &jiff::Zoned,
    ) -> Result<Assembled, EvalError>;
}

/// A block as the measure reads it: its markdown, and each record's document (`collection/path`)
/// with the tokens it takes.
#[derive(Debug, Clone, Default)]
pub struct Assembled {
    pub markdown: String,
    pub records: Vec<(String, usize)>,
}

/// Write the corpus as the files of the evaluation collection, each as the markdown the indexer
/// read (so a hit's line is the file's line; a file already holding it is left as it is); the
/// number of documents that could not be written by their id.
fn write_corpus(home: &Home, corpus: &[CorpusDoc]) -> Result<usize, EvalError> {
    let dir = home.root().join(COLLECTION_PATH);
    std::fs::create_dir_all(&dir)?;
    let mut skipped = 0;
    for d in corpus {
        if !writable_id(&d.id) {
            skipped += 1;
            continue;
        }
        let file = dir.join(format!("{}.md", d.id));
        let text = to_doc(d).to_markdown();
        if same(&file, text.as_bytes()) {
            continue;
        }
        std::fs::write(&file, text)?;
    }
    Ok(skipped)
}

fn same(file: &Path, bytes: &[u8]) -> bool {
    std::fs::metadata(file).is_ok_and(|m| m.len() == bytes.len() as u64)
        && std::fs::read(file).is_ok_and(|b| b == bytes)
}

/// Evidence in context over one run: the assembly (none when the set carries no evidence, or a
/// team engine answers) and the counts at each budget.
pub(crate) struct Run<'a> {
    assemble: Option<&'a dyn Assemble>,
    tallies: Vec<Tally>,
    /// Documents whose id could not be a file name.
    pub unwritten: usize,
}

impl<'a> Run<'a> {
    /// Ready to score `queries` at `budgets` with `assemble`: the corpus written as files when
    /// one of them carries evidence.
    pub(crate) fn open(
        bench: &Bench,
        assemble: Option<&'a dyn Assemble>,
        queries: &[BeirQuery],
        corpus: &[CorpusDoc],
        budgets: &[usize],
    ) -> Result<Run<'a>, EvalError> {
        let assemble = assemble.filter(|_| {
            bench.remote.is_none() && queries.iter().any(|q| !q.metadata.evidence.is_empty())
        });
        let unwritten = match assemble {
            Some(_) => write_corpus(bench.engine.home(), corpus)?,
            None => 0,
        };
        Ok(Run {
            assemble,
            tallies: budgets.iter().map(|b| Tally::new(*b)).collect(),
            unwritten,
        })
    }

    /// Score question `q` at every budget when it carries evidence: its search in the evaluated
    /// mode ([`CANDIDATES`] hits, with snippets) assembled into each budget's block. The smallest
    /// budget whose block held all of its evidence (0: none); `None` without evidence.
    pub(crate) fn score(
        &mut self,
        bench: &Bench,
        q: &BeirQuery,
        judged: &HashSet<&str>,
    ) -> Result<Option<usize>, EvalError> {
        let Some(a) = self.assemble else {
            return Ok(None);
        };
        if q.metadata.evidence.is_empty() {
            return Ok(None);
        }
        let hits = bench.search(&q.text, CANDIDATES, true)?;
        let mut at = 0;
        for t in &mut self.tallies {
            let block = a.block(&bench.engine, &q.text, hits.clone(), t.budget, &bench.now)?;
            if t.add(&block.markdown, &q.metadata.evidence) && at == 0 {
                at = t.budget;
            }
            t.judged(&block.records, |doc| {
                doc.strip_prefix(COLLECTION)
                    .and_then(|d| d.strip_prefix('/'))
                    .and_then(|d| d.strip_suffix(".md"))
                    .is_some_and(|id| judged.contains(id))
            });
        }
        Ok(Some(at))
    }

    /// The scores at each budget (none when nothing was assembled).
    pub(crate) fn scores(&self) -> Vec<EvidenceScore> {
        match self.assemble {
            Some(_) => self.tallies.iter().map(Tally::score).collect(),
            None => Vec::new(),
        }
    }
}

/// The share of questions whose evidence is inside the block at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceScore {
    /// The block's budget, tokens.
    pub budget: usize,
    /// Questions with evidence text.
    pub questions: usize,
    /// The share of them whose every evidence text is in the block.
    pub in_context: f64,
    /// The share of all their evidence texts that are in the block.
    pub texts_in_context: f64,
    /// The share of the blocks' record tokens from documents judged relevant to their question
    /// (the rest is what else the budget let in).
    #[serde(default)]
    pub judged_tokens: f64,
}

/// Counts at one budget, summed over questions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    pub budget: usize,
    questions: usize,
    whole: usize,
    texts: usize,
    found: usize,
    /// Record tokens of the blocks, and of those from judged documents.
    tokens: usize,
    judged_tokens: usize,
}

impl Tally {
    pub(crate) fn new(budget: usize) -> Tally {
        Tally {
            budget,
            ..Tally::default()
        }
    }

    /// Count one question's `evidence` against its `block`; whether all of it is there.
    pub(crate) fn add(&mut self, block: &str, evidence: &[String]) -> bool {
        let block = normal(block);
        let found = evidence.iter().filter(|e| inside(&block, e)).count();
        self.questions += 1;
        self.texts += evidence.len();
        self.found += found;
        let whole = found == evidence.len();
        if whole {
            self.whole += 1;
        }
        whole
    }

    /// Count a block's `records` (document, tokens), `judged` saying which documents are relevant.
    pub(crate) fn judged(&mut self, records: &[(String, usize)], judged: impl Fn(&str) -> bool) {
        for (doc, n) in records {
            self.tokens += n;
            if judged(doc) {
                self.judged_tokens += n;
            }
        }
    }

    pub(crate) fn score(&self) -> EvidenceScore {
        let share = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                (a as f64 / b as f64 * 10_000.0).round() / 10_000.0
            }
        };
        EvidenceScore {
            budget: self.budget,
            questions: self.questions,
            in_context: share(self.whole, self.questions),
            texts_in_context: share(self.found, self.texts),
            judged_tokens: share(self.judged_tokens, self.tokens),
        }
    }
}

/// Text as compared: lower case, every run of whitespace one space, the characters markdown
/// rendering may add or escape (`*`, `_`, `` ` ``, `\`, `>`) left out.
pub fn normal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = true;
    for c in s.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
                space = true;
            }
        } else if !matches!(c, '*' | '_' | '`' | '\\' | '>') {
            out.extend(c.to_lowercase());
            space = false;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Whether evidence text `e` lies in the normalised `block` (an empty text never does).
fn inside(block: &str, e: &str) -> bool {
    let e = normal(e);
    !e.is_empty() && block.contains(&e)
}

/// Whether a corpus id is written as a file (`<id>.md` in the collection): letters, digits, `-`,
/// `_` and `.`, not hidden, at most 200 bytes. Another id's document cannot enter a block, so its
/// evidence counts as not found.
pub(crate) fn writable_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The budgets asked for, checked: each from 1 to `max`, at most 8, sorted, no repeats.
pub fn budgets(asked: &[usize], max: usize) -> Result<Vec<usize>, String> {
    if asked.len() > 8 {
        return Err(format!(
            "--evidence-budgets: at most 8 budgets, got {}",
            asked.len()
        ));
    }
    if let Some(b) = asked.iter().find(|b| **b == 0 || **b > max) {
        return Err(format!(
            "--evidence-budgets {b}: give a number of tokens from 1 to {max}"
        ));
    }
    let mut v = if asked.is_empty() {
        DEFAULT_BUDGETS.to_vec()
    } else {
        asked.to_vec()
    };
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_found_through_case_spacing_and_markdown() {
        let block = "## Session\n\n**Caroline**: I went to the LGBTQ  support\n group yesterday.\n";
        let mut t = Tally::new(1000);
        t.add(
            block,
            &["caroline: I went to the LGBTQ support group yesterday.".into()],
        );
        t.add(
            block,
            &["Caroline: I went".into(), "Melanie: painted".into()],
        );
        t.add(block, &[String::new()]);
        let s = t.score();
        assert_eq!(s.questions, 3);
        assert_eq!(s.in_context, 0.3333, "one question of three whole");
        assert_eq!(s.texts_in_context, 0.5, "two texts of four");
    }

    #[test]
    fn the_judged_share_counts_record_tokens() {
        let mut t = Tally::new(1000);
        let records = [("eval/a.md".to_string(), 30), ("eval/b.md".to_string(), 10)];
        t.judged(&records, |d| d == "eval/a.md");
        t.judged(&[], |_| true);
        assert_eq!(t.score().judged_tokens, 0.75);
        assert_eq!(
            Tally::new(1).score().judged_tokens,
            0.0,
            "no block, no share"
        );
    }

    #[test]
    fn only_plain_ids_become_files() {
        for ok in ["4983", "conv-26-s3", "a_b.c"] {
            assert!(writable_id(ok), "{ok}");
        }
        for bad in ["", ".hidden", "../x", "a/b", "a\\b", "é", &"x".repeat(201)] {
            assert!(!writable_id(bad), "{bad}");
        }
    }

    #[test]
    fn budgets_default_sort_and_refuse_nonsense() {
        assert_eq!(budgets(&[], 200_000), Ok(vec![1000, 2000]));
        assert_eq!(budgets(&[4000, 500, 500], 200_000), Ok(vec![500, 4000]));
        assert!(budgets(&[0], 200_000).is_err());
        assert!(budgets(&[200_001], 200_000).is_err());
        assert!(budgets(&[1; 9], 200_000).is_err());
    }
}
