//! `teamindex`: send the shared collections of brain.yaml to a team search engine (docs/team.md).

use std::time::Duration;

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_store::{Home, Lock};
use brain_team::home::Cutting;
use brain_team::record::Who;
use brain_team::sink::{self, Input, Options};
use brain_vec::EmbedderSpec;
use clap::Parser;

/// Send documents to a team search engine (SolrCloud), as one more sink beside lexindex and
/// vecindex.
///
/// Reads doc NDJSON on stdin (partition's output), or with --all every file of every collection.
/// Only collections named in brain.yaml's `team.shared` are sent; nothing is shared by default.
/// Each document goes as one record per lexical passage (what words search, cut as lexindex cuts
/// it) and one per chunk (with the chunk's vector from brain's own model);
/// unchanged documents are not sent again, and ids are stable, so a repeated run never makes a
/// duplicate. Before anything leaves the machine, brain-redact's rules run again over each
/// document's title, frontmatter and body (secrets replaced, <private> spans and base64 blobs
/// gone); a document holding brain:do-not-index is never sent, and deleted from the engine if it
/// was. A slow or overloaded engine (a timeout, a 5xx) is asked again after 2 s, then 8 s; when it
/// cannot be reached the requests are spooled under $BRAIN_HOME/state/team/ and the next run
/// sends them first. stdout: one summary record.
///
/// Exit 64 for a bad argument or team section, 65 when the model is missing or the engine's index
/// was made for another model, 70 when another teamindex holds the lock, 71 when the engine
/// refuses the credentials. An unreachable engine is not a failure: the run spools.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Send every collection of brain.yaml (the shared ones), and delete from the engine the
    /// documents gone from them, instead of reading stdin.
    #[arg(long)]
    all: bool,
    /// The engine: a URL (http://host:8983/solr) or a name in brain.yaml's team.engines
    /// [default: the only engine configured].
    #[arg(long, value_name = "URL|NAME")]
    engine: Option<String>,
    /// The engine-side index [default: team.index, else `brain`].
    #[arg(long, value_name = "NAME")]
    index: Option<String>,
    /// Print the records that would be sent (NDJSON: passages, then chunks without vectors) and
    /// send nothing; needs no engine and no model.
    #[arg(long)]
    records: bool,
    /// Records per bulk request.
    #[arg(long, value_name = "N", default_value_t = 256)]
    batch: usize,
    /// Time allowed for one request to the engine, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Embedder: local:<dir>, openai:<url>#<model> or ollama:<url>#<model> [default: the model in force].
    #[arg(long, value_name = "SPEC")]
    embedder: Option<String>,
    /// Warnings are counted but not printed.
    #[arg(long, short)]
    quiet: bool,
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    brain_cli::main("teamindex", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    use std::io::Write;
    let home = Home::from_env();
    let warnings = Warnings::new("teamindex", args.quiet);
    let warn = |m: String| warnings.warn(m);
    let config = brain_store::Config::load(&home)
        .and_then(|c| c.validate().map(|_| c))
        .map_err(|e| Failure::from(e).with_fix("fix brain.yaml (docs/team.md)"))?;
    let team = config.team.clone().unwrap_or_default();
    let mut out = Stdout::new();
    let who = Who::from_env(team.author.as_deref());
    if args.records {
        return records(&args, &config, &team, &who, &warn, out);
    }
    if team.shared.is_empty() {
        return nothing_shared(&args, &config, &warn, out);
    }
    let timeout = Duration::from_secs_f64(args.timeout.clamp(0.001, 3600.0));
    let engine = brain_team::home::connect(
        Some(&config),
        args.engine.as_deref(),
        args.index.as_deref(),
        timeout,
    )
    .map_err(Failure::from)?;
    let spec = match &args.embedder {
        Some(s) => EmbedderSpec::parse(s, timeout),
        None => EmbedderSpec::from_env(&home.models()),
    }
    .map_err(Failure::from)?;
    let embedder = brain_vec::backend::open(&spec).map_err(Failure::from)?;
    let _lock = Lock::try_acquire(&home.lock_file("teamindex")).map_err(Failure::from)?;
    let inputs = inputs(&args, &config, &warn)?;
    let opts = Options {
        batch: args.batch.max(1),
        prune: args.all,
        shards: team.shards,
        replicas: team.replicas,
        ..Options::default()
    };
    let bar = brain_cli::Measured::new(inputs.len() as u64, "sending");
    let summary = sink::push(
        &home.team_state(&sink::state_key(&engine)),
        &engine,
        &brain_team::home::Local {
            embedder: embedder.as_ref(),
            cutting: Cutting::of(&config),
        },
        inputs,
        &team.shared,
        &who,
        &opts,
        &warn,
        &|n| bar.set(n as u64),
    )
    .map_err(Failure::from)?;
    bar.finish_and_clear();
    if let Some(why) = &summary.offline {
        warn(format!(
            "{why}: {} request(s) wait in the spool ({}); the next teamindex run sends them",
            summary.waiting,
            brain_store::display_path(&home.team_state(&sink::state_key(&engine)).join("spool"))
        ));
    }
    eprintln!(
        "teamindex: {} docs: sent {} ({} passages), {} unchanged, {} not shared, {} removed, {} refused; spool: {} delivered, {} waiting",
        summary.docs,
        summary.sent,
        summary.passages,
        summary.unchanged,
        summary.not_shared,
        summary.removed,
        summary.refused,
        summary.drained,
        summary.waiting
    );
    brain_doc::ndjson::write_line(&mut out, &summary)?;
    out.flush()?;
    Ok(Exit::Success)
}

