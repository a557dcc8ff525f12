//! Cursor, OpenCode and Aider (issue #26): the built-here Cursor tree point by point against its
//! EXPECTED.md, the real databases against their SOURCES.md, the conformance suite over the three
//! corpus folders, default places and `brain doctor`, the stop-hook path end to end, `--new` per
//! conversation, and hostile stores (corrupt, truncated, locked, secrets, NULL and non-UTF-8 rows).
//!
//! Build first: `cargo build --workspace --bins`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use brain_doc::Doc;
use brain_tests::{bin, command, corpus, parse_lines, run, workspace};

fn jsonl2md(home: &Path, args: &[&Path]) -> (Vec<Doc>, String, i32) {
    let out = run(command("jsonl2md", home).args(args), b"");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        parse_lines(&out.stdout),
        stderr,
        out.status.code().unwrap_or(-1),
    )
}

fn by_id(docs: &[Doc]) -> BTreeMap<&str, &Doc> {
    docs.iter().map(|d| (d.id.as_str(), d)).collect()
}

/// A body's section (`## Conversation`, `## Tools Used`, `## Reasoning`), without its heading.
fn section<'a>(body: &'a str, heading: &str) -> &'a str {
    let Some(start) = body.find(&format!("## {heading}\n")) else {
        return "";
    };
    let rest = &body[start + heading.len() + 4..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = entry.path().strip_prefix(from).expect("under");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

const C1: &str = "cursor__11111111-1111-4111-8111-111111111111";
const C2: &str = "cursor__22222222-2222-4222-8222-222222222222";
const C3: &str = "cursor__33333333-3333-4333-8333-333333333333";
const C5: &str = "cursor__55555555-5555-4555-8555-555555555555";
const C6: &str = "cursor__66666666-6666-4666-8666-666666666666";
const C8: &str = "cursor__88888888-8888-4888-8888-888888888888";

/// `built-here/EXPECTED.md`, point by point.
#[test]
fn the_built_here_tree_yields_what_expected_md_says() {
    let Some(root) = corpus("cursor") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let (docs, stderr, code) = jsonl2md(home.path(), &[&root.join("built-here")]);
    assert_eq!(code, 0, "{stderr}");
    let docs = by_id(&docs);
    let ids: BTreeSet<&str> = docs.keys().copied().collect();
    // C4 is empty: no document; the flat 5555 transcript duplicates store.db: no second document.
    assert_eq!(
        ids,
        BTreeSet::from([C1, C2, C3, C5, C6, C8, "cursor__tab-1"]),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 empty") && stderr.contains("1 held by another store"),
        "{stderr}"
    );
    for d in docs.values() {
        assert_eq!(d.source.agent.as_deref(), Some("cursor"), "{}", d.id);
        assert_eq!(
            Doc::from_markdown(&d.to_markdown()).expect("round trip"),
            **d
        );
    }

    // Composer 1111 (_v 16, split storage, workspaceIdentifier).
    let c1 = docs[C1];
    assert_eq!(c1.title, "Fix failing parse test");
    assert_eq!(
        c1.meta["project"], "~/proj-alpha",
        "from workspaceIdentifier"
    );
    assert!(c1.meta.get("project_inferred").is_none());
    assert_eq!(
        c1.meta["models"],
        serde_json::json!(["claude-4.5-sonnet-thinking"])
    );
    assert_eq!(c1.meta["branch"], "main");
    assert!(c1.date.starts_with("2026-01-01T10:00:0"), "{}", c1.date);
    assert_eq!(c1.meta["ended"], "2026-01-01T10:00:09.000Z");
    let talk = section(&c1.body, "Conversation");
    let order = [
        "**User**: Why does `cargo test` fail in proj-alpha?",
        "**Assistant**: I'll run the tests to see the failure.",
        "Tool error (Bash: cargo test -p alpha)",
        "**Assistant**: Fixed: `parse` now returns an empty vec",
        "```rust",
    ];
    let mut at = 0;
    for want in order {
        let i = talk[at..]
            .find(want)
            .unwrap_or_else(|| panic!("{want:?} in order in:\n{talk}"));
        at += i + want.len();
    }
    // Thinking is reasoning, apart from the conversation.
    let thought = "The user wants the failing test; run it first.";
    assert!(section(&c1.body, "Reasoning").contains(thought));
    assert!(!talk.contains(thought));
    let tools: Vec<&str> = section(&c1.body, "Tools Used")
        .lines()
        .filter(|l| l.starts_with("- "))
        .collect();
    assert_eq!(
        tools,
        [
            "- Bash: cargo test -p alpha [error: test parse::empty ... FAILED]",
            "- Read: /home/dev/proj-alpha/src/parse.rs",
            "- Edit: /home/dev/proj-alpha/src/parse.rs",
            "- Bash: rm -rf target [declined by the user]",
        ]
    );
    assert_eq!(c1.meta["tool_calls"], 4);
    // Never shown: the orphan bubble, the sub-composer row, request context, checkpoints, agentKv,
    // the auth key.
    let all: String = docs.values().map(|d| d.to_markdown()).collect();
    for never in [
        "Why does cargo test fial?",
        "(subagent output)",
        "request-level copy",
        "gitStatusRaw",
        "REDACTED-NEVER-READ",
        "(abandoned retry)",
        "<user_info>",
    ] {
        assert!(!all.contains(never), "{never:?} leaked");
    }
    // The NULL bubble is reported, not fatal.
    assert!(
        stderr.contains("c1-null-0000-4000-8000-000000000099: NULL: skipped"),
        "{stderr}"
    );

    // 2222: BLOB bubbles; project through the workspace's allComposers → workspace.json folder.
    let c2 = docs[C2];
    assert_eq!(c2.title, "Summarise README");
    assert_eq!(c2.meta["project"], "~/proj-alpha");
    assert_eq!(c2.meta["models"], serde_json::json!(["gpt-5"]));
    assert!(c2.body.contains("a byte parser"));
    // 3333: inline conversation, no name: the first user text is the title.
    let c3 = docs[C3];
    assert_eq!(c3.title, "Add a --verbose flag");
    assert!(c3.body.contains("Added `--verbose` to the CLI parser."));
    assert_eq!(c3.meta["project"], "~/proj-alpha");
    // The pre-2025 chat pane.
    assert_eq!(docs["cursor__tab-1"].meta["store"], "cursor-chat-pane");

    // cursor-agent store.db: the latest root only, injected context dropped, the call paired.
    let c5 = docs[C5];
    assert_eq!(c5.title, "List rust files");
    assert_eq!(c5.meta["store"], "cursor-agent");
    assert_eq!(c5.meta["models"], serde_json::json!(["gpt-5"]));
    assert_eq!(c5.meta["project"], "~/proj-alpha", "meta.json cwd");
    let talk = section(&c5.body, "Conversation");
    assert!(
        talk.starts_with("\n**User**: list the rust files"),
        "{talk}"
    );
    assert!(talk.contains("Two files: `src/lib.rs`, `src/parse.rs`."));
    assert!(section(&c5.body, "Tools Used").contains("- Glob: **/*.rs"));

    // Agent transcripts: nested with a subagent, and the legacy .txt.
    let c6 = docs[C6];
    assert_eq!(c6.meta["store"], "cursor-transcript");
    assert_eq!(c6.meta["subagents"], 1);
    assert_eq!(
        c6.meta["project"], "~/proj-alpha",
        "the projects/<slug> folder names it"
    );
    assert!(c6.meta.get("project_inferred").is_none());
    assert_eq!(c6.meta["time_from"], "file modification time");
    let c8 = docs[C8];
    assert_eq!(c8.meta["store"], "cursor-transcript");
    assert_eq!(c8.title, "what does lib.rs export?");
}

/// A Cursor transcript is never read as a Claude Code one (both are `.jsonl` of messages), by
/// path or by content on stdin.
#[test]
fn a_cursor_transcript_is_never_mistaken_for_a_claude_transcript() {
    let Some(root) = corpus("cursor") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let file = root.join("real/gitai-agent-transcript-2026-04/cursor-session-simple.jsonl");
    let (docs, stderr, code) = jsonl2md(home.path(), &[&file]);
    assert_eq!((code, docs.len()), (0, 1), "{stderr}");
    assert_eq!(docs[0].id, "cursor__cursor-session-simple");
    let bytes = std::fs::read(&file).expect("read");
    let out = run(command("jsonl2md", home.path()).arg("-"), &bytes);
    let piped: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(piped.len(), 1, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(piped[0].source.agent.as_deref(), Some("cursor"));
    assert_eq!(piped[0].body, docs[0].body);
}

/// The real databases produce the conversations their SOURCES.md describes.
#[test]
fn the_real_databases_yield_the_conversations_sources_md_describes() {
    let Some(root) = corpus("cursor") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");

    // git-ai's global DB excerpt: one composer, "Retrieve SQLite cursor queries", gpt-5, 42 bubbles
    // (2 user, 11 text, 10 thinking, 19 tools: grep×10, read_file×5, codebase_search×2,
    // apply_patch, read_lints), project visible only in tool paths.
    let (docs, stderr, code) = jsonl2md(home.path(), &[&root.join("real/gitai-global-2025-10")]);
    assert_eq!((code, docs.len()), (0, 1), "{stderr}");
    let d = &docs[0];
    assert_eq!(d.id, "cursor__00812842-49fe-4699-afae-bb22cda3f6e1");
    assert_eq!(d.title, "Retrieve SQLite cursor queries");
    assert_eq!(d.meta["models"], serde_json::json!(["gpt-5"]));
    assert_eq!(d.meta["tool_calls"], 19);
    let tools = section(&d.body, "Tools Used");
    let kinds: BTreeMap<&str, usize> = tools
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split(':').next())
        .fold(BTreeMap::new(), |mut m, k| {
            *m.entry(k).or_default() += 1;
            m
        });
    // grep → Grep ×10, read_file → Read ×5, codebase_search → Search ×2, apply_patch → Edit,
    // read_lints → Lints (canonical names, as other agents' tools).
    assert_eq!(kinds.get("Grep"), Some(&10), "{tools}");
    assert_eq!(kinds.get("Read"), Some(&5), "{tools}");
    assert_eq!(kinds.values().sum::<usize>(), 19, "{tools}");
    assert_eq!(
        d.meta["project"], "~/projects/git-ai",
        "/Users/svarlamov/projects/git-ai"
    );
    assert_eq!(d.meta["project_inferred"], true, "said so");
    assert!(
        !section(&d.body, "Reasoning").trim().is_empty(),
        "thinking kept apart"
    );
    let user_turns = section(&d.body, "Conversation")
        .matches("**User**:")
        .count();
    assert_eq!(user_turns, 2);
    assert!(
        !d.to_markdown()
            .contains("speculativeSummarizationEncryptionKey")
    );

    // slevin48's legacy workspace DB (Windows, Nov 2024): 26 inline composers and 5 chat-pane tabs,
    // project from workspace.json's `file:///c%3A/…`, unrelated editor state ignored.
    let (docs, stderr, code) = jsonl2md(
        home.path(),
        &[&root.join("real/slevin48-workspace-2024-11")],
    );
    assert_eq!(code, 0, "{stderr}");
    let stores: BTreeMap<String, usize> = docs.iter().fold(BTreeMap::new(), |mut m, d| {
        *m.entry(d.meta["store"].as_str().unwrap_or("").to_string())
            .or_default() += 1;
        m
    });
    assert_eq!(
        stores,
        BTreeMap::from([("cursor-ide".into(), 26), ("cursor-chat-pane".into(), 5)])
    );
    for d in &docs {
        assert_eq!(
            d.meta["project"], "c:/Users/ydebray/Documents/mobilechat",
            "{}",
            d.id
        );
        assert!(d.date.starts_with("2024-"), "{} {}", d.id, d.date);
    }
    // The datasette export beside it is no transcript of any agent: skipped and said so.
    assert!(
        stderr.contains("datasette-export-other-workspace.json: skipped"),
        "{stderr}"
    );

    // git-ai's agent transcript (2026): Read/WebSearch/WebFetch/Grep/Write, `<user_query>` unwrapped.
    let (docs, stderr, code) = jsonl2md(
        home.path(),
        &[&root.join("real/gitai-agent-transcript-2026-04")],
    );
    assert_eq!((code, docs.len()), (0, 1), "{stderr}");
    let d = &docs[0];
    assert_eq!(
        d.title,
        "Generate a file with all the HBO shows from the 90's in it"
    );
    assert!(!d.body.contains("<user_query>"));
    assert_eq!(d.meta["project"], "~/Desktop/testing-gitflows-git-ai");
    let tools = section(&d.body, "Tools Used");
    for t in [
        "- Read: ",
        "- WebSearch: ",
        "- WebFetch: ",
        "- Grep: ",
        "- Write: ",
    ] {
        assert!(tools.contains(t), "{t} in {tools}");
    }
}

/// The conformance suite over every file of the three folders: zero panics, documents that parse
/// back, unique ids, a date, provenance — and the counts reviewed by hand.
#[test]
fn conformance_over_cursor_opencode_and_aider() {
    let expected: &[(&str, &str, usize)] = &[
        // 7 of EXPECTED.md (C4 empty, the flat transcript of 5555 held by its store.db).
        ("cursor", "built-here", 7),
        // 1 global composer + 26 + 5 workspace conversations + 1 transcript.
        ("cursor", "real", 33),
        // v016 fixture 1; store-root transcripts 2 (aaaa with its meta.json's cwd, bbbb); the
        // transcripts/ cases error-line, multi-parts, user-only, with-tools (empty.jsonl is
        // empty, error-only.jsonl holds no message); vibe-replay 2.
        ("cursor", "upstream-synthetic", 9),
        // The database's session; the storage tree holds the same id: one document.
        ("opencode", "gitai-synthetic", 1),
        // 8 sessions: 3 where someone speaks, 5 of aider's output alone (startup, --show-repo).
        ("aider", "chat-history.excerpt.md", 3),
    ];
    let home = tempfile::tempdir().expect("tempdir");
    for (agent, folder, n) in expected {
        let Some(root) = corpus(agent) else {
            return;
        };
        let path = root.join(folder);
        let (docs, stderr, code) = jsonl2md(home.path(), &[&path]);
        assert_eq!(code, 0, "{agent}/{folder}: {stderr}");
        assert_eq!(docs.len(), *n, "{agent}/{folder}: {stderr}");
        let ids: BTreeSet<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids.len(), docs.len(), "{agent}/{folder}: unique ids");
        for d in &docs {
            assert!(d.id.starts_with(&format!("{agent}__")), "{}", d.id);
            assert_eq!(d.source.agent.as_deref(), Some(*agent));
            assert!(d.body.starts_with("## Conversation"), "{}", d.id);
            assert!(!d.date.is_empty(), "{} has a date", d.id);
            assert!(d.source.sha256.as_ref().is_some_and(|h| h.len() == 64));
            assert_eq!(
                Doc::from_markdown(&d.to_markdown()).expect("round trip"),
                *d
            );
        }
        // Same input, same bytes.
        let again = run(command("jsonl2md", home.path()).arg(&path), b"");
        let (first, _, _) = jsonl2md(home.path(), &[&path]);
        assert_eq!(parse_lines::<Doc>(&again.stdout), first);
    }
}

