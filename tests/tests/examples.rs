//! The examples in README.md, docs/*.md and the skills are executable: every fenced `brain ask`,
//! `brain get`, `brain multi-get`, `brain recent`, `brain context` and `rank` line runs on the demo corpus (what `make
//! demo` indexes: the golden sessions and the sample browser History) and must succeed with output —
//! an example that errors or finds nothing fails the test, naming the file and the line.
//!
//! The test fills in the documents' placeholders: `#a1b2c3` is the docid of the demo's memchr session
//! and `<id>` its session id; `~/notes/tips.md` is a note it writes. "Now" is 2026-03-06 12:00 UTC, a
//! few days after the demo sessions, so `--since 7d` and "yesterday" mean what the examples say. A
//! trailing `| jq …` stage is left out (jq is not a dependency): the JSON before it must parse.
//! Examples with `--engine` (docs/team.md) are left to tests/tests/team.rs, which has the cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use brain_tests::{bin_dir, command, run, workspace};

const NOW: &str = "2026-03-06T12:00:00Z";
const SESSION: &str = "11111111-aaaa-4bbb-8ccc-000000000001";

/// The files whose examples must run.
fn documents() -> Vec<PathBuf> {
    let ws = workspace();
    let mut out = vec![ws.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(ws.join("docs"))
        .expect("docs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    for skill in std::fs::read_dir(ws.join("pipelines/skills"))
        .expect("skills")
        .flatten()
    {
        more.push(skill.path().join("SKILL.md"));
    }
    more.sort();
    out.extend(more);
    out
}

/// `(line number, command)` of every search or read example in the shell blocks of `text`.
fn examples(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut shell = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(lang) = t.strip_prefix("```") {
            shell = match shell {
                None => Some(matches!(lang, "sh" | "bash" | "console" | "shell" | "")),
                Some(_) => None,
            };
            continue;
        }
        if shell != Some(true) {
            continue;
        }
        let cmd = t.strip_prefix("$ ").unwrap_or(t);
        let is_example = [
            "brain ask ",
            "brain get ",
            "brain multi-get ",
            "brain recent",
            "brain context ",
            "rank ",
        ]
        .iter()
        .any(|p| cmd.starts_with(p));
        // A team engine's examples need a cluster and a team section: tests/tests/team.rs runs
        // every one of those forms against the real 2-node cluster instead.
        if is_example && !cmd.contains("--engine") {
            out.push((i + 1, cmd.to_string()));
        }
    }
    out
}

/// Index the demo corpus into `home`, as pipelines/demo.sh does.
fn demo_home(home: &Path) {
    let ws = workspace();
    let sessions: Vec<PathBuf> = std::fs::read_dir(ws.join("golden/jsonl2md"))
        .expect("golden sessions")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.ends_with("markdown-out-dir"))
        .collect();
    let docs = run(command("jsonl2md", home).arg("-q").args(&sessions), b"");
    let parted = run(&mut command("partition", home), &docs.stdout);
    assert!(
        run(&mut command("lexindex", home), &parted.stdout)
            .status
            .success()
    );
    let history = home.join("sample/History");
    std::fs::create_dir_all(history.parent().expect("parent")).expect("mkdir");
    let sql = std::fs::read_to_string(ws.join("golden/chrome2md/modern.sql")).expect("sql");
    let made = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; sqlite3.connect(sys.argv[1]).executescript(sys.stdin.read())",
        ])
        .arg(&history)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(sql.as_bytes())?;
            c.wait()
        })
        .expect("python3");
    assert!(made.success(), "building the sample History");
    let days = run(
        command("chrome2md", home)
            .arg("--history")
            .arg(&history)
            .args(["--tz", "UTC", "--no-state", "-q"]),
        b"",
    );
    let parted = run(&mut command("partition", home), &days.stdout);
    assert!(
        run(&mut command("lexindex", home), &parted.stdout)
            .status
            .success()
    );
    std::fs::create_dir_all(home.join("notes")).expect("notes");
    std::fs::write(
        home.join("notes/tips.md"),
        "# Tips\n\nUse `cargo nextest` for speed.\n",
    )
    .expect("tips");
}

/// The docid of the demo's memchr session.
fn docid(home: &Path) -> String {
    let out = run(
        command("brain", home).env("BRAIN_NOW", NOW).args([
            "ask",
            "--json",
            "unresolved memchr import",
        ]),
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("ask --json");
    v["hits"][0]["docid"].as_str().expect("a docid").to_string()
}

#[test]
fn every_search_and_read_example_in_the_docs_runs_and_finds_something() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path();
    demo_home(home);
    let docid = docid(home);
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("read doc");
        let name = doc
            .strip_prefix(workspace())
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (line, example) in examples(&text) {
            let mut cmd = example.replace("#a1b2c3", &docid).replace("<id>", SESSION);
            let jq = cmd.find(" | jq ");
            if let Some(i) = jq {
                cmd.truncate(i);
            }
            let out = Command::new("bash")
                .args(["-o", "pipefail", "-c", &cmd])
                .env("PATH", &path)
                .env("BRAIN_HOME", home)
                .env("HOME", home)
                .env("TZ", "UTC")
                .env("NO_COLOR", "1")
                .env("BRAIN_NOW", NOW)
                .env_remove("BRAIN_EMBEDDER")
                .output()
                .expect("bash");
            ran += 1;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let problem = if !out.status.success() {
                Some(format!("exit {}", out.status.code().unwrap_or(-1)))
            } else if stdout.trim().is_empty() {
                Some("printed nothing".into())
            } else if jq.is_some() && serde_json::from_str::<serde_json::Value>(&stdout).is_err() {
                Some("the JSON before `| jq` does not parse".into())
            } else {
                None
            };
            if let Some(p) = problem {
                failures.push(format!("{name}:{line}: `{example}`: {p}\n{stderr}"));
            }
        }
    }
    assert!(
        ran >= 20,
        "only {ran} examples found: did the extraction break?"
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn examples_are_found_in_shell_blocks_only() {
    let text = "brain ask outside\n```sh\nbrain ask \"x\"  # why\n$ rank y | fmt\nmake demo\n```\n```json\n{\"brain ask\": 1}\n```\n";
    assert_eq!(
        examples(text),
        [
            (3, "brain ask \"x\"  # why".to_string()),
            (4, "rank y | fmt".to_string())
        ]
    );
}
