//! Every message true (issue 59): every `--help` of `brain` (each command and subcommand) and of
//! every stage is read, and each `brain COMMAND [SUBCOMMAND]` it names in backticks must exist
//! (`brain model use --help` named a `brain update` that never did). The check itself is shown to
//! fail on a planted name.

use std::collections::BTreeMap;

// The stages beside `brain` (each has its own `--help`).
use brain_ops::bins::STAGES;
use brain_tests::{bin, run};

fn help(program: &str, args: &[&str]) -> String {
    let out = run(
        std::process::Command::new(bin(program))
            .args(args)
            .arg("--help"),
        b"",
    );
    assert!(
        out.status.success(),
        "{program} {args:?} --help: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands a help text lists under `Commands:`.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            // A name starts a line at two spaces; wrapped description lines are indented more.
            if let Some(name) = line
                .strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
                && !line[2..].starts_with(' ')
                && name != "help"
            {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Every `brain …` in backticks: its words up to the first that is not a plain name.
fn named(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let Some(rest) = part.strip_prefix("brain ") else {
            continue;
        };
        let words: Vec<String> = rest
            .split_whitespace()
            .take(2)
            .take_while(|w| {
                w.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !w.starts_with('-')
            })
            .map(str::to_string)
            .collect();
        if !words.is_empty() {
            out.push(words);
        }
    }
    out
}

/// The commands of `brain` with their subcommands.
fn tree() -> BTreeMap<String, Vec<String>> {
    commands(&help("brain", &[]))
        .into_iter()
        .map(|c| {
            let subs = commands(&help("brain", &[&c]));
            (c, subs)
        })
        .collect()
}

/// The names in `text` that are no command: `brain X` with X no command (nor a stage, which
/// `brain` runs), or `brain X Y` where X has subcommands and Y is none of them.
fn missing(text: &str, tree: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for words in named(text) {
        let first = &words[0];
        if STAGES.contains(&first.as_str()) {
            continue;
        }
        match tree.get(first) {
            None => out.push(words.join(" ")),
            Some(subs) if !subs.is_empty() => {
                if let Some(second) = words.get(1)
                    && !subs.contains(second)
                {
                    out.push(words.join(" "));
                }
            }
            Some(_) => {}
        }
    }
    out
}

#[test]
fn every_help_names_only_commands_that_exist() {
    let tree = tree();
    assert!(
        tree.contains_key("watch") && tree.contains_key("ask"),
        "{tree:?}"
    );
    assert!(tree["watch"].contains(&"status".to_string()), "{tree:?}");
    // The check fails on a planted name.
    assert_eq!(
        missing("run `brain update` or `brain watch stop`", &tree),
        ["update", "watch stop"]
    );
    let mut bad = Vec::new();
    let mut texts: Vec<(String, String)> = vec![("brain".into(), help("brain", &[]))];
    for (c, subs) in &tree {
        texts.push((format!("brain {c}"), help("brain", &[c])));
        for s in subs {
            texts.push((format!("brain {c} {s}"), help("brain", &[c, s])));
        }
    }
    for s in STAGES {
        texts.push((s.to_string(), help(s, &[])));
    }
    for (who, text) in &texts {
        for m in missing(text, &tree) {
            bad.push(format!("`{who} --help` names `brain {m}`"));
        }
    }
    assert!(texts.len() > 40, "{} help texts", texts.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