/// The agents' default places under a home, as Linux, macOS and Windows lay them out.
fn fake_user(user: &Path, layout: &str) {
    let cursor = corpus("cursor").expect("corpora");
    let ide = match layout {
        "linux" => ".config/Cursor/User",
        "macos" => "Library/Application Support/Cursor/User",
        _ => "AppData/Roaming/Cursor/User",
    };
    copy_tree(&cursor.join("built-here/User"), &user.join(ide));
    copy_tree(&cursor.join("built-here/dot-cursor"), &user.join(".cursor"));
    let opencode = match layout {
        "linux" => ".local/share/opencode",
        "macos" => "Library/Application Support/opencode",
        _ => "AppData/Local/opencode",
    };
    let oc = corpus("opencode").expect("corpora");
    copy_tree(
        &oc.join("gitai-synthetic/opencode-sqlite"),
        &user.join(opencode),
    );
    let repo = user.join("code/alpha");
    std::fs::create_dir_all(&repo).expect("mkdir");
    std::fs::copy(
        corpus("aider")
            .expect("corpora")
            .join("chat-history.excerpt.md"),
        repo.join(".aider.chat.history.md"),
    )
    .expect("copy");
}

/// Without arguments jsonl2md reads every agent's default place, on each platform's layout, and
/// `brain doctor` says which agents it found where.
#[test]
fn default_places_on_linux_macos_and_windows_are_found_and_doctor_reports_them() {
    if corpus("cursor").is_none() {
        return;
    }
    for layout in ["linux", "macos", "windows"] {
        let t = tempfile::tempdir().expect("tempdir");
        let user = t.path().join("user");
        fake_user(&user, layout);
        let home = t.path().join("home");
        let out = run(command("jsonl2md", &home).env("HOME", &user), b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{layout}: {stderr}");
        let docs: Vec<Doc> = parse_lines(&out.stdout);
        let agents: BTreeMap<String, usize> = docs.iter().fold(BTreeMap::new(), |mut m, d| {
            *m.entry(d.source.agent.clone().unwrap_or_default())
                .or_default() += 1;
            m
        });
        assert_eq!(
            agents,
            BTreeMap::from([
                ("aider".into(), 3),
                ("cursor".into(), 7),
                ("opencode".into(), 1)
            ]),
            "{layout}: {stderr}"
        );

        let doctor = run(
            command("brain", &home)
                .env("HOME", &user)
                .args(["doctor", "--json"]),
            b"",
        );
        let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("report");
        let check = report["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "agents"))
            .cloned()
            .expect("an agents check");
        assert_eq!(check["outcome"], "pass", "{check}");
        assert_eq!(
            check["summary"],
            "sessions of cursor, opencode, aider found"
        );
        let details: Vec<&str> = check["details"]
            .as_array()
            .expect("details")
            .iter()
            .filter_map(|d| d.as_str())
            .collect();
        let ide = match layout {
            "linux" => "~/.config/Cursor/User",
            "macos" => "~/Library/Application Support/Cursor/User",
            _ => "~/AppData/Roaming/Cursor/User",
        };
        for want in [
            "cursor: ~/.cursor/chats — 1 cursor-agent database".to_string(),
            "cursor: ~/.cursor/projects — 3 transcripts".to_string(),
            format!("cursor: {ide} — Cursor IDE: 1 global, 2 workspace databases"),
            "aider: ~/code/alpha/.aider.chat.history.md — 1 Aider history".to_string(),
        ] {
            assert!(
                details.contains(&want.as_str()),
                "{layout}: {want} in {details:?}"
            );
        }
        assert!(
            details
                .iter()
                .any(|d| d.starts_with("opencode: ~/") && d.ends_with("— 1 OpenCode database")),
            "{details:?}"
        );
    }
}

fn stop_hook(home: &Path, user: &Path, payload: &str) -> std::process::Output {
    // The home `brain hook install` made: a hook never makes one.
    std::fs::create_dir_all(home).expect("home");
    let mut c = Command::new("bash");
    c.arg(workspace().join("pipelines/stop-hook.sh"))
        .env("BRAIN_HOME", home)
        .env("HOME", user)
        .env("BRAIN_BIN", bin("brain"))
        .env("TZ", "UTC")
        .env_remove("BRAIN_TELEMETRY");
    run(&mut c, payload.as_bytes())
}

/// The ids (file stems) of `brain ask`'s hits for `query`.
fn ask(home: &Path, query: &str) -> Vec<String> {
    let out = run(
        command("brain", home).args(["ask", "--json", "--limit", "5", query]),
        b"",
    );
    let env: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    env["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|h| h["path"].as_str())
                .filter_map(|p| Path::new(p).file_stem()?.to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn hook_docs(home: &Path) -> Vec<u64> {
    std::fs::read_to_string(home.join("logs/usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["event"] == "stop_hook")
        .filter_map(|r| r["n_docs"].as_u64())
        .collect()
}

/// A composer row and its bubbles as Cursor 3 writes them, for `id`.
fn add_composer(db: &Path, id: &str, user: &str, answer: &str, command: &str) {
    let conn = rusqlite::Connection::open(db).expect("open");
    let bubble = |bid: &str, typ: u8, extra: serde_json::Value| {
        let mut b = serde_json::json!({"_v": 3, "type": typ, "bubbleId": bid,
            "createdAt": "2026-03-03T09:15:00.000Z", "text": ""});
        if let (Some(o), Some(e)) = (b.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        b
    };
    let bubbles = [
        bubble("n-1", 1, serde_json::json!({"text": user})),
        bubble(
            "n-2",
            2,
            serde_json::json!({"capabilityType": 15, "toolFormerData": {
            "name": "run_terminal_command_v2", "toolCallId": "call_n", "status": "completed",
            "params": serde_json::json!({"command": command}).to_string(),
            "result": serde_json::json!({"output": "ok", "exitCode": 0}).to_string()}}),
        ),
        bubble("n-3", 2, serde_json::json!({"text": answer})),
    ];
    let headers: Vec<serde_json::Value> = bubbles
        .iter()
        .map(|b| serde_json::json!({"bubbleId": b["bubbleId"], "type": b["type"]}))
        .collect();
    let composer = serde_json::json!({"_v": 16, "composerId": id, "name": "Morning fix",
        "createdAt": 1_772_529_300_000_i64, "lastUpdatedAt": 1_772_529_360_000_i64,
        "fullConversationHeadersOnly": headers,
        "workspaceIdentifier": {"id": "w", "uri": {"fsPath": "/home/dev/proj-beta"}}});
    conn.execute(
        "INSERT INTO cursorDiskKV(key, value) VALUES (?1, ?2)",
        (format!("composerData:{id}"), composer.to_string()),
    )
    .expect("insert");
    for b in &bubbles {
        conn.execute(
            "INSERT INTO cursorDiskKV(key, value) VALUES (?1, ?2)",
            (
                format!("bubbleId:{id}:{}", b["bubbleId"].as_str().unwrap_or("")),
                b.to_string(),
            ),
        )
        .expect("insert");
    }
}

/// The stop-hook path: a Cursor conversation is searchable by a phrase of a tool call's command
/// and of the assistant's answer; a new conversation is picked up in one incremental run, and
/// only it is re-rendered.
#[test]
fn a_cursor_conversation_is_searchable_end_to_end_and_the_stop_hook_picks_up_a_new_one() {
    let Some(cursor) = corpus("cursor") else {
        return;
    };
    let t = tempfile::tempdir().expect("tempdir");
    let user = t.path().join("user");
    let ide = user.join(".config/Cursor/User");
    copy_tree(&cursor.join("built-here/User"), &ide);
    let home = t.path().join("home");
    // A Cursor stop hook's payload names no Claude transcript: the default places are read.
    let payload = r#"{"conversation_id":"x","hook_event_name":"stop","workspace_roots":["/home/dev/proj-alpha"]}"#;
    assert_eq!(stop_hook(&home, &user, payload).status.code(), Some(0));
    assert_eq!(hook_docs(&home), [4], "C1, C2, C3 and the chat tab");
    // A phrase of a tool call's command, and of the assistant's answer: the session, and the
    // failed-command record the hook read from it (first: it says what failed).
    let hits = ask(&home, "cargo test -p alpha");
    assert!(hits.iter().take(2).any(|h| h == C1), "{hits:?}");
    assert!(ask(&home, "README describes proj-alpha byte parser").contains(&C2.to_string()));

    let id = "99999999-9999-4999-8999-999999999999";
    add_composer(
        &ide.join("globalStorage/state.vscdb"),
        id,
        "why is the beta migration slow?",
        "The migration rebuilds the zanzibar index on every row.",
        "psql -c 'EXPLAIN ANALYZE migrate_beta()'",
    );
    assert_eq!(stop_hook(&home, &user, "").status.code(), Some(0));
    assert_eq!(
        hook_docs(&home),
        [4, 1],
        "only the new conversation is rendered"
    );
    let new = format!("cursor__{id}");
    assert_eq!(ask(&home, "zanzibar index").first(), Some(&new));
    assert_eq!(
        ask(&home, "EXPLAIN ANALYZE migrate_beta").first(),
        Some(&new)
    );
    // Nothing changed: nothing rendered.
    assert_eq!(stop_hook(&home, &user, "").status.code(), Some(0));
    assert_eq!(hook_docs(&home), [4, 1, 0]);
}

/// `--new` fingerprints each conversation: a changed composer is the only one re-rendered, an
/// untouched database is not even opened.
#[test]
fn new_rerenders_only_the_conversation_that_changed() {
    let Some(cursor) = corpus("cursor") else {
        return;
    };
    let t = tempfile::tempdir().expect("tempdir");
    let user = t.path().join("User");
    copy_tree(&cursor.join("built-here/User"), &user);
    let home = t.path().join("home");
    let new = |home: &Path| {
        let out = run(command("jsonl2md", home).arg("--new").arg(&user), b"");
        assert_eq!(out.status.code(), Some(0));
        parse_lines::<Doc>(&out.stdout)
    };
    assert_eq!(new(&home).len(), 4);
    assert!(new(&home).is_empty());
    // A new bubble in composer 2222 (the database file changes as a whole).
    let db = user.join("globalStorage/state.vscdb");
    let conn = rusqlite::Connection::open(&db).expect("open");
    let key = "composerData:22222222-2222-4222-8222-222222222222";
    let data: String = conn
        .query_row(
            "SELECT CAST(value AS TEXT) FROM cursorDiskKV WHERE key = ?1",
            [key],
            |r| r.get(0),
        )
        .expect("composer");
    let mut v: serde_json::Value = serde_json::from_str(&data).expect("json");
    if let Some(h) = v["fullConversationHeadersOnly"].as_array_mut() {
        h.push(serde_json::json!({"bubbleId": "c2-more", "type": 1}));
    }
    conn.execute(
        "UPDATE cursorDiskKV SET value = ?1 WHERE key = ?2",
        (v.to_string(), key),
    )
    .expect("update");
    conn.execute(
        "INSERT INTO cursorDiskKV(key, value) VALUES ('bubbleId:22222222-2222-4222-8222-222222222222:c2-more', ?1)",
        [serde_json::json!({"type": 1, "bubbleId": "c2-more", "text": "and the CHANGELOG?"}).to_string()],
    )
    .expect("insert");
    drop(conn);
    let again = new(&home);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].id, C2);
    assert!(again[0].body.contains("and the CHANGELOG?"));
}

/// Hostile stores: garbage and truncated databases, a database locked by a writer, secrets in
/// every field, NULL and non-UTF-8 values, a conversation marked do-not-index. Nothing panics,
/// what can be read is read, what cannot is reported (exit 64), no secret reaches the output.
#[test]
fn hostile_stores_are_reported_never_fatal_and_secrets_never_leave() {
    let Some(cursor) = corpus("cursor") else {
        return;
    };
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");

    // Garbage, an empty file, and a database cut in half, each named as a store.
    let bad = t.path().join("bad");
    let real =
        std::fs::read(cursor.join("real/gitai-global-2025-10/User/globalStorage/state.vscdb"))
            .expect("read");
    for (place, bytes) in [
        (
            "a/User/globalStorage/state.vscdb",
            b"\x00garbage\xff".repeat(500),
        ),
        ("b/User/globalStorage/state.vscdb", Vec::new()),
        (
            "c/User/globalStorage/state.vscdb",
            real[..real.len() / 2].to_vec(),
        ),
        (
            "d/chats/0/1/store.db",
            b"SQLite format 3\x00 and then nothing".to_vec(),
        ),
        ("e/opencode.db", real[..4096].to_vec()),
        (
            "f/.aider.chat.history.md",
            b"\xff\xfe\x00# aider chat started at \xc0\n#### \xff\n".to_vec(),
        ),
    ] {
        let p = bad.join(place);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, bytes).expect("write");
    }
    let (docs, stderr, code) = jsonl2md(&home, &[&bad]);
    assert_eq!(code, 64, "unreadable stores are an input error: {stderr}");
    assert!(
        docs.iter()
            .all(|d| Doc::from_markdown(&d.to_markdown()).is_ok())
    );
    for place in ["a/User", "c/User", "d/chats", "e/opencode.db"] {
        assert!(
            stderr.contains(&format!("bad/{place}")),
            "{place} reported: {stderr}"
        );
    }

    // A good global database beside a corrupt workspace one: the good one is still read.
    let mixed = t.path().join("mixed/User");
    copy_tree(&cursor.join("built-here/User"), &mixed);
    std::fs::write(
        mixed.join("workspaceStorage/0f1e2d3c4b5a69788796a5b4c3d2e1f0/state.vscdb"),
        b"not a database",
    )
    .expect("write");
    let (docs, stderr, code) = jsonl2md(&home, &[&mixed]);
    assert_eq!(code, 64, "{stderr}");
    assert!(by_id(&docs).contains_key(C1), "{stderr}");

    // Secrets in every field, a NULL composer, a BLOB that is not UTF-8, do-not-index.
    let hostile = t.path().join("hostile/User");
    copy_tree(&cursor.join("built-here/User"), &hostile);
    let db = hostile.join("globalStorage/state.vscdb");
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    add_composer(
        &db,
        "aaaaaaaa-0000-4000-8000-00000000000a",
        &format!("deploy with key {aws}"),
        &format!("Set GITHUB_TOKEN={ghp} and retry."),
        &format!("curl -H 'Authorization: token {ghp}' https://api.github.com"),
    );
    add_composer(
        &db,
        "bbbbbbbb-0000-4000-8000-00000000000b",
        "private notes brain:do-not-index",
        "ok",
        "true",
    );
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute(
        "INSERT INTO cursorDiskKV(key, value) VALUES ('composerData:cccccccc-0000-4000-8000-00000000000c', NULL)",
        [],
    )
    .expect("insert");
    conn.execute(
        "INSERT INTO cursorDiskKV(key, value) VALUES ('composerData:dddddddd-0000-4000-8000-00000000000d', ?1)",
        [vec![0xff_u8, 0xfe, 0x00, 0x7b]],
    )
    .expect("insert");
    drop(conn);
    // A writer holds the database (Cursor running): read from a copy, never blocked.
    let writer = rusqlite::Connection::open(&db).expect("open");
    writer
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO ItemTable VALUES ('x', 'y');")
        .expect("lock");
    let (docs, stderr, code) = jsonl2md(&home, &[&hostile]);
    writer.execute_batch("ROLLBACK").expect("rollback");
    drop(writer);
    assert_eq!(code, 0, "{stderr}");
    let ids = by_id(&docs);
    let leaked = ids
        .get("cursor__aaaaaaaa-0000-4000-8000-00000000000a")
        .expect("the secret one");
    let text = leaked.to_markdown();
    assert!(!text.contains(aws) && !text.contains(ghp), "{text}");
    assert!(
        leaked.meta["redactions"].as_u64() >= Some(3),
        "{:?}",
        leaked.meta
    );
    assert!(
        !ids.contains_key("cursor__bbbbbbbb-0000-4000-8000-00000000000b"),
        "do-not-index"
    );
    assert!(stderr.contains("1 do-not-index"), "{stderr}");
    assert!(
        stderr.contains("composerData:cccccccc-0000-4000-8000-00000000000c: NULL: skipped"),
        "{stderr}"
    );
    assert!(
        stderr.contains("composerData:dddddddd-0000-4000-8000-00000000000d: not JSON: skipped"),
        "{stderr}"
    );
    assert!(ids.contains_key(C1) && ids.contains_key(C2));
    // Nothing was written beside the user's databases (the copy is private and temporary).
    let beside: Vec<PathBuf> = std::fs::read_dir(hostile.join("globalStorage"))
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(beside, std::slice::from_ref(&db), "{beside:?}");
}

/// A damaged Cursor workspace database never drops conversations in silence (issue 58): its
/// `composer.composerData` not JSON, or a page of the file zeroed — each conversation is written,
/// or the part that held it is named (`… its conversations are lost`) and counted unreadable.
#[test]
fn a_damaged_cursor_store_names_what_it_lost() {
    let Some(real) = brain_tests::corpus("cursor/real/slevin48-workspace-2024-11") else {
        return;
    };
    let rel = "User/workspaceStorage/f87f6e0b2cf1ae8645cc0c5ffaa99529/state.vscdb";
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let store = t.path().join("store");
    let db = store.join(rel);
    std::fs::create_dir_all(db.parent().expect("parent")).expect("mkdir");
    let good = std::fs::read(real.join(rel)).expect("the real database");
    std::fs::write(&db, &good).expect("copy");
    let (docs, stderr, _) = jsonl2md(&home, &[&store]);
    let whole = docs.len();
    assert!(whole > 20, "{stderr}");
    assert!(!stderr.contains("lost"), "{stderr}");

    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute(
        "UPDATE ItemTable SET value = 'not json {' WHERE key = 'composer.composerData'",
        [],
    )
    .expect("update");
    drop(conn);
    let (docs, stderr, code) = jsonl2md(&home, &[&store]);
    assert!(docs.len() < whole);
    assert!(
        stderr.contains("`composer.composerData` is not JSON") && stderr.contains("1 unreadable"),
        "{stderr}"
    );
    assert_eq!(code, 64, "{stderr}");

    // Every page zeroed in turn (one in eight): what is not written is named.
    let pages = good.len() / 4096;
    let mut named = 0;
    for page in (1..pages).step_by(8) {
        let mut bytes = good.clone();
        bytes[page * 4096..(page + 1) * 4096].fill(0);
        std::fs::write(&db, &bytes).expect("damage");
        let (docs, stderr, _) = jsonl2md(&home, &[&store]);
        if docs.len() < whole {
            named += 1;
            assert!(
                stderr.contains("lost")
                    || stderr.contains("unreadable") && !stderr.contains(" 0 unreadable"),
                "page {page}: {} of {whole} written and nothing named: {stderr}",
                docs.len()
            );
        }
    }
    assert!(named > 0, "no page held a conversation");
}
