//! `brain strategy show | diff | reset` — the search strategy in force: every knob of the registry
//! (brain_rank::knobs) with its value, default, range and meaning; what differs from the defaults;
//! back to the defaults (the file before kept as `<file>.prev`).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_rank::{Strategy, knobs};
use brain_store::Home;
use serde_json::{Value, json};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Every knob: its value, default, range, group and meaning (`*` marks a changed one).
    Show {
        /// One JSON object per knob.
        #[arg(long)]
        json: bool,
    },
    /// The knobs whose value differs from the default (default → value).
    Diff {
        #[arg(long)]
        json: bool,
    },
    /// Back to the defaults: the file is moved to search_strategy.yaml.prev; with KEYs, only those
    /// knobs (the file rewritten without them).
    Reset { keys: Vec<String> },
}

fn load(home: &Home) -> anyhow::Result<Strategy> {
    Ok(Strategy::load(&home.root().join(Strategy::FILE)).map_err(Failure::from)?)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        v => v.to_string(),
    }
}

pub fn run(home: &Home, c: Command) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    let file = home.root().join(Strategy::FILE);
    match c {
        Command::Show { json } => {
            // A broken file is shown as the error it is (exit 64), never as defaults.
            let s = load(home)?;
            let defaults: std::collections::BTreeMap<String, Value> =
                knobs::leaves(&Strategy::default()).into_iter().collect();
            for (key, value) in knobs::leaves(&s) {
                let Some(k) = knobs::find(&key) else { continue };
                let default = defaults.get(&key).cloned().unwrap_or(Value::Null);
                let changed = default != value;
                if json {
                    let row = json!({"key": key, "value": value, "default": default,
                        "min": k.min, "max": k.max, "group": k.group, "meaning": k.meaning,
                        "changed": changed});
                    brain_doc::ndjson::write_line(&mut out, &row)?;
                } else {
                    let range = match k.kind {
                        knobs::Kind::Text | knobs::Kind::Steps => String::new(),
                        _ => format!("[{} to {}]", k.min, k.max),
                    };
                    writeln!(
                        out,
                        "{}{key:<32} {:<14} {range:<16} {}",
                        if changed { "*" } else { " " },
                        text(&value),
                        k.meaning
                    )?;
                }
            }
        }
        Command::Diff { json } => {
            let s = load(home)?;
            let d = knobs::diff(&s);
            for (key, default, value) in &d {
                if json {
                    brain_doc::ndjson::write_line(
                        &mut out,
                        &json!({"key": key, "default": default, "value": value}),
                    )?;
                } else {
                    writeln!(
                        out,
                        "{key}: {} → {}",
                        default.as_ref().map_or("-".into(), text),
                        text(value)
                    )?;
                }
            }
            if d.is_empty() && !json {
                writeln!(out, "every knob at its default")?;
            }
        }
        Command::Reset { keys } => {
            let mut prev = file.as_os_str().to_owned();
            prev.push(".prev");
            if !file.exists() {
                writeln!(out, "no {}: every knob is at its default", file.display())?;
                out.flush()?;
                return Ok(Exit::Success);
            }
            if keys.is_empty() {
                std::fs::rename(&file, &prev)?;
                writeln!(
                    out,
                    "defaults in force; the file before is {}",
                    prev.to_string_lossy()
                )?;
            } else {
                let mut s = load(home)?;
                for key in &keys {
                    let knob = knobs::find(key).ok_or_else(|| {
                        Failure::new(ErrorCode::BadQuery, format!("unknown key `{key}`"))
                            .with_fix("brain strategy show")
                    })?;
                    let default = knobs::get(&Strategy::default(), key).ok_or_else(|| {
                        Failure::new(
                            ErrorCode::BadQuery,
                            format!("`{key}` ({}) has no default to reset to", knob.key),
                        )
                    })?;
                    s = knobs::set(&s, key, default).map_err(Failure::from)?;
                }
                std::fs::copy(&file, &prev)?;
                brain_doc::atomic::write(&file, knobs::minimal_yaml(&s).as_bytes())?;
                writeln!(
                    out,
                    "reset {}; the file before is {}",
                    keys.join(", "),
                    prev.to_string_lossy()
                )?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
