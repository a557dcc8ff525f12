//! `brain mcp`: golden JSON-RPC transcripts (golden/brain-mcp), a live session (index changes seen
//! without a restart, telemetry rows, results equal to `rank`), `install --claude --write`, and the
//! official MCP TypeScript SDK client driving the built server (tests/mcp-client).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use brain_doc::Hit;
use brain_tests::{bin, command, parse_lines, run};
use serde_json::{Value, json};

mod fixture;

const NOW: &str = "2026-04-10T12:00:00Z";

/// The MCP fixture home ([`fixture::mcp_home`]); a case's `stdin.in` becomes its `stdin` with every
/// `@@PAD:N@@` replaced by N bytes of `x` (oversized requests without megabytes in the repository).
fn setup(work: &Path) {
    fixture::mcp_home(work);
    if let Ok(template) = std::fs::read_to_string(work.join("stdin.in")) {
        let re = regex::Regex::new(r"@@PAD:(\d+)@@").expect("regex");
        let text = re.replace_all(&template, |c: &regex::Captures<'_>| {
            "x".repeat(c[1].parse().expect("pad"))
        });
        std::fs::write(work.join("stdin"), text.as_bytes()).expect("stdin");
    }
}

#[test]
fn golden_brain_mcp() {
    brain_tests::golden("brain-mcp", "brain", setup);
}

/// A running `brain mcp` over the fixture home.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(home: &Path) -> Session {
        Self::start_with(home, &[])
    }

    fn start_with(home: &Path, args: &[&str]) -> Session {
        let mut child = command("brain", home)
            .env("BRAIN_NOW", NOW)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn brain mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        let init = s.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        s
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").expect("send");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(v["id"], self.next_id, "{v}");
        v
    }

    /// `tools/call` → the result object (`content`, `structuredContent`, `isError`).
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        v["result"].clone()
    }

    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin);
        self.child.wait().expect("wait")
    }
}

fn fixture() -> tempfile::TempDir {
    let work = tempfile::tempdir().expect("tempdir");
    setup(work.path());
    work
}

