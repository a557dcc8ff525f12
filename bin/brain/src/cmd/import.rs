//! `brain import` — every agent's sessions and every browser profile's history, indexed, then
//! embedded within a budget; a summary of what each source did (brain_ops::import).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_ops::import::{Plan, Report};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// List what would be imported (each agent's places, each browser profile) and stop.
    #[arg(long)]
    dry_run: bool,
    /// Index only; leave embeddings for later (`vecindex --all`).
    #[arg(long)]
    no_embed: bool,
    /// Seconds of embedding at most: what does not fit stays in the backlog for the next import
    /// (or `vecindex --all`); search works meanwhile, lexically for what has no vectors yet.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    embed_budget: u64,
    /// Print the report as one JSON record (`import_report`) instead of text.
    #[arg(long)]
    json: bool,
    /// Show what each stage said (skipped records, stores held by another program, …).
    #[arg(short, long)]
    verbose: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    // The agents' default places are under the user's home: without one, nothing is guessed (a
    // relative `.claude/projects` would read whatever folder the command runs in).
    let Some(user_home) = brain_store::home_dir().filter(|h| h.is_absolute()) else {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "no home folder: $HOME is unset or not an absolute path",
        )
        .with_fix(
            "set $HOME, or convert a folder yourself: `jsonl2md FOLDER | partition | lexindex`",
        )
        .into());
    };
    let local = brain_doc::env::os(brain_doc::env::LOCALAPPDATA).map(std::path::PathBuf::from);
    let (sources, missing) =
        brain_ops::import::sources(&user_home, local.as_deref(), &home.distill_queue());
    let mut out = Stdout::new();
    if a.dry_run {
        for s in &sources {
            for p in &s.paths {
                writeln!(out, "{:<18} {}", s.name, tilde(p, &user_home))?;
            }
        }
        if !missing.is_empty() {
            writeln!(out, "not found: {}", missing.join(", "))?;
        }
        out.flush()?;
        return Ok(Exit::Success);
    }
    let quiet = a.json;
    let progress = |i: usize, n: usize, what: &str| {
        if !quiet {
            eprintln!("brain import: [{i}/{n}] {what}");
        }
    };
    let plan = Plan {
        locate: &brain_ops::bins::locate,
        embed_budget: (!a.no_embed).then(|| Duration::from_secs(a.embed_budget)),
        progress: &progress,
    };
    let report = brain_ops::import::run(home, &sources, &missing, &plan).map_err(Failure::from)?;
    if a.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render(&report, &user_home, a.verbose))?;
    }
    out.flush()?;
    Ok(match report.code() {
        0 => Exit::Success,
        c => Exit::Code(
            ErrorCode::ALL
                .iter()
                .copied()
                .find(|e| e.exit_code() == c)
                .unwrap_or(ErrorCode::Internal),
        ),
    })
}

/// `~/…` for paths under the user's home.
fn tilde(p: &Path, user_home: &Path) -> String {
    match p.strip_prefix(user_home) {
        Ok(rest) if !user_home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => p.display().to_string(),
    }
}

/// The summary for a person: one line per source, what was not found, the vectors, what next.
fn render(r: &Report, user_home: &Path, verbose: bool) -> String {
    let mut s = String::new();
    let total: u64 = r.sources.iter().map(|x| x.added + x.updated).sum();
    s.push_str(&format!(
        "imported {total} new or changed documents from {} sources in {:.1} s\n",
        r.sources.len(),
        r.secs
    ));
    for x in &r.sources {
        let places: Vec<String> = x.paths.iter().map(|p| tilde(p, user_home)).collect();
        let what = if x.code == 0 && x.added + x.updated == 0 {
            "nothing new".to_string()
        } else if x.code == 0 {
            format!("{} new, {} changed", x.added, x.updated)
        } else {
            format!("FAILED ({}); `--verbose` shows every message", x.outcome)
        };
        s.push_str(&format!(
            "  {:<16} {what}  [{}]\n",
            x.source,
            places.join(", ")
        ));
        if verbose {
            for m in &x.messages {
                s.push_str(&format!("      {m}\n"));
            }
        }
    }
    if r.sources.is_empty() {
        s.push_str("  no agent sessions or browser profiles in their default places under ~\n");
    }
    if !r.not_found.is_empty() {
        s.push_str(&format!(
            "  not found: {} (not installed here, or kept elsewhere: `jsonl2md FOLDER | partition | lexindex`)\n",
            r.not_found.join(", ")
        ));
    }
    let m = &r.memory;
    let n = |t: &str| m.by_type.get(t).copied().unwrap_or(0);
    s.push_str(&match m.outcome.as_str() {
        "extracted" => format!(
            "memory: {} decisions, {} rejections, {} preferences, {} facts, {} failed commands read from the sessions ({} new records{})\n",
            n("decision"),
            n("rejected"),
            n("preference"),
            n("fact"),
            n("failed"),
            m.written,
            if m.conflicts > 0 {
                format!(", {} contradictions flagged", m.conflicts)
            } else {
                String::new()
            }
        ),
        other => format!("memory: FAILED ({other}); `brain extract` shows why\n"),
    });
    let v = &r.vectors;
    s.push_str(&match v.outcome.as_str() {
        "embedded" => format!("vectors: {} documents embedded, none waiting\n", v.embedded),
        "budget" => format!(
            "vectors: {} documents embedded; {} wait for the next `brain import` (or `vecindex --all`); search covers them lexically meanwhile\n",
            v.embedded, v.pending
        ),
        "no model" => "vectors: no embedding model yet, search is lexical: `brain model fetch` (about 90 MB, once), then `brain import` again adds meaning-based search\n".into(),
        "skipped" => "vectors: skipped (--no-embed); `vecindex --all` embeds later\n".into(),
        other => format!("vectors: FAILED ({other}); `vecindex --all` shows why\n"),
    });
    if total > 0 || r.sources.iter().any(|x| x.unchanged > 0) {
        s.push_str(
            "next: brain ask \"what did I decide about …\"   ·   brain recent   ·   brain browse\n",
        );
    }
    s
}
