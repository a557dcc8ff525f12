//! `vecindex`: embed documents into the vector store under `$BRAIN_HOME/index/vec/`, incrementally.

use std::time::Duration;

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::ErrorCode;
use brain_ops::index::VecSource;
use brain_store::Home;
use brain_vec::EmbedderSpec;
use brain_vec::chunk::ChunkParams;
use brain_vec::index::{Input, Options};
use brain_vec::search::VecSearch;
use brain_vec::stage::{self, StageError};
use brain_vec::store::{Filter, date_seconds};
use clap::Parser;

/// Embed documents into the vector store (`$BRAIN_HOME/index/vec/`).
///
/// Reads doc NDJSON on stdin (upsert), or with --all every markdown file of every collection of
/// brain.yaml, as `lexindex --all` sees them (documents gone from the collections are dropped). Unchanged documents are never re-embedded; a different
/// model or chunking re-embeds everything. stdout: one summary record. Exit 65 at once when the model is
/// not installed (fix: `brain model fetch`), 66 when an HTTP embedder times out, 70 when another
/// vecindex holds the lock.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Index every collection of brain.yaml (as lexindex --all does) instead of reading stdin.
    #[arg(long)]
    all: bool,
    /// Embed at most N documents this run (the rest stay pending).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Start no new batch after SECS seconds (the rest stay pending).
    #[arg(long, value_name = "SECS")]
    budget: Option<f64>,
    /// Embed nothing if this run would compute more than N chunks (chunks already embedded, in
    /// the store or earlier in the run, do not count): the stop hook's size cap. The report's
    /// `over_cap` says how many it would have been; the documents stay pending.
    #[arg(long, value_name = "N")]
    max_chunks: Option<usize>,
    /// Print the chunks each document would be embedded as (NDJSON) and embed nothing; needs no model.
    #[arg(long, conflicts_with_all = ["status", "search"])]
    chunks: bool,
    /// Print per collection how many documents need embeddings (NDJSON); loads no model.
    #[arg(long, conflicts_with = "search")]
    status: bool,
    /// Search the store for TEXT and print hit records (NDJSON), best first.
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    /// Embed texts instead: stdin lines `{"text": …}`, stdout lines `{"text", "embedding"}`.
    #[arg(long, conflicts_with_all = ["chunks", "status", "search", "all"])]
    embed: bool,
    /// Hits to return with --search.
    #[arg(short = 'k', long, default_value_t = 10)]
    k: usize,
    /// Only hits from this collection (repeatable).
    #[arg(long = "collection", short = 'c', value_name = "NAME")]
    collections: Vec<String>,
    /// Only hits dated on or after this day (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only hits dated on or before this day (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Embedder: local:<dir>, openai:<url>#<model> or ollama:<url>#<model>
    /// [default: $BRAIN_EMBEDDER, else local:$BRAIN_HOME/models/all-MiniLM-L6-v2].
    #[arg(long, value_name = "SPEC")]
    embedder: Option<String>,
    /// Timeout of one HTTP embedder request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    timeout: f64,
    /// Chunk size in estimated tokens.
    #[arg(long, default_value_t = ChunkParams::default().max_tokens)]
    max_tokens: usize,
    /// Overlap of consecutive windows of one long block, in estimated tokens.
    #[arg(long, default_value_t = ChunkParams::default().overlap_tokens)]
    overlap: usize,
    /// Warnings are counted but not printed.
    #[arg(long, short)]
    quiet: bool,
}

/// mimalloc instead of glibc malloc: the forward pass allocates fresh multi-megabyte matrices per
/// layer, and glibc hands those back to the kernel each time; measured 2026-11-22 with candle's
/// tensors (40 chunks of ~266 tokens, 1 thread): user+sys 13.8 s → 10.9 s, sys 3.4 s → 0.9 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    brain_cli::main("vecindex", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let home = Home::from_env();
    let warnings = Warnings::new("vecindex", args.quiet);
    let warn = |m: String| warnings.warn(m);
    let chunking = ChunkParams {
        max_tokens: args.max_tokens,
        overlap_tokens: args.overlap,
    };
    let mut out = Stdout::new();
    if args.chunks {
        for rec in stage::chunk_records(&inputs(&args, &home, &warn)?, chunking) {
            brain_doc::ndjson::write_line(&mut out, &rec)?;
        }
        return finish(out);
    }
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let spec = match &args.embedder {
        Some(s) => EmbedderSpec::parse(s, timeout),
        None => EmbedderSpec::from_env(&home.models()),
    }
    .map_err(Failure::from)?;
    if args.embed {
        return embed(&spec, &warn, out);
    }
    if let Some(text) = &args.search {
        return search(&args, &home, &spec, text, out);
    }
    if args.status {
        let inputs = inputs(&args, &home, &warn)?;
        let recs = stage::status_records(
            &home.vectors(),
            spec.model_id(),
            &spec.recipe_tag(),
            chunking,
            &inputs,
        );
        for rec in recs {
            brain_doc::ndjson::write_line(&mut out, &rec)?;
        }
        return finish(out);
    }
    // Fail before reading any input when the model is absent.
    let embedder = brain_vec::backend::open(&spec).map_err(Failure::from)?;
    let opts = Options {
        chunking,
        limit: args.limit,
        budget: args.budget.map(|s| Duration::from_secs_f64(s.max(0.0))),
        prune: args.all,
        max_chunks: args.max_chunks,
    };
    let stdin = std::io::stdin();
    let mut lock = stdin.lock();
    let source = match args.all {
        true => VecSource::All,
        false => VecSource::Records(&mut lock),
    };
    let bar = brain_cli::Measured::new(0, "embedding");
    let done = brain_ops::index::vec(
        &home,
        embedder.as_ref(),
        source,
        &opts,
        &warn,
        &|n, of| bar.set_of(n as u64, of as u64),
        &|m| eprintln!("vecindex: {m}"),
    )
    .map_err(Failure::from)?;
    bar.finish_and_clear();
    say_switch(&done.switched, &embedder.model_id());
    let report = done.switched.report;
    eprintln!(
        "vecindex: {} docs: embedded {} ({} chunks), {} unchanged, {} removed, {} pending; generation {}",
        report.docs,
        report.embedded,
        report.chunks,
        report.unchanged,
        report.removed,
        report.pending,
        report.generation
    );
    // A failure to record the vectors fails the run (a full disk is exit 65, not 0).
    if let Err(e) = done.recorded {
        return Err(Failure::new(
            ErrorCode::Internal,
            format!("the vectors are written but state.sqlite did not record them: {e}"),
        )
        .with_fix("run `vecindex --all` again (nothing is embedded twice)")
        .into());
    }
    // The report record for a pipe or a file; at a terminal the line above says it.
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        let rec = stage::ReportRecord::new(report, warnings.count());
        brain_doc::ndjson::write_line(&mut out, &rec)?;
    }
    finish(out)
}

