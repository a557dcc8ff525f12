//! `brain inbox "text"` — typed capture into `$BRAIN_HOME/inbox/YYYY-MM-DD.md` (brain-inbox), indexed
//! at once. A human line on stderr; with `--json` the entry record on stdout (or an error record).

use std::io::{IsTerminal, Read, Write};
use std::time::Duration;

use brain_cli::{Exit, Failure, Stdout};
use brain_inbox::{Capture, EntryType};
use brain_store::Home;
use brain_store::telemetry::Surface;

#[derive(clap::Args)]
pub struct Args {
    /// What to remember. Read from stdin when absent. Secrets are refused (exit 71); dumps of code,
    /// logs or transcripts are gated (exit 71) unless --force.
    #[arg(value_name = "TEXT")]
    text: Vec<String>,
    /// The kind of entry: note, decision, todo, link or fact.
    #[arg(long = "type", short = 't', value_name = "TYPE", default_value = "note", value_parser = entry_type)]
    kind: EntryType,
    /// Tags, comma-separated (repeatable): lower-cased, letters, digits and -_./ only.
    #[arg(long, value_name = "A,B")]
    tags: Vec<String>,
    /// The project the entry is about (a name or a path).
    #[arg(long, value_name = "P")]
    project: Option<String>,
    /// Store content the guard gates as derivable noise (code dumps, logs, transcripts, long pastes).
    /// Secrets are refused even so.
    #[arg(long)]
    force: bool,
    /// Print the entry (entry_id, uri, path, line, type, …) as one JSON record on stdout.
    #[arg(long)]
    json: bool,
    /// Seconds to wait for another capture to finish writing before giving up (exit 70).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    wait: f64,
    /// Do not index now (the next `lexindex --all` will).
    #[arg(long)]
    no_index: bool,
    /// The subject this fact is about (e.g. db.engine): a later entry with the same key supersedes
    /// it. Any memory flag makes the entry a record of its own, inbox/records/<id>.md.
    #[arg(long, value_name = "KEY")]
    key: Option<String>,
    /// How much it matters, 1-5 (5 = always include).
    #[arg(long, value_name = "1-5")]
    importance: Option<u8>,
    /// When it happened (YYYY-MM-DD or RFC 3339), if not now.
    #[arg(long, value_name = "WHEN")]
    occurred: Option<String>,
    /// How long it holds (7d, 12h, 2w, 3mo, 1y): hidden after that.
    #[arg(long, value_name = "SPAN", conflicts_with = "expires")]
    ttl: Option<String>,
    /// When it stops being true (YYYY-MM-DD or RFC 3339).
    #[arg(long, value_name = "WHEN")]
    expires: Option<String>,
    /// A record this one replaces (collection/path; repeatable).
    #[arg(long, value_name = "ID")]
    supersedes: Vec<String>,
    /// Always include it in a context block.
    #[arg(long)]
    pinned: bool,
}

fn entry_type(s: &str) -> Result<EntryType, String> {
    EntryType::parse(s).ok_or_else(|| "use note, decision, todo, link or fact".into())
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let text = if !a.text.is_empty() {
        a.text.join(" ")
    } else if std::io::stdin().is_terminal() {
        String::new()
    } else {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        brain_doc::bytes::lossy(&bytes)
    };
    let mut req = Capture::new(text, brain_rank::clock::now());
    req.kind = a.kind;
    req.tags = a.tags;
    req.project = a.project;
    req.force = a.force;
    req.surface = Surface::from_env();
    req.lock_wait = Duration::try_from_secs_f64(a.wait.max(0.0)).unwrap_or(brain_inbox::LOCK_WAIT);
    req.index = !a.no_index;
    req.record = brain_inbox::RecordFields {
        key: a.key,
        importance: a.importance,
        ttl: a.ttl,
        expires_at: a.expires,
        occurred_at: a.occurred,
        supersedes: a.supersedes,
        pinned: a.pinned,
    };
    let mut out = Stdout::new();
    let say = |s: String| eprintln!("brain inbox: {s}");
    match brain_ops::inbox::capture(home, &req, &say) {
        Ok(c) => {
            for w in &c.warnings {
                eprintln!("brain inbox: warning: {w}");
            }
            let indexed = if c.indexed {
                "searchable now"
            } else {
                "not indexed yet"
            };
            eprintln!(
                "brain inbox: saved {} {} to {}:{} ({indexed})",
                c.entry_type.as_str(),
                c.entry_id,
                c.uri,
                c.line
            );
            if a.json {
                brain_doc::ndjson::write_line(&mut out, &c)?;
                out.flush()?;
            }
            Ok(Exit::Success)
        }
        Err(e) => {
            let f = Failure::from(e);
            if a.json {
                brain_doc::ndjson::write_line(&mut out, &f.record())?;
                out.flush()?;
            }
            Err(f.into())
        }
    }
}
