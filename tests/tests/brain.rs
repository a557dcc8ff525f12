//! `brain`: ask (rank + fmt in one process), get, multi-get, collection, eval, and stage dispatch.
//!
//! Build first: `cargo build -p brain -p lexindex -p rank`.

use std::path::Path;

use brain_doc::{ErrorRecord, Hit};
use brain_tests::{command, parse_lines, run, run_ok, shared};

mod fixture;

fn brain(work: &Path, args: &[&str]) -> std::process::Output {
    let home = work.join("home");
    run(
        command("brain", &home)
            .env("BRAIN_NOW", "2026-04-10T12:00:00Z")
            .args(args),
        b"",
    )
}

fn fixture() -> tempfile::TempDir {
    let work = tempfile::tempdir().expect("tempdir");
    fixture::index_fixture(work.path());
    work
}

#[test]
fn ask_json_gives_the_same_hits_as_rank() {
    let work = fixture();
    let out = brain(work.path(), &["ask", "--json", "lock", "contention"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    assert_eq!(env["query"], "lock contention");
    let hits: Vec<Hit> = serde_json::from_value(env["hits"].clone()).expect("hits");
    let ranked = run(
        command("rank", &work.path().join("home"))
            .env("BRAIN_NOW", "2026-04-10T12:00:00Z")
            .args(["lock", "contention"]),
        b"",
    );
    assert_eq!(hits, parse_lines::<Hit>(&ranked.stdout));
}

#[test]
fn ask_with_no_results_is_67_and_json_is_an_explicit_empty_envelope() {
    let work = fixture();
    let out = brain(work.path(), &["ask", "--json", "zebra"]);
    assert_eq!(out.status.code(), Some(67));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    assert_eq!(
        (env["count"].as_u64(), env["hits"].as_array().map(Vec::len)),
        (Some(0), Some(0))
    );
}

#[test]
fn ask_errors_follow_the_exit_code_contract() {
    let empty = tempfile::tempdir().expect("tempdir");
    let out = brain(empty.path(), &["ask", "--json", "lock"]);
    assert_eq!(out.status.code(), Some(65), "no index");
    let rec: ErrorRecord =
        serde_json::from_slice(&out.stdout).expect("error record on stdout with --json");
    assert!(rec.fix.contains("lexindex"), "{rec:?}");
    let out = brain(empty.path(), &["ask", "--", "-only"]);
    assert_eq!(out.status.code(), Some(64), "bad query");
}

#[test]
fn get_by_docid_path_and_range() {
    let work = fixture();
    let out = brain(work.path(), &["ask", "--json", "gemini"]);
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    let docid = env["hits"][0]["docid"].as_str().expect("docid").to_string();
    let line = env["hits"][0]["line"].as_u64().expect("line");
    let out = brain(work.path(), &["get", &format!("{docid}:{line}:1")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(text.lines().count(), 1);
    assert!(
        text.contains("gemini"),
        "the hit's line holds the query word: {text}"
    );
    let out = brain(
        work.path(),
        &["get", "-l", "brain://brain/2026/04/s1.md:2:2"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "     2  id: brain/2026/04/s1.md\n     3  title: Debug gemini startup delay\n"
    );
    assert_eq!(
        brain(work.path(), &["get", "#000000"]).status.code(),
        Some(67)
    );
}

#[test]
fn multi_get_globs_and_skips_big_files_with_a_note() {
    let work = fixture();
    let out = brain(
        work.path(),
        &["multi-get", "notes/kb/*.md", "--max-bytes", "400"],
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(text.matches("==> brain://notes/kb/").count(), 3, "{text}");
    assert!(
        text.contains("[skipped: "),
        "the long note is skipped: {text}"
    );
    let out = brain(
        work.path(),
        &[
            "multi-get",
            "brain://notes/kb/rust-tips.md, brain://brain/2026/04/s2.md",
        ],
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.contains("cargo nextest") && text.contains("qmd embed -f"),
        "{text}"
    );
}

#[test]
fn collection_add_list_remove_round_trip() {
    let work = fixture();
    let vault = work.path().join("vault");
    std::fs::create_dir_all(&vault).expect("vault");
    let vault_s = vault.display().to_string();
    let out = brain(
        work.path(),
        &["collection", "add", "vault", &vault_s, "--trust", "low"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = String::from_utf8(brain(work.path(), &["collection", "list"]).stdout).expect("utf8");
    assert!(
        list.contains(&format!("vault\t{vault_s}\t**/*.md\tnotes\tlow")),
        "{list}"
    );
    assert_eq!(
        brain(work.path(), &["collection", "add", "vault", &vault_s])
            .status
            .code(),
        Some(64),
        "duplicate"
    );
    assert_eq!(
        brain(work.path(), &["collection", "remove", "vault"])
            .status
            .code(),
        Some(0)
    );
    let list = String::from_utf8(brain(work.path(), &["collection", "list"]).stdout).expect("utf8");
    assert!(!list.contains("vault"), "{list}");
}

#[test]
fn unknown_words_run_the_sibling_stage() {
    let work = fixture();
    let out = brain(work.path(), &["rank", "-n", "1", "gemini"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(parse_lines::<Hit>(&out.stdout).len(), 1);
    assert_eq!(
        brain(work.path(), &["no-such-stage"]).status.code(),
        Some(64)
    );
}

#[test]
fn eval_on_scifact_reaches_the_beir_bm25_baseline() {
    let Some(dir) = shared("ir/scifact") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(
        command("brain", home.path())
            .args(["eval", "--json"])
            .arg(&dir),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(r["queries"], 300);
    let ndcg = r["ndcg_at_10"].as_f64().expect("ndcg");
    eprintln!(
        "scifact nDCG@10 = {ndcg}, recall@100 = {}",
        r["recall_at_100"]
    );
    assert!(ndcg >= 0.665, "nDCG@10 {ndcg} below BEIR's BM25 0.665");
    assert!(r["recall_at_100"].as_f64().expect("r100") >= r["recall_at_10"].as_f64().expect("r10"));
}

/// `brain eval --rerank` (issue 56): a reranker that is not there fails the run (65, with the
/// command that installs one) instead of scoring the fused order as reranked; one over its budget
/// is counted in the report.
#[test]
fn eval_rerank_refuses_a_missing_reranker_and_counts_the_queries_it_did_not_rerank() {
    let Some(dir) = shared("ir/scifact") else {
        return;
    };
    let work = tempfile::tempdir().expect("tempdir");
    let kept = work.path().join("eval-home");
    let tiny = brain_tests::workspace().join("tests/fixtures/rerank-tiny");
    let eval = |reranker: &Path, strategy: Option<&Path>| {
        let mut c = command("brain", work.path());
        c.env("BRAIN_RERANKER", reranker)
            .args(["eval", "--json", "--rerank", "--max-queries", "5", "--home"])
            .arg(&kept)
            .arg(&dir);
        if let Some(s) = strategy {
            c.arg("--strategy").arg(s);
        }
        c
    };
    let out = run(&mut eval(Path::new("/nonexistent/reranker"), None), b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(
        err.contains("reranker unavailable") && err.contains("brain model fetch reranker"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    let out = run_ok(&mut eval(&tiny, None), b"");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(
        (r["reranked"].as_bool(), r.get("not_reranked")),
        (Some(true), None),
        "{r}"
    );

    let slow = work.path().join("slow.yaml");
    std::fs::write(&slow, "rerank:\n  budget_ms: 0\n").expect("strategy");
    let out = run_ok(&mut eval(&tiny, Some(&slow)), b"");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(r["not_reranked"], 5, "{r}");
}

#[test]
fn golden_brain_ask() {
    brain_tests::golden("brain-ask", "brain", fixture::index_fixture);
}
