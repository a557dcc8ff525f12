//! Entity facts as records (issue #22, seed 001): each fact of an entity's `items.json` is a
//! retrievable record with its lifecycle (`supersededBy`, `status`), its reads (`accessCount`,
//! `lastAccessed`) and no secret; hostile files and items are warnings, never a failed run; and
//! `brain forget` edits the fact in its file.

use std::path::Path;

use brain_doc::Hit;
use brain_tests::{command, run};

const NOW: &str = "2026-07-01T12:00:00Z";

fn token() -> String {
    format!(
        "ghp_{}",
        "a1B2c3D4e5F6g7H8i9J0"
            .repeat(2)
            .get(..36)
            .unwrap_or_default()
    )
}

fn items() -> String {
    serde_json::json!([
        {"id": "sarah-001", "fact": "Sarah joined Acme as CTO in March 2025", "category": "milestone",
         "timestamp": "2025-03-15", "status": "superseded", "supersededBy": "sarah-002",
         "relatedEntities": ["companies/acme"], "lastAccessed": "2026-01-28", "accessCount": 12},
        {"id": "sarah-002", "fact": "Sarah left Acme to found Heronworks", "category": "milestone",
         "timestamp": "2026-02-01", "status": "active", "supersededBy": null, "accessCount": 3,
         "lastAccessed": "2026-06-30"},
        {"id": "sarah-003", "fact": "Sarah prefers async standups over calls", "category": "preference",
         "timestamp": "2025-06-01"},
        {"fact": "the pager rotation for Sarah's team starts on Mondays"},
        {"id": "../../../escape", "fact": "an id that tries to leave the folder"},
        {"id": "sarah-003", "fact": "a second item with a repeated id"},
        {"nofact": true},
        42,
        {"id": "tok", "fact": format!("Sarah's deploy token is {}", token())},
        {"id": token(), "fact": "a secret in every other field", "category": token(),
         "relatedEntities": [token()], "key": token(), "supersededBy": token()},
        {"id": "sarah-004", "fact": "Sarah reviews the quarterly roadmap", "importance": "very",
         "timestamp": "not a date", "status": "maybe"}
    ])
    .to_string()
}

/// A home with a notes collection (PARA folders), the inbox, and a medium-trust collection.
fn home(dir: &Path) -> std::path::PathBuf {
    let h = dir.join("home");
    let notes = dir.join("life");
    let web = dir.join("web");
    for d in [&h, &notes, &web] {
        std::fs::create_dir_all(d).expect("dir");
    }
    std::fs::write(
        h.join("brain.yaml"),
        format!(
            "version: 1\ncollections:\n  - name: notes\n    path: {}\n  - name: inbox\n    path: {}\n    role: inbox\n  - name: web\n    path: {}\n    trust: medium\npartition:\n  default: notes\n",
            notes.display(),
            h.join("inbox").display(),
            web.display()
        ),
    )
    .expect("brain.yaml");
    let sarah = notes.join("areas/people/sarah");
    std::fs::create_dir_all(&sarah).expect("sarah");
    std::fs::write(sarah.join("items.json"), items()).expect("items");
    std::fs::write(
        sarah.join("summary.md"),
        "# Sarah\n\nFounder of Heronworks.\n",
    )
    .expect("summary");
    let broken = notes.join("projects/broken");
    std::fs::create_dir_all(&broken).expect("broken");
    std::fs::write(broken.join("items.json"), "{\"items\": [ {\"fact\": \"cut").expect("cut");
    std::fs::create_dir_all(notes.join("projects/odd")).expect("odd");
    std::fs::write(notes.join("projects/odd/items.json"), "\"just a string\"").expect("odd");
    std::fs::write(
        web.join("items.json"),
        r#"[{"id": "w1", "fact": "Sarah is secretly a pirate"}]"#,
    )
    .expect("web");
    h
}

