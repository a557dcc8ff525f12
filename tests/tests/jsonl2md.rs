//! `jsonl2md`: golden cases, behaviour of the incremental and queue paths, and the conformance suite
//! over every real transcript in ../shared/corpora.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use brain_doc::Doc;
use brain_tests::{command, corpus, golden, parse_lines, run};

#[test]
fn golden_cases() {
    golden("jsonl2md", "jsonl2md", |_| {});
}

fn jsonl2md(home: &Path, args: &[&str], stdin: &[u8]) -> (Vec<Doc>, String, i32) {
    let out = run(command("jsonl2md", home).args(args), stdin);
    let docs = parse_lines::<Doc>(&out.stdout);
    (
        docs,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn golden_input(case: &str) -> PathBuf {
    brain_tests::workspace().join("golden/jsonl2md").join(case)
}

#[test]
fn markdown_files_round_trip_into_the_same_records_as_ndjson() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = home.path().join("out");
    let input = golden_input("claude-subagents/proj");
    let input = input.to_str().expect("utf8");
    let (docs, _, code) = jsonl2md(home.path(), &[input], b"");
    assert_eq!(code, 0);
    let (none, _, code) = jsonl2md(
        home.path(),
        &["--out-dir", out.to_str().expect("utf8"), input],
        b"",
    );
    assert_eq!(code, 0);
    assert!(none.is_empty(), "--out-dir prints no records");
    assert_eq!(docs.len(), 1);
    let md = std::fs::read_to_string(out.join(&docs[0].path)).expect("markdown written");
    assert_eq!(Doc::from_markdown(&md).expect("parses"), docs[0]);
}

#[test]
fn new_skips_unchanged_sessions_and_the_queue_gets_each_id_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let src = home.path().join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    for case in ["claude-split-message", "claude-compaction"] {
        for e in std::fs::read_dir(golden_input(case)).expect("ls").flatten() {
            if e.path().extension().is_some_and(|x| x == "jsonl") {
                std::fs::copy(e.path(), src.join(e.file_name())).expect("copy");
            }
        }
    }
    let src_s = src.to_str().expect("utf8");
    let q = home.path().join("pending_distill.txt");
    let q = q.to_str().expect("utf8");
    let (first, _, code) = jsonl2md(home.path(), &[src_s, "--new", "--queue", q], b"");
    assert_eq!(code, 0);
    assert_eq!(first.len(), 2);
    let (second, err, _) = jsonl2md(home.path(), &[src_s, "--new", "--queue", q], b"");
    assert!(second.is_empty(), "nothing changed, nothing emitted: {err}");
    assert!(err.contains("2 unchanged"), "{err}");
    // A touch without a content change is still unchanged (hash check); an append is new.
    let f = src.join("33333333-aaaa-4bbb-8ccc-000000000003.jsonl");
    let bytes = std::fs::read(&f).expect("read");
    std::fs::write(&f, &bytes).expect("touch");
    let (touched, _, _) = jsonl2md(home.path(), &[src_s, "--new", "--queue", q], b"");
    assert!(touched.is_empty());
    let mut more = bytes.clone();
    more.extend_from_slice(br#"{"type":"user","uuid":"u9","sessionId":"33333333-aaaa-4bbb-8ccc-000000000003","timestamp":"2026-03-03T10:00:00.000Z","message":{"role":"user","content":"And document it."}}"#);
    more.push(b'\n');
    std::fs::write(&f, more).expect("append");
    let (changed, _, _) = jsonl2md(home.path(), &[src_s, "--new", "--queue", q], b"");
    assert_eq!(changed.len(), 1);
    assert!(changed[0].body.contains("And document it."));
    let queue = std::fs::read_to_string(home.path().join("pending_distill.txt")).expect("queue");
    assert_eq!(
        queue.lines().collect::<Vec<_>>(),
        vec![
            "11111111-aaaa-4bbb-8ccc-000000000001",
            "33333333-aaaa-4bbb-8ccc-000000000003"
        ]
    );
}

#[test]
fn a_damaged_state_file_is_65_with_its_fix_and_moved_away_starts_over() {
    let home = tempfile::tempdir().expect("tempdir");
    let src = golden_input("claude-compaction");
    let src = src.to_str().expect("utf8");
    let (first, _, code) = jsonl2md(home.path(), &[src, "--new"], b"");
    assert_eq!((first.len(), code), (1, 0));
    let state = home.path().join("state/jsonl2md.json");
    std::fs::write(&state, "{\"files\": [tor").expect("damage");
    let (none, err, code) = jsonl2md(home.path(), &[src, "--new"], b"");
    assert_eq!(code, 65, "{err}");
    assert!(none.is_empty());
    assert!(
        err.contains("not a jsonl2md state file") && err.contains("fix: move the file away"),
        "{err}"
    );
    std::fs::rename(&state, home.path().join("aside.json")).expect("move away");
    let (again, err, code) = jsonl2md(home.path(), &[src, "--new"], b"");
    assert_eq!((again.len(), code), (1, 0), "{err}");
}

#[test]
fn stdin_and_hook_payloads_are_read() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = golden_input(
        "codex-doubled-messages/rollout-2026-03-04T11-00-00-019b0000-0000-7000-8000-000000000004.jsonl",
    );
    let bytes = std::fs::read(&file).expect("read");
    let (docs, _, code) = jsonl2md(home.path(), &["-"], &bytes);
    assert_eq!(code, 0);
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].id, "codex__019b0000-0000-7000-8000-000000000004");
    let payload = serde_json::json!({"session_id": "x", "transcript_path": file}).to_string();
    let (docs, _, code) = jsonl2md(home.path(), &["--hook"], payload.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(docs[0].meta["agent"], "codex");
    let (_, err, code) = jsonl2md(home.path(), &["--hook"], b"{}");
    assert_eq!(code, 64, "{err}");
}

