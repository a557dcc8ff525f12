//! Refs (issue #23, seed 003): what a document refers to — files a session read, wrote, edited or
//! patched, URLs it fetched (`meta.refs`, made by jsonl2md), and a note's own `refs:` — found with
//! `ref:`. On the real corpora: every file a session touched finds that session by its path's tail.

use brain_doc::Hit;
use brain_tests::{command, indexed_notes, run};

fn ask(home: &std::path::Path, q: &str) -> (Option<i32>, Vec<Hit>) {
    let out = run(
        command("brain", home).args(["ask", "--json", "-n", "50", q]),
        b"",
    );
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code(),
        serde_json::from_value(v["hits"].clone()).unwrap_or_default(),
    )
}

#[test]
fn a_notes_refs_find_it_by_path_tail_and_url_and_with_words_of_any_passage() {
    let (dir, _) = indexed_notes(&[
        (
            "auth.md",
            "---\ntitle: Auth rework\nrefs: [file:src/auth.rs, 'https://example.org/spec', {commit: 1a2b3c}]\n---\nIntro.\n\n## Later\n\nthe token rotation plan\n",
        ),
        ("other.md", "the token rotation elsewhere\n"),
    ]);
    let h = dir.path().join("home");
    for q in [
        "ref:src/auth.rs",
        "ref:auth.rs",
        "ref:./src/auth.rs",
        "ref:file:src/auth.rs",
        "ref:https://example.org/spec",
        "ref:example.org/spec",
        "ref:commit:1a2b3c",
    ] {
        let (code, hits) = ask(&h, q);
        assert_eq!(code, Some(0), "{q}");
        assert_eq!(
            hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
            ["auth.md"],
            "{q}"
        );
    }
    // With words found in another passage than the first.
    let (_, hits) = ask(&h, "ref:auth.rs token rotation");
    assert_eq!(
        hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["auth.md"]
    );
    // A part of a component is not a tail; nothing refers to it.
    assert_eq!(ask(&h, "ref:th.rs").0, Some(67));
    assert_eq!(ask(&h, "ref:nothing.rs").0, Some(67));
}

#[test]
fn every_file_a_real_session_touched_finds_that_session() {
    let home = tempfile::tempdir().expect("tempdir");
    let Some((written, placed)) = brain_tests::real_sessions(home.path()) else {
        return;
    };
    let indexed = run(command("lexindex", home.path()).arg("--quiet"), &placed);
    assert!(
        indexed.status.success(),
        "{}",
        String::from_utf8_lossy(&indexed.stderr)
    );
    // Sessions with file refs, and one file of each (its last two components).
    let mut checked = 0;
    for d in &written {
        let Some(refs) = d.meta.get("refs").and_then(|r| r.as_array()) else {
            continue;
        };
        let Some(file) = refs
            .iter()
            .filter_map(|r| {
                let r = r.as_str()?;
                ["file:", "doc:", "plan:"]
                    .iter()
                    .find_map(|k| r.strip_prefix(k))
            })
            .find(|f| f.matches('/').count() >= 2 && !f.contains(' '))
        else {
            continue;
        };
        let tail: Vec<&str> = file.rsplitn(3, '/').take(2).collect();
        let tail = format!("{}/{}", tail[1], tail[0]);
        let session = d
            .meta
            .get("session_id")
            .and_then(|s| s.as_str())
            .unwrap_or_default();
        let (code, hits) = ask(home.path(), &format!("ref:{tail}"));
        assert_eq!(code, Some(0), "ref:{tail}");
        assert!(
            hits.iter()
                .any(|h| h.session_id.as_deref() == Some(session)),
            "ref:{tail} should find session {session}"
        );
        checked += 1;
    }
    // Claude Code, Codex and Gemini sessions of the corpora touch files.
    assert!(checked >= 20, "{checked} sessions with file refs");
    // Commits a session made or showed, repositories it cloned or fetched: each finds it.
    let mut kinds = std::collections::BTreeMap::new();
    for d in &written {
        let session = d
            .meta
            .get("session_id")
            .and_then(|s| s.as_str())
            .unwrap_or_default();
        let refs = d.meta.get("refs").and_then(|r| r.as_array());
        for r in refs.into_iter().flatten().filter_map(|r| r.as_str()) {
            let Some((kind, value)) = r.split_once(':') else {
                continue;
            };
            if !matches!(kind, "commit" | "repo" | "plan" | "doc") || value.contains(' ') {
                continue;
            }
            *kinds.entry(kind.to_string()).or_insert(0) += 1;
            let (code, hits) = ask(home.path(), &format!("ref:{value}"));
            assert_eq!(code, Some(0), "ref:{value}");
            assert!(
                hits.iter()
                    .any(|h| h.session_id.as_deref() == Some(session)),
                "ref:{value} should find session {session}"
            );
        }
    }
    eprintln!("refs of the real corpora by kind: {kinds:?}");
    for kind in ["commit", "repo", "plan", "doc"] {
        assert!(
            kinds.get(kind).is_some_and(|n| *n >= 1),
            "no {kind} ref in {kinds:?}"
        );
    }
}