/// `--records`: the passages that would be sent, without vectors; no engine, no model.
fn records(
    args: &Args,
    config: &brain_store::Config,
    team: &brain_store::team::Team,
    who: &Who,
    warn: &dyn Fn(String),
    mut out: Stdout,
) -> anyhow::Result<Exit> {
    use std::io::Write;
    // The passages as lexindex cuts them, the chunks as vecindex does; no model is loaded (no
    // vectors are printed).
    let cutting = Cutting::of(config);
    for input in inputs(args, config, warn)? {
        let collection = input.collection();
        if !team.shared.contains(&collection) {
            continue;
        }
        // The hash of the document as written, as the sink computes it.
        let hash = sink::content_hash(&input);
        let Some((input, _)) = input.outgoing() else {
            continue;
        };
        let pieces = cutting.pieces(&collection, &input.doc.body);
        let passages = brain_team::record::passages(
            &input.doc,
            &collection,
            &hash,
            &pieces,
            input.body_line,
            None,
            who,
        );
        for p in &passages {
            brain_doc::ndjson::write_line(&mut out, p)?;
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Nothing shared: no engine contacted, no model loaded; the summary says why.
fn nothing_shared(
    args: &Args,
    config: &brain_store::Config,
    warn: &dyn Fn(String),
    mut out: Stdout,
) -> anyhow::Result<Exit> {
    use std::io::Write;
    // Nothing may leave this machine: no engine is contacted, no model loaded.
    let docs = inputs(args, config, warn)?.len();
    warn("no collection is shared (brain.yaml team.shared): nothing is sent (docs/team.md)".into());
    let summary = sink::Summary {
        kind: "teamindex".into(),
        docs,
        not_shared: docs,
        ..sink::Summary::default()
    };
    brain_doc::ndjson::write_line(&mut out, &summary)?;
    out.flush()?;
    Ok(Exit::Success)
}

/// The documents: the corpus with --all, else doc NDJSON on stdin (bad lines warned, skipped).
fn inputs(
    args: &Args,
    config: &brain_store::Config,
    warn: &dyn Fn(String),
) -> anyhow::Result<Vec<Input>> {
    let read = if args.all {
        brain_vec::corpus::read(config, warn)
    } else {
        let stdin = std::io::BufReader::new(std::io::stdin().lock());
        brain_vec::stage::read_inputs(stdin, "<stdin>", warn).context("reading stdin")?
    };
    Ok(brain_team::home::inputs(read))
}