#[test]
fn an_unreadable_input_is_reported_and_the_others_go_on() {
    let home = tempfile::tempdir().expect("tempdir");
    let good = golden_input("claude-compaction");
    let (docs, err, code) = jsonl2md(
        home.path(),
        &["/nonexistent/x.jsonl", good.to_str().expect("utf8")],
        b"",
    );
    assert_eq!(docs.len(), 1);
    assert_eq!(code, 64);
    assert!(err.contains("/nonexistent/x.jsonl"), "{err}");
}

#[test]
fn no_redact_keeps_secrets_and_redaction_counts_them() {
    let home = tempfile::tempdir().expect("tempdir");
    let case = golden_input("secrets-redacted");
    let (docs, _, _) = jsonl2md(home.path(), &[case.to_str().expect("utf8")], b"");
    assert_eq!(docs[0].meta["redactions"], 6);
    assert!(!docs[0].body.contains("AKIAIOSFODNN7EXAMPLE"));
    assert!(!docs[0].body.contains("bank PIN"), "private span removed");
    let (raw, _, _) = jsonl2md(
        home.path(),
        &["--no-redact", case.to_str().expect("utf8")],
        b"",
    );
    assert!(raw[0].body.contains("AKIAIOSFODNN7EXAMPLE"));
    assert!(
        !raw[0].body.contains("bank PIN"),
        "private spans go even without redaction"
    );
}

// ---- conformance over ../shared/corpora ------------------------------------------------------------

/// Independent oracle: a transcript file "has content" when some line (or Gemini message) is a user or
/// assistant message that is not meta and carries non-empty content.
fn has_content(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    if path.extension().is_some_and(|e| e == "json") {
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        return v.get("sessionId").is_some()
            && v["messages"].as_array().is_some_and(|m| {
                m.iter()
                    .any(|m| non_empty(&m["content"]) || m.get("toolCalls").is_some())
            });
    }
    // A transcript of warm-up probes only (a subagent asked "Warmup") is housekeeping, not content.
    let text = String::from_utf8_lossy(&bytes);
    let prompts: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "user")
        .map(|v| match &v["message"]["content"] {
            serde_json::Value::String(s) => s.trim().to_string(),
            other => other.to_string(),
        })
        .collect();
    if !prompts.is_empty() && prompts.iter().all(|p| p == "Warmup") {
        return false;
    }
    text.lines().any(|l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
        let claude = matches!(v["type"].as_str(), Some("user" | "assistant"))
            && v["isMeta"] != serde_json::Value::Bool(true)
            && non_empty(&v["message"]["content"]);
        let codex = v["type"] == "response_item"
            && (v["payload"]["type"] == "function_call"
                || (v["payload"]["type"] == "message" && v["payload"]["role"] == "assistant"));
        claude || codex
    })
}

