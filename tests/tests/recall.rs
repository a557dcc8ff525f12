//! The real-session recall set (bench/recall): 70 questions over the transcripts of
//! ../shared/corpora. Its judgments must name sessions `jsonl2md` writes, and auto mode must keep
//! answering it: MRR@10 ≥ 0.85 overall and ≥ 0.70 in every class (issue #21's targets for this
//! set), never below lexical.

use std::collections::BTreeMap;

use brain_tests::{command, run, shared, workspace};

/// The set as bench/recall/run.sh builds it, in a temporary folder.
fn recall_set(dir: &std::path::Path) -> Option<()> {
    let corpora = shared("corpora")?;
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let out = run(
        command("jsonl2md", &home).args([
            corpora.join("claude-code"),
            corpora.join("codex"),
            corpora.join("gemini"),
        ]),
        b"",
    );
    assert!(out.status.success());
    let set = dir.join("recall");
    std::fs::create_dir_all(set.join("qrels")).expect("mkdir");
    std::fs::write(set.join("corpus.jsonl"), &out.stdout).expect("corpus");
    let src = workspace().join("bench/recall");
    std::fs::copy(src.join("queries.jsonl"), set.join("queries.jsonl")).expect("queries");
    std::fs::copy(src.join("qrels/all.tsv"), set.join("qrels/all.tsv")).expect("qrels");
    Some(())
}

fn eval(dir: &std::path::Path, mode: &str) -> serde_json::Value {
    let out = run(
        command("brain", &dir.join("home"))
            .env("BRAIN_NOW", "2026-05-20T12:00:00Z")
            .args([
                "eval",
                "--json",
                "--per-query",
                "--split",
                "all",
                "--mode",
                mode,
            ])
            .arg(dir.join("recall")),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("report")
}

#[test]
fn every_judged_session_is_a_document_jsonl2md_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    if recall_set(dir.path()).is_none() {
        return;
    }
    let corpus = std::fs::read_to_string(dir.path().join("recall/corpus.jsonl")).expect("corpus");
    let docs: BTreeMap<String, brain_doc::Doc> = corpus
        .lines()
        .filter_map(|l| serde_json::from_str::<brain_doc::Doc>(l).ok())
        .map(|d| (d.id.clone(), d))
        .collect();
    let qrels = std::fs::read_to_string(dir.path().join("recall/qrels/all.tsv")).expect("qrels");
    let missing: Vec<&str> = qrels
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(1))
        .filter(|id| !docs.contains_key(*id))
        .collect();
    assert!(missing.is_empty(), "judged but not written: {missing:?}");
    // An id named by the hash of its transcript's place depends on where ../shared sits on this
    // machine (docs/jsonl2md.md, Document ids): the set must judge only ids every machine derives.
    let placed: Vec<&str> = qrels
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(1))
        .filter(|id| {
            let file = &docs[*id].source.file;
            id.ends_with(&brain_doc::sha256_hex(file.as_bytes())[..8])
        })
        .collect();
    assert!(
        placed.is_empty(),
        "judged ids that depend on the corpus's place: {placed:?}"
    );
    let queries = std::fs::read_to_string(dir.path().join("recall/queries.jsonl")).expect("q");
    assert!(queries.lines().count() >= 60);
}

#[test]
fn auto_mode_answers_the_recall_set_in_every_class() {
    let dir = tempfile::tempdir().expect("tempdir");
    if recall_set(dir.path()).is_none() {
        return;
    }
    let lex = eval(dir.path(), "lex");
    let auto = eval(dir.path(), "auto");
    let mrr = |r: &serde_json::Value| r["mrr_at_10"].as_f64().expect("mrr");
    eprintln!("recall set MRR@10: lex {} auto {}", mrr(&lex), mrr(&auto));
    assert!(mrr(&auto) >= 0.85, "auto MRR@10 {}", mrr(&auto));
    assert!(mrr(&auto) >= mrr(&lex), "auto below lex");
    // Without a model in the test home, auto is evaluated lexically, and says so.
    assert_eq!(auto["vectors"], false);
    // Per question: auto never ranks an answer below where lex ranks it (0 = not in the top 100).
    let firsts = |r: &serde_json::Value| -> Vec<(String, u64)> {
        r["per_query"]
            .as_array()
            .expect("per_query")
            .iter()
            .map(|q| {
                let rank = q["first_relevant"].as_u64().expect("rank");
                (
                    q["id"].as_str().expect("id").to_string(),
                    if rank == 0 { u64::MAX } else { rank },
                )
            })
            .collect()
    };
    let (l, a) = (firsts(&lex), firsts(&auto));
    assert_eq!(l.len(), 70);
    let worse: Vec<_> = l
        .iter()
        .zip(&a)
        .filter(|((_, x), (_, y))| y > x)
        .map(|((id, x), (_, y))| format!("{id}: lex {x}, auto {y}"))
        .collect();
    assert!(worse.is_empty(), "auto below lex: {worse:?}");
    let mean: f64 = auto["per_query"]
        .as_array()
        .expect("per_query")
        .iter()
        .map(|q| q["mrr_at_10"].as_f64().expect("mrr"))
        .sum::<f64>()
        / 70.0;
    assert!((mean - mrr(&auto)).abs() < 1e-3, "{mean} vs {}", mrr(&auto));
    let classes: BTreeMap<String, serde_json::Value> =
        serde_json::from_value(auto["classes"].clone()).expect("classes");
    assert_eq!(classes.len(), 7);
    for (class, c) in &classes {
        let m = c["mrr_at_10"].as_f64().expect("class mrr");
        assert!(m >= 0.70, "{class}: MRR@10 {m}");
    }
    // Evidence in context (issue 56): 31 questions carry the line that answers them; the block
    // `brain context` assembles from auto's hits holds it for most at 1,000 / 2,000 tokens (with
    // bge: 0.10 / 0.29 before the block brought its records' users' words and cut records by the
    // budget, 0.65 / 0.71 after; lexically, as here, 0.61 / 0.68).
    let evidence: Vec<brain_eval::evidence::EvidenceScore> =
        serde_json::from_value(auto["evidence"].clone()).expect("evidence");
    let at: Vec<(usize, usize)> = evidence.iter().map(|e| (e.budget, e.questions)).collect();
    assert_eq!(at, [(1000, 31), (2000, 31)]);
    assert!(evidence[0].in_context >= 0.45, "{evidence:?}");
    assert!(evidence[1].in_context >= 0.55, "{evidence:?}");
}
