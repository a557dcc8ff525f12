//! Nothing the user owns is ever destroyed (issue 37): `brain doctor --fix` over a home built from
//! every corpus keeps every document; whatever removes a document removes its vectors too.

use std::path::{Path, PathBuf};

use brain_tests::{command, run};

fn ok(out: &std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file under the home's collections (the vault's folders, the corpus, the inbox), by
/// path, with its bytes.
fn documents(work: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for sub in ["life", "memory", "core", "notes", "sessions", "home/corpus", "home/inbox"] {
        for (name, bytes) in brain_tests::tree(&work.join(sub)) {
            all.push((format!("{sub}/{name}"), bytes));
        }
    }
    all.sort();
    all
}

/// The vault fixture (notes, daily notes, entity facts, sessions, inbox) plus every agent's and
/// every store's sessions of ../shared/corpora in `brain`, every readable History of the Chrome
/// corpus as browser days, and an inbox capture, indexed. `None` without the corpora.
fn every_corpus_home(work: &Path) -> Option<PathBuf> {
    let corpora = brain_tests::corpus("")?;
    let home = brain_tests::vault_home(work, false)?;
    // The vault's brain.yaml plus the pipeline collections sessions and browser days go to.
    let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("brain.yaml");
    let yaml = yaml.replace(
        "partition:\n",
        "  - name: brain\n    path: corpus/brain\n    role: sessions\n  - name: chrome-history\n    path: corpus/chrome-history\n    role: browser\n    trust: low\npartition:\n",
    ) + "  rules:\n    - collection: brain\n      kind: session\n    - collection: chrome-history\n      kind: browser\n      layout: year\n";
    std::fs::write(home.join("brain.yaml"), yaml).expect("brain.yaml");
    let agents: Vec<PathBuf> = ["claude-code", "codex", "gemini", "cursor", "opencode", "aider"]
        .iter()
        .map(|a| corpora.join(a))
        .collect();
    let docs = run(command("jsonl2md", &home).args(&agents), b"");
    ok(&docs, "jsonl2md");
    let mut records = docs.stdout;
    let mut histories = Vec::new();
    for entry in walkdir::WalkDir::new(corpora.join("chrome")).into_iter().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_file() && (name.starts_with("History") || name.ends_with(".sqlite"))
        {
            histories.push(entry.path().to_path_buf());
        }
    }
    let mut days = 0;
    for h in &histories {
        let out = brain_tests::chrome2md_once(&home, h);
        if out.status.success() {
            days += out.stdout.iter().filter(|&&b| b == b'\n').count();
            records.extend_from_slice(&out.stdout);
        }
    }
    assert!(days > 0, "no browser day from {} History files", histories.len());
    ok(&run(&mut command("partition", &home), &records), "partition");
    ok(
        &run(
            command("brain", &home).args(["inbox", "decided: the release train leaves on Thursdays"]),
            b"",
        ),
        "brain inbox",
    );
    ok(&run(command("lexindex", &home).arg("--all"), b""), "lexindex --all");
    Some(home)
}

#[test]
fn doctor_fix_over_a_home_of_every_corpus_keeps_every_document() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = every_corpus_home(work.path()) else {
        return;
    };
    let before = documents(work.path());
    let sessions = before
        .iter()
        .filter(|(n, _)| n.starts_with("home/corpus/brain/"))
        .count();
    let stores = before
        .iter()
        .filter(|(n, _)| {
            n.contains("/cursor__") || n.contains("/opencode__") || n.contains("/aider__")
        })
        .count();
    // 189 sessions on 2026-11-26, 39 of them from Cursor, OpenCode and Aider stores.
    assert!(sessions >= 150 && stores >= 30, "{sessions} sessions, {stores} from stores");
    assert!(before.iter().any(|(n, _)| n.starts_with("home/corpus/chrome-history/")));
    assert!(before.iter().any(|(n, _)| n.starts_with("home/inbox/")));
    assert!(before.iter().any(|(n, _)| n.contains("inbox/entities/")));
    let identity = brain_tests::doctor_check(&home, "identity");
    assert_eq!(identity["outcome"], "pass", "{identity}");

    let fixed = run(command("brain", &home).args(["doctor", "--fix"]), b"");
    let stderr = String::from_utf8_lossy(&fixed.stderr);
    assert!(!stderr.contains("moved "), "{stderr}");
    let after = documents(work.path());
    assert_eq!(
        before.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        after.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "every document is still there"
    );
    assert!(before == after, "and holds the same bytes");
    assert!(!home.join("attic").exists());
    let report: serde_json::Value = serde_json::from_slice(
        &run(command("brain", &home).args(["doctor", "--json"]), b"").stdout,
    )
    .expect("doctor json");
    for c in report["checks"].as_array().expect("checks") {
        assert_ne!(c["outcome"], "fail", "{c}");
    }
}

#[test]
fn a_real_copy_of_a_store_conversation_is_moved_to_the_attic_not_deleted() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = work.path().join("home");
    let Some(cursor) = brain_tests::corpus("cursor") else {
        return;
    };
    let docs = run(command("jsonl2md", &home).arg(&cursor), b"");
    ok(&docs, "jsonl2md");
    ok(&run(&mut command("partition", &home), &docs.stdout), "partition");
    let corpus = home.join("corpus/brain");
    let files: Vec<(String, Vec<u8>)> = brain_tests::tree(&corpus);
    assert!(files.len() > 10, "{}", files.len());
    // One conversation written twice (a copy under an older name, older on disk).
    let (name, bytes) = &files[0];
    let copy = corpus.join(name).with_file_name("old-copy.md");
    std::fs::write(&copy, bytes).expect("copy");
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .and_then(|f| f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1)))
        .expect("older");
    ok(&run(command("lexindex", &home).arg("--all"), b""), "lexindex");
    let identity = brain_tests::doctor_check(&home, "identity");
    assert_eq!(identity["outcome"], "fail", "{identity}");
    assert!(
        identity["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("1 conversation held by more than one")),
        "{identity}"
    );
    let fixed = run(command("brain", &home).args(["doctor", "--fix"]), b"");
    assert_eq!(fixed.status.code(), Some(0), "{}", String::from_utf8_lossy(&fixed.stdout));
    assert!(!copy.exists());
    let attic = brain_tests::tree(&home.join("attic"));
    assert_eq!(attic.len(), 1, "{attic:?}");
    assert!(attic[0].0.ends_with("old-copy.md"));
    assert_eq!(&attic[0].1, bytes);
    // Every other conversation stays where it was.
    assert_eq!(brain_tests::tree(&corpus), files);
}
