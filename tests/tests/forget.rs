//! `brain forget --purge` (issue #22): after confirmation the file and every trace of the record
//! are gone — no passage in any index file, no vector row or chunk text, no read or listing — while
//! the other records stay whole; without a terminal and without `--yes` nothing is deleted.

use std::path::Path;

use brain_doc::Hit;
use brain_tests::{command, indexed_notes, model_dir, run};

/// Every file under `dir` whose bytes contain `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    brain_tests::tree(dir)
        .into_iter()
        .filter(|(_, b)| b.windows(needle.len()).any(|w| w == needle))
        .map(|(name, _)| name)
        .collect()
}

fn ask(home: &Path, query: &str) -> Vec<Hit> {
    let out = run(
        command("brain", home).args(["ask", "--json", "--include-superseded", query]),
        b"",
    );
    let env: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    serde_json::from_value(env["hits"].clone()).unwrap_or_default()
}

#[test]
fn purge_deletes_the_file_and_every_trace_after_confirmation() {
    // A word only the purged record holds, to look for in every file of the home afterwards.
    let secret = "zebraumbrellaquokka";
    let (dir, _) = indexed_notes(&[
        (
            "private.md",
            &format!("---\ntitle: Vault\nkey: vault.code\n---\nthe vault code is {secret}\n"),
        ),
        (
            "old.md",
            "---\nkey: vault.code\noccurred_at: 2020-01-01\n---\nthe vault code was written on paper\n",
        ),
        ("other.md", "the vault door opens at nine\n"),
    ]);
    let h = dir.path().join("home");
    let private = dir.path().join("notes/private.md");
    // Vectors too, when the model is here.
    let with_vectors = model_dir().is_some_and(|m| {
        let out = run(
            command("vecindex", &h)
                .arg("--all")
                .env("BRAIN_EMBEDDER", format!("local:{}", m.display())),
            b"",
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        true
    });
    // Read it, so the access log and the registry name it.
    let got = run(command("brain", &h).args(["get", "notes/private.md"]), b"");
    assert_eq!(got.status.code(), Some(0));
    assert_eq!(
        run(command("brain", &h).args(["memory", "fold"]), b"")
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        ask(&h, secret).first().map(|h| h.path.as_str()),
        Some("private.md")
    );
    // The older record of the key is superseded by the one to purge.
    assert!(
        ask(&h, "written on paper")
            .iter()
            .any(|h| h.memory.as_ref().is_some_and(|m| m.state == "superseded"))
    );

    // No terminal and no --yes: refused (64), nothing deleted.
    let forget = |args: &[&str]| run(command("brain", &h).arg("forget").args(args), b"");
    let out = forget(&["--purge", "notes/private.md"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert!(private.is_file());
    // --yes without --purge, --purge with --restore: usage errors.
    assert_eq!(
        forget(&["--yes", "notes/private.md"]).status.code(),
        Some(64)
    );
    assert_eq!(
        forget(&["--purge", "--restore", "--yes", "notes/private.md"])
            .status
            .code(),
        Some(64)
    );

    let out = forget(&["--purge", "--yes", "notes/private.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!private.exists());
    // Not a result, and not a byte of any file of the home: index segments, vectors, registry,
    // logs, rehearsal table.
    assert!(ask(&h, secret).is_empty());
    assert_eq!(files_holding(&h, secret.as_bytes()), Vec::<String>::new());
    assert_eq!(
        files_holding(&h, b"notes/private.md"),
        Vec::<String>::new(),
        "the id stays nowhere either"
    );
    // What it superseded is current again; the other records are whole.
    let hits = ask(&h, "written on paper");
    assert_eq!(hits.first().map(|h| h.path.as_str()), Some("old.md"));
    assert_eq!(
        hits[0].memory.as_ref().map(|m| m.state.as_str()),
        Some("current")
    );
    assert_eq!(
        ask(&h, "vault door").first().map(|h| h.path.as_str()),
        Some("other.md")
    );
    if with_vectors {
        let store: serde_json::Value = serde_json::from_slice(
            &std::fs::read(h.join("index/vec/manifest.json")).expect("manifest"),
        )
        .expect("manifest json");
        assert_eq!(store["docs"], 2);
    }
    // A full run after it finds nothing to bring back; doctor is green on the memory check.
    let out = run(command("lexindex", &h).arg("--all"), b"");
    assert!(out.status.success());
    assert!(ask(&h, secret).is_empty());
    // Purging what is not there is an error naming it, never a deletion elsewhere.
    for bad in [
        "notes/private.md",
        "../../etc/passwd",
        "/etc/passwd",
        "#ffffff",
    ] {
        let out = forget(&["--purge", "--yes", bad]);
        assert_ne!(out.status.code(), Some(0), "{bad}");
    }
    assert!(dir.path().join("notes/other.md").is_file());

    // A purge stopped half-way (the file gone, its traces left) is finished by the same command;
    // once nothing is left it is "not found" again.
    let other = "the vault door opens at nine";
    std::fs::remove_file(dir.path().join("notes/other.md")).expect("rm");
    let out = forget(&["--purge", "--yes", "notes/other.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(files_holding(&h, other.as_bytes()), Vec::<String>::new());
    assert_ne!(
        forget(&["--purge", "--yes", "notes/other.md"])
            .status
            .code(),
        Some(0)
    );
}