/// `--embed`: texts on stdin, their embeddings on stdout, the speed on stderr.
fn embed(spec: &EmbedderSpec, warn: &dyn Fn(String), mut out: Stdout) -> anyhow::Result<Exit> {
    let t0 = std::time::Instant::now();
    let embedder = brain_vec::backend::open(spec).map_err(Failure::from)?;
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    let stdin = std::io::BufReader::new(std::io::stdin().lock());
    let texts = stage::read_texts(stdin, "<stdin>", warn).context("reading stdin")?;
    let mut emit = |r: &stage::EmbedRecord| brain_doc::ndjson::write_line(&mut out, r);
    let speed = stage::embed_texts(embedder.as_ref(), &texts, &mut emit).map_err(|e| match e {
        StageError::Vec(e) => anyhow::Error::from(Failure::from(e)),
        StageError::Output(io) => anyhow::Error::from(io),
    })?;
    eprintln!(
        "vecindex: model load {load_ms:.0} ms; kernel {}; embedded {} texts, {} tokens in {:.2} s: {:.0} tokens/s, {:.1} texts/s",
        embedder.kernel(),
        speed.texts,
        speed.tokens,
        speed.secs,
        speed.tokens as f64 / speed.secs,
        speed.texts as f64 / speed.secs
    );
    finish(out)
}

/// `--search TEXT`: the store's hits, best first (exit 67 without one).
fn search(
    args: &Args,
    home: &Home,
    spec: &EmbedderSpec,
    text: &str,
    mut out: Stdout,
) -> anyhow::Result<Exit> {
    let vs = VecSearch::open(&home.vectors(), spec).map_err(Failure::from)?;
    let filter = Filter {
        collections: args.collections.clone(),
        since: bound(args.since.as_deref(), 0)?,
        // A bare date includes its whole day.
        until: bound(args.until.as_deref(), 86_399)?,
        ..Filter::default()
    };
    let hits = vs
        .search(text, args.k, &filter, brain_vec::search::today())
        .map_err(Failure::from)?;
    for h in &hits {
        brain_doc::ndjson::write_line(&mut out, h)?;
    }
    finish(out)?;
    Ok(if hits.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}

/// What a run did to a model switch (brain_vec::switch), on stderr.
fn say_switch(s: &brain_vec::switch::Switched, model: &str) {
    if s.promoted {
        eprintln!("vecindex: {model} now answers searches: every document is embedded with it");
    } else if s.staged {
        eprintln!(
            "vecindex: {model} is being built beside the vectors in force ({} documents to go); searches use the previous model until it is complete",
            s.report.pending
        );
    }
}

fn finish(mut out: Stdout) -> anyhow::Result<Exit> {
    use std::io::Write;
    out.flush()?;
    Ok(Exit::Success)
}

/// The documents to work on: the corpus with --all, else doc NDJSON on stdin (bad lines warned, skipped).
fn inputs(args: &Args, home: &Home, warn: &dyn Fn(String)) -> anyhow::Result<Vec<Input>> {
    let stdin = std::io::stdin();
    let mut lock = stdin.lock();
    let source = match args.all {
        true => VecSource::All,
        false => VecSource::Records(&mut lock),
    };
    Ok(brain_ops::index::vec_inputs(home, source, warn).map_err(Failure::from)?)
}

/// A `--since`/`--until` value as Unix seconds; `extra` is added to a bare date (end of day).
fn bound(value: Option<&str>, extra: i64) -> anyhow::Result<Option<i64>> {
    let Some(v) = value else { return Ok(None) };
    let secs = date_seconds(v).ok_or_else(|| {
        Failure::new(
            ErrorCode::BadQuery,
            format!("cannot read `{v}` as a date: use YYYY-MM-DD or RFC 3339"),
        )
    })?;
    Ok(Some(if v.len() == 10 { secs + extra } else { secs }))
}
