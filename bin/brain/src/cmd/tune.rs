//! `brain tune --set DIR | --from-usage [...]` and `brain tune report` — the keep-or-revert loop
//! over the strategy's knobs, judged on a train part and accepted on a dev part
//! (brain_eval::tune, issue #24).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_eval::tune::{self, Source, TuneOptions, log::Experiment};
use brain_rank::route::Mode;
use brain_store::Home;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// A BEIR-format judged set (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) to tune on.
    #[arg(long, value_name = "DIR", conflicts_with = "from_usage")]
    set: Option<PathBuf>,
    /// Tune on your own use: queries whose hits you then read (`get`) within 10 minutes, over
    /// this home's index (needs 20 such queries with their text logged: telemetry.queries).
    #[arg(long)]
    from_usage: bool,
    /// The qrels split to tune on (a dev part is split off it unless the set has qrels/dev.tsv);
    /// `test` is refused.
    #[arg(long, default_value = "train")]
    split: String,
    /// ndcg@10, mrr@10, recall@K, or seed004 (seed 004's proxy, for a set without judgments).
    #[arg(long, default_value = "ndcg@10")]
    objective: String,
    /// lex, hybrid or auto (the routing of `brain ask`).
    #[arg(long, value_enum, default_value_t = Mode::Lex)]
    mode: Mode,
    /// Seed of the dev split and of the search's knob order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Most experiments.
    #[arg(long, default_value_t = 40)]
    iterations: usize,
    /// Stop after this many minutes.
    #[arg(long, value_name = "M")]
    minutes: Option<f64>,
    /// Keep a change only when dev rises by more than this (and train does not drop).
    #[arg(long, default_value_t = 0.01)]
    min_gain: f64,
    /// Stop after this many reverts in a row.
    #[arg(long, default_value_t = 3)]
    patience: usize,
    /// The knobs to search, comma-separated [default: those of the mode's groups: lex and pool
    /// for lex; fusion and hybrid too for hybrid; time, entity, memory too for auto].
    #[arg(long, value_delimiter = ',', value_name = "KEYS")]
    knobs: Vec<String>,
    /// An LLM command that proposes each change (reads a prompt on stdin, answers JSON); the
    /// default is a deterministic coordinate search.
    #[arg(long, value_name = "CMD")]
    proposer: Option<String>,
    /// Kill the proposer after this long (e.g. 90s, 5m).
    #[arg(long, default_value = "120s", value_parser = brain_exec::parse_duration)]
    proposer_timeout: Duration,
    /// Score the set's test split once, at the end, before and after (reported apart).
    #[arg(long)]
    final_test: bool,
    /// Write the tuned strategy here [default: $BRAIN_HOME/search_strategy.yaml].
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Keep the set's index in DIR between runs (else a temporary folder).
    #[arg(long, value_name = "DIR")]
    eval_home: Option<PathBuf>,
    /// Embedder for hybrid/auto: local:<dir>, openai:<url>#<model>, ollama:<url>#<model>.
    #[arg(long, value_name = "SPEC")]
    embedder: Option<String>,
    /// Print the run's experiments and summary as JSON lines.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// The experiment table of a run (the newest by default) and its scores before and after,
    /// per query class.
    Report {
        /// The run's id (the `run` of tune-log.jsonl).
        #[arg(long)]
        run: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

/// Progress on stderr: a bar on a terminal, a line per experiment otherwise.
struct Watch {
    bar: indicatif::ProgressBar,
    quiet: bool,
}

impl tune::Watch for Watch {
    fn experiment(&self, e: &Experiment, of: usize) {
        self.bar.set_length(of as u64);
        self.bar.set_position(e.iteration as u64);
        if !self.quiet {
            let changes: Vec<String> = e
                .changes
                .iter()
                .map(|(k, (a, b))| format!("{k} {a} → {b}"))
                .collect();
            self.bar.suspend(|| {
                eprintln!(
                    "brain tune: {:>3} {:<8} train {:.4} dev {:.4} ({:+.4}) {}",
                    e.iteration,
                    e.decision,
                    e.train,
                    e.dev,
                    e.delta,
                    changes.join(", ")
                )
            });
        }
    }
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    if let Some(Command::Report { run, json }) = a.command {
        let records = tune::log::read(home);
        let Some((exps, summary)) = tune::report::select(&records, run.as_deref()) else {
            eprintln!(
                "brain tune report: no run in {}",
                home.root().join(tune::log::FILE).display()
            );
            return Ok(Exit::Code(ErrorCode::NoResults));
        };
        if json {
            for e in &exps {
                brain_doc::ndjson::write_line(&mut out, e)?;
            }
            if let Some(s) = &summary {
                brain_doc::ndjson::write_line(&mut out, s)?;
            }
        } else {
            out.write_all(tune::report::render(&exps, summary.as_ref()).as_bytes())?;
        }
        out.flush()?;
        return Ok(Exit::Success);
    }
    let bad = |e: String| Failure::new(ErrorCode::BadQuery, e);
    let source = match (&a.set, a.from_usage) {
        (Some(dir), false) => Source::Beir {
            dir: dir.clone(),
            split: a.split.clone(),
        },
        (None, true) => Source::Usage,
        _ => {
            return Err(bad("give a judged set (--set DIR) or --from-usage".into())
                .with_fix("brain tune --set ../shared/ir/scifact --split train")
                .into());
        }
    };
    if !(0.0..1.0).contains(&a.min_gain) || a.patience == 0 || a.iterations == 0 {
        return Err(bad("--min-gain 0 to 1, --patience and --iterations at least 1".into()).into());
    }
    let embedder = match &a.embedder {
        Some(s) => Some(
            brain_vec::EmbedderSpec::parse(s, brain_vec::embed::DEFAULT_HTTP_TIMEOUT)
                .map_err(|e| bad(e.to_string()))?,
        ),
        None => None,
    };
    let opts = TuneOptions {
        source,
        objective: a.objective.parse().map_err(bad)?,
        mode: a.mode,
        seed: a.seed,
        iterations: a.iterations,
        minutes: a.minutes,
        min_gain: a.min_gain,
        patience: a.patience,
        knobs: a.knobs.clone(),
        proposer: a.proposer.clone().map(|command| brain_exec::Runner {
            command,
            timeout: a.proposer_timeout,
            retries: 2,
            backoff: Duration::from_secs(5),
        }),
        final_test: a.final_test,
        output: a.output.clone(),
        eval_home: a.eval_home.clone(),
        embedder,
    };
    let watch = Watch {
        bar: brain_cli::bar(a.iterations as u64, "experiments"),
        quiet: a.json,
    };
    let (summary, exps) = tune::tune(home, &opts, &watch).map_err(Failure::from)?;
    watch.bar.finish_and_clear();
    if a.json {
        for e in &exps {
            brain_doc::ndjson::write_line(&mut out, e)?;
        }
        brain_doc::ndjson::write_line(&mut out, &summary)?;
    } else {
        out.write_all(tune::report::render(&exps, Some(&summary)).as_bytes())?;
    }
    out.flush()?;
    Ok(Exit::Success)
}