fn non_empty(c: &serde_json::Value) -> bool {
    match c {
        serde_json::Value::String(s) => !s.trim().is_empty(),
        serde_json::Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p)
            } else {
                out.push(p)
            }
        }
    }
    out.sort();
    out
}

fn conformance(agent_dir: &str, expected_per_folder: &[(&str, usize)]) {
    let Some(root) = corpus(agent_dir) else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(command("jsonl2md", home.path()).arg(&root), b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let docs = parse_lines::<Doc>(&out.stdout);
    // Ids are file stems (seed 000); real Claude stems are UUIDs, but these test corpora reuse names like
    // `turn-1.jsonl` in different folders, so uniqueness holds per folder.
    let ids: BTreeSet<(String, &str)> = docs
        .iter()
        .map(|d| {
            (
                Path::new(&d.source.file)
                    .parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                d.id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        ids.len(),
        docs.len(),
        "document ids are unique within a folder"
    );
    for d in &docs {
        assert!(
            !d.body.trim().is_empty() && d.body.starts_with("## Conversation"),
            "{}",
            d.id
        );
        assert!(
            !d.date.is_empty() || d.meta["turns"] == 0,
            "{} has a date",
            d.id
        );
        assert_eq!(
            Doc::from_markdown(&d.to_markdown()).expect("round trip"),
            *d
        );
        assert!(d.source.sha256.as_ref().is_some_and(|h| h.len() == 64));
    }
    // Every main transcript with content yields exactly one document, named after its stem (and a
    // hash of its place when the stem does not carry the session id).
    for f in files(&root) {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let in_subagents = f.components().any(|c| c.as_os_str() == "subagents");
        let is_agent = name.starts_with("agent-");
        let ext_ok =
            name.ends_with(".jsonl") || (name.ends_with(".json") && !name.ends_with(".meta.json"));
        if in_subagents || is_agent || !ext_ok || !has_content(&f) {
            continue;
        }
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let agent = docs
            .iter()
            .find(|d| {
                let canonical = std::fs::canonicalize(&f).expect("canonical");
                d.source.file == canonical.display().to_string() && d.id.contains(stem)
            })
            .map(|d| d.source.agent.clone());
        assert!(
            agent.is_some(),
            "{} has content but no document",
            f.display()
        );
    }
    let mut per_folder: BTreeMap<String, usize> = BTreeMap::new();
    for d in &docs {
        let rel = d
            .source
            .file
            .split(&format!("corpora/{agent_dir}/"))
            .nth(1)
            .unwrap_or(&d.source.file);
        let top = rel.split('/').next().unwrap_or("").to_string();
        *per_folder.entry(top).or_default() += 1;
    }
    let want: BTreeMap<String, usize> = expected_per_folder
        .iter()
        .map(|(k, v)| ((*k).to_string(), *v))
        .collect();
    assert_eq!(per_folder, want, "documents per folder");
}

#[test]
fn conformance_claude_code() {
    conformance("claude-code", CLAUDE_EXPECTED);
}

#[test]
fn conformance_codex() {
    conformance("codex", CODEX_EXPECTED);
}

#[test]
fn conformance_gemini() {
    conformance("gemini", GEMINI_EXPECTED);
}

/// Documents per top-level folder of ../shared/corpora/claude-code (reviewed 2026-11-22: every main
/// `.jsonl` with anything to show yields one; the 17 zero-byte files, summary-only and usage-only files
/// (ccusage-fixtures-synthetic) and single-message `.json` examples yield none; subagent files fold into
/// their parent). 2026-11-25: subagent files whose parent is absent fold into one document per
/// parent session, and transcripts of warm-up probes only ("Warmup") yield none: test_data 69 → 57
/// (the nine subagent files of the absent session 741790a4 are one document; the other orphans were
/// warm-ups), sdist 54 → 53 (`user_sidechain.jsonl`, a warm-up).
const CLAUDE_EXPECTED: &[(&str, usize)] = &[
    ("agent-history-kvsankar", 1),
    ("claude-code-log-1.7.0-sdist", 53),
    ("claude-code-log-test_data", 57),
    ("codemie-code", 9),
    ("daaain-claude-code-log", 4),
];
/// Documents per folder of ../shared/corpora/codex.
const CODEX_EXPECTED: &[(&str, usize)] = &[("agent-history-kvsankar", 1), ("codemie-code", 7)];
/// Documents per folder of ../shared/corpora/gemini.
const GEMINI_EXPECTED: &[(&str, usize)] = &[("agent-history-kvsankar", 1), ("codemie-code", 3)];

/// The mutations a transcript meets in the wild, applied to a file's bytes. `whole_json` marks a
/// Gemini session (one JSON document), which only gets the mutations that keep a JSON document.
fn mutate(kind: &str, bytes: &[u8], whole_json: bool) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    Some(match kind {
        "bom" => [&b"\xEF\xBB\xBF"[..], bytes].concat(),
        "crlf" => text.replace('\n', "\r\n").into_bytes(),
        "utf16" => [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect(),
        "nul-first-line" if !whole_json => [&b"\0\0\0 half-written header\n"[..], bytes].concat(),
        "invalid-utf8-line" if !whole_json => [&b"\xC0\xAF\xFF garbage\n"[..], bytes].concat(),
        // Half-written: the last line cut in the middle (an agent still writing it).
        "truncated" if !whole_json => {
            let body = text.trim_end_matches('\n');
            let last = body.rfind('\n').map_or(0, |i| i + 1);
            if last == 0 {
                return None; // a one-line file cut in half holds nothing to keep
            }
            let cut = last + (body.len() - last) / 2;
            body.as_bytes()[..cut].to_vec()
        }
        // A session document cut short after its last message (a crash mid-save).
        "truncated" => {
            let cut = text.rfind(']')?;
            text.as_bytes()[..cut].to_vec()
        }
        "duplicate-lines" if !whole_json => {
            let lines: Vec<&str> = text.lines().collect();
            lines
                .iter()
                .flat_map(|l| [*l, *l])
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        }
        _ => return None,
    })
}

/// Mutants of every real transcript (BOM, CRLF, UTF-16, a NUL or non-UTF-8 first line, the last line
/// cut in half, every line twice) lose no session the original yields: each mutated tree gives as
/// many documents as the original tree. A BOM alone lost all 41 real Claude sessions of a folder before.
#[test]
fn mutants_of_real_transcripts_lose_no_session() {
    for agent_dir in ["claude-code", "codex", "gemini"] {
        let Some(root) = corpus(agent_dir) else {
            return;
        };
        let home = tempfile::tempdir().expect("tempdir");
        let count = |dir: &Path| {
            let out = run(command("jsonl2md", home.path()).args(["-q"]).arg(dir), b"");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert_eq!(out.status.code(), Some(0), "{}: {stderr}", dir.display());
            parse_lines::<Doc>(&out.stdout).len()
        };
        let original = count(&root);
        assert!(original > 0, "{agent_dir}: no documents");
        for kind in [
            "bom",
            "crlf",
            "utf16",
            "nul-first-line",
            "invalid-utf8-line",
            "truncated",
            "duplicate-lines",
        ] {
            let tree = tempfile::tempdir().expect("tempdir");
            for f in files(&root) {
                let rel = f.strip_prefix(&root).expect("under root");
                let dest = tree.path().join(rel);
                std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
                let bytes = std::fs::read(&f).expect("read");
                let name = f.to_string_lossy();
                let transcript = name.ends_with(".jsonl")
                    || (name.ends_with(".json") && !name.ends_with(".meta.json"));
                let whole_json = name.ends_with(".json");
                let out = if transcript && !bytes.is_empty() {
                    mutate(kind, &bytes, whole_json).unwrap_or(bytes)
                } else {
                    bytes
                };
                std::fs::write(&dest, out).expect("write");
            }
            assert_eq!(
                count(tree.path()),
                original,
                "{agent_dir}, {kind}: sessions lost"
            );
        }
    }
}

/// A Gemini session cut in the middle of a message keeps every complete message before the cut
/// and is reported once, as truncated — not as hundreds of "invalid JSON line" warnings.
#[test]
fn a_truncated_gemini_session_keeps_what_parses_and_is_reported_once() {
    let Some(root) = corpus("gemini") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let mut checked = 0;
    for f in files(&root) {
        let name = f.to_string_lossy().into_owned();
        let bytes = std::fs::read(&f).expect("read");
        if !name.ends_with(".json") || !name.contains("session-") || bytes.len() < 4096 {
            continue;
        }
        let whole = run(command("jsonl2md", home.path()).arg(&f), b"");
        let Some(full) = parse_lines::<Doc>(&whole.stdout).pop() else {
            continue;
        };
        let cut = tempfile::tempdir().expect("tempdir");
        let file = cut.path().join("session-cut.json");
        std::fs::write(&file, &bytes[..bytes.len() * 2 / 3]).expect("write");
        let out = run(command("jsonl2md", home.path()).arg(&file), b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        let docs: Vec<Doc> = parse_lines(&out.stdout);
        assert_eq!(docs.len(), 1, "{name}: the session is kept: {stderr}");
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), 1, "{name}: {warnings:#?}");
        assert!(warnings[0].contains("truncated"), "{}", warnings[0]);
        let turns = |d: &Doc| d.meta["turns"].as_u64().unwrap_or(0);
        assert!(
            turns(&docs[0]) >= 1 && turns(&docs[0]) <= turns(&full),
            "{name}"
        );
        assert!(docs[0].body.len() < full.body.len());
        checked += 1;
    }
    assert!(
        checked >= 1,
        "a Gemini session of 4 KB or more in the corpus"
    );
}

/// Sixteen `jsonl2md --new` runs at once (agent tabs finishing together), each with its own session
/// and one state file: every session is recorded. Before the merge-on-save, 1–2 of 16 survived.
#[test]
fn concurrent_new_runs_record_every_session() {
    let home = tempfile::tempdir().expect("tempdir");
    let src = std::fs::read_to_string(golden_input(
        "claude-split-message/11111111-aaaa-4bbb-8ccc-000000000001.jsonl",
    ))
    .expect("session");
    let mut children = Vec::new();
    for i in 0..16 {
        let id = format!("11111111-aaaa-4bbb-8ccc-0000000001{i:02}");
        let dir = home.path().join(format!("tab{i}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let file = dir.join(format!("{id}.jsonl"));
        std::fs::write(
            &file,
            src.replace("11111111-aaaa-4bbb-8ccc-000000000001", &id),
        )
        .expect("write");
        children.push(
            command("jsonl2md", home.path())
                .args(["--new", "-q"])
                .arg(&file)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn"),
        );
    }
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(home.path().join("state/jsonl2md.json")).expect("state file"),
    )
    .expect("state json");
    let n = state["sessions"]
        .as_object()
        .map_or(0, serde_json::Map::len);
    assert_eq!(n, 16, "sessions recorded");
}

/// Stores of many conversations (Cursor, OpenCode, Aider: issue #26), over copies of the corpora's
/// fixtures (`golden/jsonl2md-stores/<case>/shared` names them; never committed here).
#[test]
fn golden_stores() {
    let Some(corpora) = brain_tests::shared("corpora") else {
        return;
    };
    golden("jsonl2md-stores", "jsonl2md", |work| {
        brain_tests::copy_from_corpora(work, &corpora)
    });
}
