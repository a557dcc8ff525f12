//! `brain eval DIR` — index a BEIR-format set into a temporary home and score every judged query.

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_eval::{Assemble, Assembled, EvalError, EvalOptions, evaluate};
use brain_rank::route::Mode;

#[derive(clap::Args)]
pub struct Args {
    /// The BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).
    dir: PathBuf,
    /// The qrels split to score.
    #[arg(long, default_value = "test")]
    split: String,
    /// Only the first N judged queries.
    #[arg(long, value_name = "N")]
    max_queries: Option<usize>,
    /// A search_strategy.yaml to evaluate [default: $BRAIN_HOME/search_strategy.yaml when there is
    /// one — what `brain ask` and `brain tune` use — else the defaults].
    #[arg(long, value_name = "FILE", conflicts_with = "defaults")]
    strategy: Option<PathBuf>,
    /// Evaluate the built-in defaults, whatever $BRAIN_HOME/search_strategy.yaml says.
    #[arg(long)]
    defaults: bool,
    /// What to evaluate: BM25 (lex), vectors alone (vec), both fused (hybrid), or the routing
    /// `brain ask` does (auto: time words, named projects, scaffolding, the vector list weighed by
    /// the query; with vectors when the embedder is installed, else lexical — the report says
    /// which). `$BRAIN_NOW` fixes "now" for relative questions.
    #[arg(long, value_enum, default_value_t = Mode::Lex)]
    mode: Mode,
    /// Keep the evaluation home (lexical index, vectors) in DIR and reuse it on the next run
    /// (embedding SciFact takes minutes on a laptop; a kept home embeds nothing the second time).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Embedder for vec/hybrid: local:<dir>, openai:<url>#<model>, ollama:<url>#<model>
    /// [default: $BRAIN_EMBEDDER, else $BRAIN_HOME/models/all-MiniLM-L6-v2].
    #[arg(long, value_name = "SPEC")]
    embedder: Option<String>,
    /// Also report each query: the rank of its first relevant document (0: not in the top 100)
    /// and its MRR@10 — which questions a change won or lost.
    #[arg(long)]
    per_query: bool,
    /// Send the set to a team engine (its URL, or a name in brain.yaml's team.engines) through
    /// the teamindex sink, and evaluate the answers it gives (docs/team.md).
    #[arg(long, value_name = "URL|NAME")]
    engine: Option<String>,
    /// Rescore each query's top candidates with the cross-encoder, as `brain ask --rerank` does
    /// (`brain model fetch reranker`; rerank.depth, rerank.budget_ms of the strategy).
    #[arg(long)]
    rerank: bool,
    /// Token budgets of the block evidence in context is measured in: for questions whose
    /// metadata.evidence gives the text that answers them, the share whose text is inside the
    /// block `brain context` assembles from the evaluated mode's hits [default: 1000,2000].
    #[arg(long, value_name = "TOKENS,…", value_delimiter = ',')]
    evidence_budgets: Vec<usize>,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(home: &brain_store::Home, a: Args) -> anyhow::Result<Exit> {
    let opts = options(home, &a)?;
    let bar = brain_cli::bar(0, "embedding");
    let r = evaluate(
        &opts,
        &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
        Some(&Context),
    )
    .map_err(Failure::from)?;
    bar.finish_and_clear();
    let mut out = Stdout::new();
    if a.json {
        brain_doc::ndjson::write_line(&mut out, &r)?;
    } else {
        print_text(&mut out, &r)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// The block `brain context --hits` assembles, for evidence in context: the defaults of
/// `brain context` (near-duplicates collapsed), no working-memory turn spent.
struct Context;

impl Assemble for Context {
    fn block(
        &self,
        engine: &brain_rank::Engine,
        question: &str,
        hits: Vec<brain_doc::Hit>,
        budget: usize,
        now: &jiff::Zoned,
    ) -> Result<Assembled, EvalError> {
        let opts = brain_context::Options {
            budget,
            dedup: true,
            tick: false,
        };
        brain_context::from_hits(engine, question, hits, opts, now)
            .map(|b| Assembled {
                records: b.items.iter().map(|i| (i.id.clone(), i.tokens)).collect(),
                markdown: b.markdown,
            })
            .map_err(|e| {
                use brain_doc::Classified;
                EvalError::Context(e.code(), format!("brain context: {e}"))
            })
    }
}

/// The evaluation `a` asks for: its embedder, the strategy (the home's unless told otherwise), the
/// team engine it names.
fn options(home: &brain_store::Home, a: &Args) -> Result<EvalOptions, Failure> {
    let bad = |e: String| Failure::new(brain_doc::ErrorCode::BadQuery, e);
    let embedder = match &a.embedder {
        Some(s) => Some(
            brain_vec::EmbedderSpec::parse(s, brain_vec::embed::DEFAULT_HTTP_TIMEOUT)
                .map_err(|e| bad(e.to_string()))?,
        ),
        None => Some(
            brain_vec::EmbedderSpec::from_env(&home.models()).map_err(|e| bad(e.to_string()))?,
        ),
    };
    // What was tuned is what is evaluated: the home's strategy unless told otherwise.
    let mine = home.root().join(brain_rank::Strategy::FILE);
    let strategy = match (&a.strategy, a.defaults) {
        (Some(p), _) => Some(p.clone()),
        (None, false) if mine.is_file() => Some(mine),
        _ => None,
    };
    if let Some(p) = &strategy {
        eprintln!("brain eval: strategy {}", p.display());
    }
    Ok(EvalOptions {
        evidence_budgets: brain_eval::evidence::budgets(
            &a.evidence_budgets,
            brain_context::MAX_BUDGET,
        )
        .map_err(bad)?,
        rerank: a.rerank,
        dir: a.dir.clone(),
        split: a.split.clone(),
        max_queries: a.max_queries,
        mode: a.mode,
        strategy,
        home: a.home.clone(),
        per_query: a.per_query,
        embedder,
        engine: match &a.engine {
            Some(arg) => Some(
                brain_store::Config::load(home)
                    .ok()
                    .and_then(|c| c.team)
                    .unwrap_or_default()
                    .engine(Some(arg))
                    .map_err(bad)?,
            ),
            None => None,
        },
    })
}

/// The report as text: the scores, each class and query, then the costs.
fn print_text(out: &mut Stdout, r: &brain_eval::Report) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({} split, {} mode{}{}): {} docs, {} passages, {} queries",
        r.dataset,
        r.split,
        r.mode,
        if r.mode == "auto" && r.vectors {
            " with vectors"
        } else {
            ""
        },
        if r.reranked { ", reranked" } else { "" },
        r.docs,
        r.passages,
        r.queries
    )?;
    if r.not_reranked > 0 {
        writeln!(
            out,
            "not reranked: {} of {} queries (over rerank.budget_ms: the fused order answered)",
            r.not_reranked, r.queries
        )?;
    }
    writeln!(out, "nDCG@10    {:.4}", r.ndcg_at_10)?;
    writeln!(out, "MRR@10     {:.4}", r.mrr_at_10)?;
    writeln!(out, "Recall@5   {:.4}", r.recall_at_5)?;
    writeln!(out, "hit@5      {:.4}", r.hit_at_5)?;
    writeln!(out, "Recall@10  {:.4}", r.recall_at_10)?;
    writeln!(out, "Recall@100 {:.4}", r.recall_at_100)?;
    for (class, c) in &r.classes {
        writeln!(
            out,
            "  {class:<14} {:>3} queries  MRR@10 {:.4}  Recall@5 {:.4}  hit@5 {:.4}  nDCG@10 {:.4}",
            c.queries, c.mrr_at_10, c.recall_at_5, c.hit_at_5, c.ndcg_at_10
        )?;
    }
    for q in &r.per_query {
        let evidence = match q.evidence_at {
            None => String::new(),
            Some(0) => "  evidence in no block".to_string(),
            Some(b) => format!("  evidence at {b:>5}"),
        };
        writeln!(
            out,
            "  {:<8} {:<14} first relevant {:>3}  MRR@10 {:.4}{evidence}  {}",
            q.id,
            q.class.as_deref().unwrap_or("-"),
            q.first_relevant,
            q.mrr_at_10,
            q.text
        )?;
    }
    for e in &r.evidence {
        writeln!(
            out,
            "evidence in context at {:>6} tokens: {:.4} of {} questions ({:.4} of their texts; {:.4} of the records' tokens from judged documents)",
            e.budget, e.in_context, e.questions, e.texts_in_context, e.judged_tokens
        )?;
    }
    if r.evidence_docs_unwritten > 0 {
        writeln!(
            out,
            "  {} documents never in a block: their ids are not plain file names",
            r.evidence_docs_unwritten
        )?;
    }
    writeln!(out, "index      {} ms", r.index_ms)?;
    if r.vectors {
        writeln!(out, "embed      {} docs in {} ms", r.embedded, r.embed_ms)?;
    }
    let l = &r.latency_ms;
    writeln!(
        out,
        "latency    p50 {:.2} ms  p95 {:.2} ms  p99 {:.2} ms  max {:.2} ms (in process)",
        l.p50, l.p95, l.p99, l.max
    )
}
