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

/// Evidence in context (issue 56): a question whose evidence text is in a document the search
/// finds counts as in the block; one whose evidence sits deep in a long session is in it only when
/// the block brings that passage; a document whose id is not a plain file name never enters a
/// block; hostile evidence (huge, empty) is scored, never a panic; a budget out of range is 64.
#[test]
fn eval_measures_the_evidence_inside_the_block_an_agent_receives() {
    let work = tempfile::tempdir().expect("tempdir");
    let set = work.path().join("set");
    std::fs::create_dir_all(set.join("qrels")).expect("mkdir");
    let filler: String = (0..400)
        .map(|i| format!("Turn {i}: we talked about the weather and nothing else at all.\n\n"))
        .collect();
    let long = format!(
        "{filler}Melanie: I finally chose the cedar wood kayak after the harbour trip.\n\n{filler}"
    );
    let docs = [
        (
            "s1",
            "Caroline: I joined the pottery class on Tuesday.\n\nMelanie: Nice!",
        ),
        ("s2", long.as_str()),
        ("s3", "Caroline: my sister moved to Lisbon in spring."),
        ("a/b", "Caroline: the violin lessons start in June."),
    ];
    let corpus: String = docs
        .iter()
        .map(|(id, text)| {
            serde_json::json!({"_id": id, "title": "", "text": text}).to_string() + "\n"
        })
        .collect();
    std::fs::write(set.join("corpus.jsonl"), corpus).expect("corpus");
    let huge = "pottery ".repeat(20_000);
    let queries = [
        (
            "q1",
            "pottery class",
            vec!["Caroline: I joined the pottery class on Tuesday."],
        ),
        (
            "q2",
            "which kayak did Melanie choose",
            vec!["Melanie: I finally chose the cedar wood kayak after the harbour trip."],
        ),
        (
            "q3",
            "violin lessons",
            vec!["Caroline: the violin lessons start in June."],
        ),
        ("q4", "pottery", vec![huge.as_str(), ""]),
        ("q5", "Lisbon", vec![]),
    ];
    let mut qs = String::new();
    let mut qrels = String::from("query-id\tcorpus-id\tscore\n");
    for (id, text, ev) in queries {
        qs += &(serde_json::json!({"_id": id, "text": text, "metadata": {"evidence": ev}})
            .to_string()
            + "\n");
        qrels += &format!("{id}\ts1\t1\n");
    }
    std::fs::write(set.join("queries.jsonl"), qs).expect("queries");
    std::fs::write(set.join("qrels/test.tsv"), qrels).expect("qrels");
    let eval = |extra: &[&str]| {
        run(
            command("brain", work.path())
                .args(["eval", "--json", "--evidence-budgets", "1000,200"])
                .args(extra)
                .arg(&set),
            b"",
        )
    };
    let out = eval(&[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: brain_eval::Report = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(r.queries, 5);
    assert_eq!(r.evidence_docs_unwritten, 1, "a/b is no file name");
    let budgets: Vec<usize> = r.evidence.iter().map(|e| e.budget).collect();
    assert_eq!(budgets, [200, 1000], "sorted");
    for e in &r.evidence {
        assert_eq!(e.questions, 4, "q5 has no evidence: {e:?}");
    }
    // At 1,000 tokens: q1 (a short session) and q2 (the passage of a long one) are in the block;
    // q3's session cannot be read, q4's texts are never found whole.
    let at = |b: usize| r.evidence.iter().find(|e| e.budget == b).expect("budget");
    assert_eq!(at(1000).in_context, 0.5, "{:?}", r.evidence);
    assert_eq!(at(1000).texts_in_context, 0.4, "{:?}", r.evidence);
    assert!(at(200).in_context <= at(1000).in_context);
    // Every question is judged by s1 alone: the blocks' tokens from s1 are a share of them.
    let share = at(1000).judged_tokens;
    assert!(share > 0.0 && share < 1.0, "{:?}", r.evidence);

    let out = eval(&["--evidence-budgets", "0"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("from 1 to"));

    // Evidence that is not a list of texts: the line named, exit 64, nothing scored.
    for bad in [r#""evidence":"one text""#, r#""evidence":[1,2]"#] {
        std::fs::write(
            set.join("queries.jsonl"),
            format!("{{\"_id\":\"q1\",\"text\":\"pottery\",\"metadata\":{{{bad}}}}}\n"),
        )
        .expect("queries");
        let out = eval(&[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{err}");
        assert!(err.contains("queries.jsonl:1"), "{err}");
        assert!(out.stdout.is_empty());
    }
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