#[test]
fn query_results_are_rank_hits_and_eof_ends_cleanly() {
    let work = fixture();
    let home = work.path().join("home");
    let mut s = Session::start(&home);
    let r = s.call("query", json!({"query": "lock contention"}));
    assert_eq!(r["isError"], false, "{r}");
    let results = r["structuredContent"]["results"]
        .as_array()
        .expect("results")
        .clone();
    let ranked = run(
        command("rank", &home)
            .env("BRAIN_NOW", NOW)
            .args(["lock", "contention"]),
        b"",
    );
    let hits: Vec<Hit> = parse_lines(&ranked.stdout);
    let pairs: Vec<(String, f64)> = hits.iter().map(|h| (h.uri.clone(), h.score)).collect();
    let got: Vec<(String, f64)> = results
        .iter()
        .map(|x| {
            (
                x["uri"].as_str().unwrap_or_default().to_string(),
                x["score"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(got, pairs, "the MCP query tool ranks exactly as `rank`");
    let low: Vec<bool> = results.iter().map(|x| x["untrusted"] == true).collect();
    let chrome: Vec<bool> = hits
        .iter()
        .map(|h| h.collection == "chrome-history")
        .collect();
    assert_eq!(
        low, chrome,
        "exactly the chrome-history hits are marked untrusted"
    );
    assert!(s.finish().success(), "EOF is a clean shutdown");
}

/// What `brain tune` writes reaches agents: the MCP `query` tool takes `limit` and `per_doc` from
/// `search_strategy.yaml` as `brain ask` does (it hard-coded 10 and 1 before issue 39), and a
/// `limit` argument still wins.
#[test]
fn the_query_tool_follows_the_tuned_strategy() {
    let work = fixture();
    let home = work.path().join("home");
    let count = |home: &Path, args: Value| {
        let mut s = Session::start(home);
        let r = s.call("query", args);
        assert_eq!(r["isError"], false, "{r}");
        let n = r["structuredContent"]["results"]
            .as_array()
            .map_or(0, Vec::len);
        assert!(s.finish().success());
        n
    };
    let q = json!({"query": "lock"});
    let untuned = count(&home, q.clone());
    assert!(
        untuned > 2,
        "the fixture answers `lock` with more than 2 hits: {untuned}"
    );
    std::fs::write(home.join("search_strategy.yaml"), "limit: 2\n").expect("strategy");
    assert_eq!(count(&home, q), 2, "the tuned limit");
    let ask = run(
        command("brain", &home)
            .env("BRAIN_NOW", NOW)
            .args(["ask", "--json", "--no-dedup", "lock"]),
        b"",
    );
    let env: Value = serde_json::from_slice(&ask.stdout).expect("envelope");
    let hits: Vec<Hit> = serde_json::from_value(env["hits"].clone()).expect("hits");
    assert_eq!(hits.len(), 2, "brain ask reads the same strategy");
    assert_eq!(
        count(&home, json!({"query": "lock", "limit": 3})),
        3,
        "an argument wins"
    );
}

/// Every agent session carries the `tools/list` answer (issue 38: 26,498 bytes and 15 tools
/// before; issue 59: 20,327; QMD's handful of tools is the anchor). A size bound, not a time: the
/// whole answer as sent stays under 10 KB; with `--output-schemas` every tool has one (and the
/// answer is bigger), and a call with an argument the lean list does not forbid is still refused.
#[test]
fn tools_list_stays_small() {
    let work = fixture();
    let mut s = Session::start(&work.path().join("home"));
    let r = s.request("tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().expect("tools").clone();
    let whole = serde_json::to_string(&r).expect("json").len();
    let read: usize = tools
        .iter()
        .map(|t| {
            serde_json::to_string(&json!({
                "name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]
            }))
            .expect("json")
            .len()
        })
        .sum();
    // 13 since issue 40 added `timeline` (the briefing is `context` without a task, and a prompt).
    assert!(tools.len() <= 13, "{} tools", tools.len());
    assert!(read <= whole, "what a model reads: {read} bytes");
    let sent = serde_json::to_string(&r).expect("json");
    assert!(
        sent.len() <= 10_240,
        "the answer as sent: {} bytes",
        sent.len()
    );
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none()));
    let r = s.request(
        "tools/call",
        json!({"name": "query", "arguments": {"query": "lock", "topK": 3}}),
    );
    assert!(r.to_string().contains("unknown argument `topK`"), "{r}");
    assert!(s.finish().success());
    let mut s = Session::start_with(&work.path().join("home"), &["--output-schemas"]);
    let r = s.request("tools/list", json!({}));
    let full = r["result"]["tools"].as_array().expect("tools").clone();
    assert_eq!(full.len(), tools.len());
    for t in &full {
        assert_eq!(t["outputSchema"]["type"], "object", "{}", t["name"]);
    }
    for t in &tools {
        let d = t["description"].as_str().unwrap_or_default();
        assert!(
            !d.is_empty() && d.len() <= 400,
            "{}: {} chars",
            t["name"],
            d.len()
        );
    }
    assert!(s.finish().success());
}

/// The briefing over MCP (issue 40): `context` without a task, the `brief` prompt, and the
/// `timeline` tool around a hit; each answer parsed back into its types.
#[test]
fn briefing_prompt_and_timeline() {
    let work = fixture();
    let mut s = Session::start(&work.path().join("home"));
    let r = s.call("context", json!({"budget": 600}));
    assert_eq!(r["isError"], false, "{r}");
    let block = &r["structuredContent"];
    assert!(
        block["task"].as_str().unwrap_or("").starts_with("briefing"),
        "{block}"
    );
    assert!(
        block["tokens"].as_u64().unwrap_or(u64::MAX) <= 600,
        "{block}"
    );
    let init = s.request("prompts/list", json!({}));
    assert_eq!(init["result"]["prompts"][0]["name"], "brief", "{init}");
    let p = s.request(
        "prompts/get",
        json!({"name": "brief", "arguments": {"budget": "500"}}),
    );
    let text = p["result"]["messages"][0]["content"]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.starts_with("<memory-context task=\"briefing\""),
        "{text}"
    );
    assert_eq!(
        r["content"][0]["text"].as_str().map(|t| !t.is_empty()),
        Some(true)
    );
    let bad = s.request("prompts/get", json!({"name": "nope"}));
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown prompt"),
        "{bad}"
    );
    let bad = s.request(
        "prompts/get",
        json!({"name": "brief", "arguments": {"budget": "lots"}}),
    );
    assert!(bad["error"].is_object(), "{bad}");
    // A hit, then what happened around it.
    let q = s.call("query", json!({"query": "lock", "limit": 1}));
    let first = &q["structuredContent"]["results"][0];
    let (Some(uri), Some(line)) = (first["uri"].as_str(), first["line"].as_u64()) else {
        panic!("no hit for `lock`: {q}")
    };
    let anchor = format!("{uri}:{line}");
    let t = s.call(
        "timeline",
        json!({"anchor": anchor, "before": 2, "after": 2, "window_hours": 8760}),
    );
    assert_eq!(t["isError"], false, "{t}");
    let tl = &t["structuredContent"];
    assert_eq!(tl["kind"], "timeline");
    assert_eq!(tl["anchor"]["doc"]["uri"], uri, "{tl}");
    let around: Vec<Hit> = serde_json::from_value(tl["before"].clone()).expect("hits");
    assert!(around.len() <= 2);
    let after: Vec<Hit> = serde_json::from_value(tl["after"].clone()).expect("hits");
    assert!(after.len() <= 2);
    assert!(
        !around.iter().chain(after.iter()).any(|h| h.uri == uri),
        "the anchor is not around itself"
    );
    let none = s.call("timeline", json!({"anchor": "brain://nope/x.md"}));
    assert_eq!(none["isError"], true, "{none}");
    let big = s.call("timeline", json!({"anchor": "2026-04-01", "before": 1000}));
    assert_eq!(big["isError"], true, "{big}");
    assert!(s.finish().success());
}

/// `wm_update` does what the four tools it replaced did: pin, unpin, remove, promote (with a key);
/// a key with another action and an unknown action are bad arguments, and nothing changes.
#[test]
fn wm_update_pins_unpins_removes_and_promotes_a_note() {
    let work = fixture();
    let mut s = Session::start(&work.path().join("home"));
    let added = s.call("wm_add", json!({"text": "rerun the ledger test"}));
    let id = added["structuredContent"]["id"].as_u64().expect("id");
    let other = s.call("wm_add", json!({"text": "check the flaky widget"}));
    let other = other["structuredContent"]["id"].as_u64().expect("id");
    let pinned = s.call("wm_update", json!({"id": id, "action": "pin"}));
    let item = |r: &Value, id: u64| -> Value {
        r["structuredContent"]["items"]
            .as_array()
            .and_then(|a| a.iter().find(|i| i["id"] == id).cloned())
            .unwrap_or(Value::Null)
    };
    assert_eq!(item(&pinned, id)["pinned"], true, "{pinned}");
    let unpinned = s.call("wm_update", json!({"id": id, "action": "unpin"}));
    assert_eq!(item(&unpinned, id)["pinned"], false, "{unpinned}");
    let bad = s.call(
        "wm_update",
        json!({"id": id, "action": "remove", "key": "x"}),
    );
    assert_eq!(bad["isError"], true, "{bad}");
    let unknown = s.call("wm_update", json!({"id": id, "action": "explode"}));
    assert_eq!(unknown["isError"], true, "{unknown}");
    let removed = s.call("wm_update", json!({"id": other, "action": "remove"}));
    assert_eq!(item(&removed, other), Value::Null, "{removed}");
    assert_ne!(
        item(&removed, id),
        Value::Null,
        "the other note stays: {removed}"
    );
    let promoted = s.call(
        "wm_update",
        json!({"id": id, "action": "promote", "key": "ledger.test"}),
    );
    assert_eq!(promoted["isError"], false, "{promoted}");
    assert!(
        promoted["structuredContent"]["promoted"]
            .as_str()
            .is_some_and(|u| u.starts_with("brain://")),
        "{promoted}"
    );
    assert_eq!(
        item(&promoted, id),
        Value::Null,
        "promoted notes leave working memory"
    );
    assert!(s.finish().success());
}

#[test]
fn index_changes_are_seen_without_a_restart() {
    let work = fixture();
    let home = work.path().join("home");
    let mut s = Session::start(&home);
    let before = s.call("query", json!({"query": "zebra"}));
    assert_eq!(
        before["structuredContent"]["results"],
        json!([]),
        "{before}"
    );
    std::fs::write(
        work.path().join("corpus-notes/kb/zebra.md"),
        "---\ntitle: Zebra crossings\ndate: 2026-04-10T09:00:00Z\n---\n# Zebra crossings\n\nA zebra note.\n",
    )
    .expect("write note");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = s.call("query", json!({"query": "zebra"}));
    assert_eq!(
        after["structuredContent"]["results"][0]["uri"], "brain://notes/kb/zebra.md",
        "{after}"
    );
    let got = s.call("get", json!({"file": "notes/kb/zebra.md", "fromLine": 7}));
    assert_eq!(got["structuredContent"]["text"], "A zebra note.\n", "{got}");
    assert!(s.finish().success());
}

#[test]
fn every_call_writes_a_telemetry_row_without_the_query_text() {
    let work = fixture();
    let home = work.path().join("home");
    let mut s = Session::start(&home);
    s.call("query", json!({"query": "secretword lock"}));
    s.call("get", json!({"file": "#000000"}));
    s.request(
        "resources/read",
        json!({"uri": "brain://notes/kb/rust-tips.md"}),
    );
    assert!(s.finish().success());
    let log = std::fs::read_to_string(home.join("logs/usage.jsonl")).expect("usage.jsonl");
    assert!(
        !log.contains("secretword"),
        "query text never logged: {log}"
    );
    let rows: Vec<Value> = parse_lines(log.as_bytes());
    let mcp: Vec<(&str, &str, bool)> = rows
        .iter()
        .filter(|r| r["surface"] == "mcp")
        .map(|r| {
            (
                r["event"].as_str().unwrap_or(""),
                r["tool"].as_str().unwrap_or(""),
                r["ok"] == true,
            )
        })
        .collect();
    assert_eq!(
        mcp,
        vec![
            ("tool_call", "query", true),
            ("tool_call", "get", false),
            ("resource_read", "", true)
        ]
    );
    assert!(rows.iter().all(|r| r["latency_ms"].is_number()), "{log}");
}

#[test]
fn remember_then_query_finds_the_entry_in_the_same_session() {
    let work = fixture();
    let home = work.path().join("home");
    let mut s = Session::start(&home);
    // The engine is open (on the index without the entry) before the capture.
    let before = s.call("query", json!({"query": "flamingo"}));
    assert_eq!(
        before["structuredContent"]["results"],
        json!([]),
        "{before}"
    );
    let saved = s.call(
        "remember",
        json!({"text": "Decided: the lock rewrite is codenamed flamingo", "type": "decision", "tags": ["locks"]}),
    );
    assert_eq!(saved["isError"], false, "{saved}");
    let entry = &saved["structuredContent"];
    assert_eq!(
        (
            entry["entry_id"].as_str(),
            entry["uri"].as_str(),
            entry["indexed"].as_bool()
        ),
        (
            Some("20260410-001"),
            Some("brain://inbox/2026-04-10.md"),
            Some(true)
        ),
        "{saved}"
    );
    let after = s.call("query", json!({"query": "flamingo"}));
    let top = &after["structuredContent"]["results"][0];
    assert_eq!(top["uri"], entry["uri"], "{after}");
    assert!(
        top["snippet"]
            .as_str()
            .is_some_and(|t| t.contains("codenamed flamingo")),
        "{after}"
    );
    let read = s.call(
        "get",
        json!({"file": entry["uri"], "fromLine": entry["line"], "maxLines": 1}),
    );
    assert_eq!(
        read["structuredContent"]["text"],
        "## 2026-04-10T12:00:00+00:00 · decision · 20260410-001 · tags: locks\n",
        "{read}"
    );
    let recent = s.call("recent", json!({"since": "1h", "collections": ["inbox"]}));
    let items = &recent["structuredContent"]["items"];
    assert_eq!(
        (items[0]["uri"].clone(), items[0]["indexed"].clone()),
        (entry["uri"].clone(), json!(true)),
        "{recent}"
    );
    let refused = s.call(
        "remember",
        json!({"text": "deploy key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    let rec: Value = serde_json::from_str(refused["content"][0]["text"].as_str().unwrap_or(""))
        .expect("error record");
    assert_eq!(
        (rec["error"].as_str(), rec["reason"].as_str()),
        (Some("refused"), Some("secret")),
        "{rec}"
    );
    assert!(s.finish().success());
    let day = std::fs::read_to_string(home.join("inbox/2026-04-10.md")).expect("day file");
    assert!(
        day.contains("flamingo") && !day.contains("sk-proj"),
        "{day}"
    );
    // One telemetry row per call: the capture and the walk log their own, the server the rest;
    // a get of a query's hit adds a click.
    let log = std::fs::read_to_string(home.join("logs/usage.jsonl")).expect("usage.jsonl");
    let rows: Vec<Value> = parse_lines(log.as_bytes());
    let events: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r["surface"] == "mcp")
        .map(|r| {
            (
                r["event"].as_str().unwrap_or(""),
                r["tool"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("tool_call", "query"),
            ("inbox_write", ""),
            ("tool_call", "query"),
            // The get read a hit of the query before it: a click (issue #24).
            ("click", ""),
            ("tool_call", "get"),
            ("recent", ""),
            ("inbox_refused", ""),
        ]
    );
}

#[test]
fn install_claude_write_merges_idempotently_with_a_backup() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = work.path().join("home");
    let cfg = work.path().join(".mcp.json");
    std::fs::write(
        &cfg,
        r#"{"mcpServers": {"other": {"command": "x", "args": []}}}"#,
    )
    .expect("seed");
    let install = || {
        run(
            command("brain", &home).current_dir(work.path()).args([
                "mcp",
                "install",
                "--claude",
                "--write",
                "--scope",
                "project",
                "--command",
                "/opt/brain",
            ]),
            b"",
        )
    };
    let first = install();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&cfg).expect("read")).expect("json");
    assert_eq!(
        v["mcpServers"]["other"]["command"], "x",
        "other servers kept"
    );
    assert_eq!(v["mcpServers"]["brain"]["command"], "/opt/brain");
    assert_eq!(v["mcpServers"]["brain"]["args"], json!(["mcp"]));
    assert_eq!(
        v["mcpServers"]["brain"]["env"]["BRAIN_HOME"],
        home.display().to_string()
    );
    assert!(
        work.path().join(".mcp.json.bak").exists(),
        "backup of the previous file"
    );
    let before = std::fs::read(&cfg).expect("read");
    let second = install();
    assert!(String::from_utf8_lossy(&second.stderr).contains("unchanged"));
    assert_eq!(
        std::fs::read(&cfg).expect("read"),
        before,
        "second run writes nothing"
    );
    std::fs::write(&cfg, "{broken").expect("break");
    assert_eq!(
        install().status.code(),
        Some(64),
        "an unreadable config is refused, not overwritten"
    );
    assert_eq!(std::fs::read_to_string(&cfg).expect("read"), "{broken");
}

#[test]
fn the_official_typescript_sdk_client_drives_the_server() {
    let Some(dir) = brain_tests::mcp_client() else {
        return;
    };
    let work = fixture();
    let home = work.path().join("home");
    let brain = bin("brain");
    let stdout = brain_tests::run_mcp_client(
        &dir,
        "client.mjs",
        &[
            ("BRAIN_BIN", brain.as_os_str()),
            ("BRAIN_HOME", home.as_os_str()),
            ("BRAIN_NOW", NOW.as_ref()),
        ],
    );
    assert!(stdout.contains("checks passed over stdio"), "{stdout}");
}

/// `brain mcp install --claude --write` applies to every project by default (~/.claude.json) and
/// says the file it wrote as an absolute path (issue 59: it wrote ./.mcp.json wherever you stood
/// and said a relative path); `--scope project` writes ./.mcp.json, named in full too.
#[test]
fn install_claude_write_is_for_every_project_by_default() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let install = |extra: &[&str]| {
        run(
            command("brain", &home)
                .current_dir(work.path())
                .args([
                    "mcp",
                    "install",
                    "--claude",
                    "--write",
                    "--command",
                    "/opt/brain",
                ])
                .args(extra),
            b"",
        )
    };
    let out = install(&[]);
    let said = String::from_utf8_lossy(&out.stderr);
    let user = home.join(".claude.json");
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!("wrote {}", user.display())),
        "{said}"
    );
    assert!(!work.path().join(".mcp.json").exists());
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&user).expect("read")).expect("json");
    assert_eq!(v["mcpServers"]["brain"]["command"], "/opt/brain");
    let out = install(&["--scope", "project"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!(
            "wrote {}",
            work.path().join(".mcp.json").display()
        )),
        "{said}"
    );
}