fn lexindex(h: &Path) -> String {
    let out = run(command("lexindex", h).arg("--all"), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ask(h: &Path, args: &[&str]) -> Vec<Hit> {
    let out = run(
        command("brain", h)
            .args(["ask", "--json", "--now", NOW])
            .args(args),
        b"",
    );
    let env: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    serde_json::from_value(env["hits"].clone()).unwrap_or_default()
}

fn files_under(dir: &Path) -> Vec<String> {
    brain_tests::tree(dir)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn each_fact_of_an_items_json_is_a_record_with_its_lifecycle_and_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = home(dir.path());
    let stderr = lexindex(&h);
    // Every hostile part is named, and the run succeeded.
    for said in [
        "projects/broken/items.json: not JSON",
        "projects/odd/items.json: expected a list of facts",
        "item 6: id `sarah-003` repeats",
        "item 7: no `fact` text",
        "item 8: not an object",
        "item 11: `importance: \"very\"`",
        "collection `web` is not high-trust",
    ] {
        assert!(stderr.contains(said), "{said}: {stderr}");
    }
    assert!(
        stderr.contains("entity facts: 1 files, 8 facts"),
        "{stderr}"
    );
    // One record per fact, every file name inside the folder; no secret on disk.
    let records = files_under(&h.join("inbox/entities"));
    assert_eq!(records.len(), 8, "{records:?}");
    assert!(
        records
            .iter()
            .all(|r| r.starts_with("notes/areas/people/sarah/") && !r.contains("ghp_"))
    );
    assert!(records.contains(&"notes/areas/people/sarah/sarah-001.md".to_string()));
    assert!(!dir.path().join("escape.md").exists() && !h.join("escape.md").exists());
    for r in &records {
        let text = std::fs::read_to_string(h.join("inbox/entities").join(r)).expect("record");
        assert!(!text.contains(&token()), "{r}");
    }
    let tok = std::fs::read_to_string(h.join("inbox/entities/notes/areas/people/sarah/tok.md"))
        .expect("tok");
    assert!(tok.contains("[REDACTED:github_token]") && tok.contains("redactions: 1"));

    // The current fact answers; the superseded one is hidden, reachable, and marked.
    let hits = ask(&h, &["Sarah Acme"]);
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(
        paths.first(),
        Some(&"entities/notes/areas/people/sarah/sarah-002.md"),
        "{paths:?}"
    );
    assert!(!paths.iter().any(|p| p.ends_with("sarah-001.md")));
    let all = ask(&h, &["--include-superseded", "Sarah joined Acme CTO"]);
    let old = all
        .iter()
        .find(|h| h.path.ends_with("sarah-001.md"))
        .expect("superseded fact reachable");
    assert_eq!(
        old.memory.as_ref().map(|m| m.state.as_str()),
        Some("superseded")
    );
    assert_eq!(
        ask(&h, &["--as-of", "2025-12-01", "Sarah Acme CTO"])
            .first()
            .map(|h| h.path.as_str()),
        Some("entities/notes/areas/people/sarah/sarah-001.md")
    );
    // A category that is a memory type is the type; every category is a tag.
    assert_eq!(
        ask(&h, &["type:preference Sarah"])
            .first()
            .map(|h| h.path.as_str()),
        Some("entities/notes/areas/people/sarah/sarah-003.md")
    );
    assert!(!ask(&h, &["tag:milestone Sarah"]).is_empty());
    // The medium-trust collection's facts are not records.
    assert!(ask(&h, &["pirate"]).iter().all(|h| h.collection != "inbox"));

    // Reads counted in the file are honoured: the rehearsal table holds them.
    // sarah-002 was read yesterday (hot, though it happened in February); sarah-001's twelve
    // reads warm it from cold.
    let fold = run(command("brain", &h).args(["memory", "fold"]), b"");
    assert_eq!(fold.status.code(), Some(0));
    let in_tier = |tier: &str| -> Vec<String> {
        ask(&h, &["--include-superseded", "--tier", tier, "Sarah Acme"])
            .into_iter()
            .map(|h| h.path)
            .collect()
    };
    assert!(in_tier("hot").iter().any(|p| p.ends_with("sarah-002.md")));
    assert_eq!(
        in_tier("warm"),
        ["entities/notes/areas/people/sarah/sarah-001.md"]
    );

    // A second run writes nothing; removing a fact from the file removes its record.
    let again = lexindex(&h);
    assert!(again.contains("(0 written, 0 removed"), "{again}");
    let items_path = dir.path().join("life/areas/people/sarah/items.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&items_path).expect("items")).expect("json");
    v.as_array_mut().expect("array").remove(3);
    std::fs::write(&items_path, v.to_string()).expect("write");
    let third = lexindex(&h);
    assert!(third.contains("1 removed"), "{third}");
    assert!(ask(&h, &["pager rotation"]).is_empty());

    // brain forget edits the fact in its file: archived, then restored, then purged.
    let forget = |args: &[&str]| run(command("brain", &h).arg("forget").args(args), b"");
    let id = "inbox/entities/notes/areas/people/sarah/sarah-002.md";
    let out = forget(&[id]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&items_path)
            .expect("items")
            .contains("\"archived\"")
    );
    assert!(ask(&h, &["-c", "inbox", "Heronworks"]).is_empty());
    lexindex(&h);
    assert!(
        ask(&h, &["-c", "inbox", "Heronworks"]).is_empty(),
        "archived stays archived"
    );
    assert_eq!(forget(&["--restore", id]).status.code(), Some(0));
    assert_eq!(ask(&h, &["-c", "inbox", "Heronworks"]).len(), 1);
    assert_eq!(forget(&["--purge", "--yes", id]).status.code(), Some(0));
    assert!(
        !std::fs::read_to_string(&items_path)
            .expect("items")
            .contains("Heronworks")
    );
    assert!(ask(&h, &["-c", "inbox", "Heronworks"]).is_empty());
    lexindex(&h);
    assert!(
        ask(&h, &["-c", "inbox", "Heronworks"]).is_empty(),
        "a purged fact does not come back"
    );

    // The file gone: its records go.
    std::fs::remove_file(&items_path).expect("rm");
    lexindex(&h);
    assert_eq!(files_under(&h.join("inbox/entities")), Vec::<String>::new());
}

#[test]
fn without_an_inbox_collection_facts_are_named_not_lost_silently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = home(dir.path());
    let yaml = std::fs::read_to_string(h.join("brain.yaml")).expect("yaml");
    let without: String = yaml
        .split("  - name: ")
        .filter(|part| !part.starts_with("inbox"))
        .collect::<Vec<_>>()
        .join("  - name: ");
    std::fs::write(h.join("brain.yaml"), without).expect("yaml");
    let stderr = lexindex(&h);
    assert!(stderr.contains("has no `inbox` collection"), "{stderr}");
    assert!(!h.join("inbox/entities").exists());
}
