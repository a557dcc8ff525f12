//! Decisions from every session (issue 53), on real history: a home of every agent's sessions in
//! ../shared/corpora, no LLM, `brain extract`. Every record it prints is judged by hand in
//! bench/extract/judged.tsv (a new one fails here until it is judged); precision on the judged
//! sample stays at or above 0.8; every supersession links records of one subject; a second run
//! writes nothing; and every project whose sessions hold a decision is briefed with a "Current
//! decisions" section.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use brain_tests::{command, parse_lines, run, run_ok, shared, workspace};
use serde_json::Value;

/// A home of every agent's sessions of the corpora, indexed.
fn home() -> Option<(tempfile::TempDir, PathBuf)> {
    let corpora = shared("corpora")?;
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let docs = run_ok(
        command("jsonl2md", &h)
            .arg("-q")
            .args(brain_tests::agent_folders(&corpora)),
        b"",
    );
    let placed = run_ok(command("partition", &h).arg("-q"), &docs.stdout);
    run_ok(command("lexindex", &h).arg("-q"), &placed.stdout);
    Some((dir, h))
}

fn extract(h: &Path) -> Vec<Value> {
    let out = run_ok(
        command("brain", h)
            .env_remove("BRAIN_DISTILL_COMMAND")
            .args(["extract", "-q"]),
        b"",
    );
    if out.stdout.is_empty() {
        return Vec::new();
    }
    parse_lines(&out.stdout)
}

/// A record's source as judged: an Aider session's id carries a hash of where its history file
/// lives (one file, one source), which differs from machine to machine, so it is left out.
fn stable(source: &str) -> String {
    let source = source.replace("brain://", "");
    if !source.contains("aider__") {
        return source;
    }
    match source.split_once(".md") {
        Some((stem, rest)) => match stem.rsplit_once('-') {
            Some((head, hash))
                if hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                format!("{head}.md{rest}")
            }
            _ => source,
        },
        None => source,
    }
}

/// A judged row: (source, type, key) → verdict.
fn judged() -> (
    HashMap<(String, String, String), String>,
    usize,
    Vec<(String, String)>,
) {
    let text = std::fs::read_to_string(workspace().join("bench/extract/judged.tsv"))
        .expect("bench/extract/judged.tsv");
    let mut verdicts = HashMap::new();
    let mut missed = Vec::new();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert!(
            f.len() >= 4,
            "judged.tsv: a row of {} fields: {line}",
            f.len()
        );
        rows += 1;
        if f[3] == "missed" {
            missed.push((stable(f[0]), f[1].to_string()));
            continue;
        }
        assert!(
            matches!(f[3], "right" | "wrong"),
            "judged.tsv: verdict {}",
            f[3]
        );
        verdicts.insert((stable(f[0]), f[1].into(), f[2].into()), f[3].to_string());
    }
    (verdicts, rows, missed)
}

#[test]
fn decisions_from_real_sessions_are_judged_precise() {
    let Some((_dir, h)) = home() else {
        return;
    };
    let records = extract(&h);
    let (verdicts, _, missed) = judged();
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    let (mut right, mut wrong) = (0u64, 0u64);
    let mut unjudged = Vec::new();
    for r in &records {
        let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
        *by_type.entry(s("type")).or_default() += 1;
        let id = (stable(&s("source")), s("type"), s("key"));
        match verdicts.get(&id).map(String::as_str) {
            Some("right") => right += 1,
            Some(_) => wrong += 1,
            None => unjudged.push(format!("{}\t{}\t{}\t{}", id.0, id.1, id.2, s("statement"))),
        }
    }
    assert!(
        unjudged.is_empty(),
        "records not judged in bench/extract/judged.tsv (judge each: right or wrong):\n{}",
        unjudged.join("\n")
    );
    let precision = right as f64 / (right + wrong).max(1) as f64;
    // Recall of what people said (decisions, rejections, preferences, facts from their words,
    // not tool notes), on the same conversations.
    let said = |r: &&Value| {
        let st = r["statement"].as_str().unwrap_or("");
        r["type"] != "failed"
            && !st.contains(" was declined by the user")
            && !st.contains(" was refused")
    };
    let said_right = records
        .iter()
        .filter(said)
        .filter(|r| {
            let id = (
                stable(r["source"].as_str().unwrap_or("")),
                r["type"].as_str().unwrap_or("").to_string(),
                r["key"].as_str().unwrap_or("").to_string(),
            );
            verdicts.get(&id).is_some_and(|v| v == "right")
        })
        .count();
    let recall = said_right as f64 / (said_right + missed.len()).max(1) as f64;
    eprintln!(
        "extract on the real corpora: {} records {by_type:?}; precision {precision:.3} ({right} right, {wrong} wrong); recall of what was said {recall:.3} ({said_right} found, {} missed)",
        records.len(),
        missed.len()
    );
    assert!(
        records.len() >= 60,
        "{} records: the judged sample needs 60",
        records.len()
    );
    for t in ["decision", "rejected", "preference", "failed"] {
        assert!(
            by_type.get(t).copied().unwrap_or(0) > 0,
            "no {t} records: {by_type:?}"
        );
    }
    assert!(precision >= 0.8, "precision {precision:.3} under 0.8");
    assert!(recall >= 0.5, "recall {recall:.3}");

    // Supersession only ever links records of one subject: the ids it names sit under the key's
    // own folder (records/<project>/<key>/…).
    let mut supersessions = 0;
    for r in records.iter().filter(|r| r["decision"] == "SUPERSEDE") {
        supersessions += 1;
        let folder = |id: &str| {
            id.rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default()
        };
        let mine = folder(r["record"].as_str().unwrap_or(""));
        for a in r["against"].as_array().into_iter().flatten() {
            assert_eq!(folder(a.as_str().unwrap_or("")), mine, "{r}");
        }
    }
    eprintln!("supersessions: {supersessions}, each within one subject");

    // Nothing is read or written twice.
    let again = extract(&h);
    assert!(
        again.iter().all(|r| r["decision"] == "NOOP"),
        "a second run wrote: {again:?}"
    );
    assert!(
        again.len() < records.len() / 4,
        "{} read again",
        again.len()
    );

    // Every project whose sessions hold a decision is briefed with it.
    let mut projects: BTreeMap<String, String> = BTreeMap::new();
    for r in records.iter().filter(|r| {
        matches!(r["type"].as_str(), Some("decision" | "preference" | "fact"))
            && r["decision"] != "NOOP"
    }) {
        let file = h.join("corpus").join(
            r["record"]
                .as_str()
                .unwrap_or("")
                .replace('/', std::path::MAIN_SEPARATOR_STR),
        );
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if let Some(p) = text.lines().find_map(|l| l.strip_prefix("project: ")) {
            projects
                .entry(p.trim().trim_matches('\'').to_string())
                .or_insert_with(|| r["statement"].as_str().unwrap_or("").to_string());
        }
    }
    assert!(projects.len() >= 5, "{projects:?}");
    eprintln!(
        "{} projects hold a decision: each is briefed with a Current decisions section",
        projects.len()
    );
    for project in projects.keys() {
        let out = run(
            command("brain", &h)
                .arg("brief")
                .arg(format!("--project={project}"))
                .args(["--budget", "3000"]),
            b"",
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Current decisions"),
            "project {project}: no Current decisions section:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
