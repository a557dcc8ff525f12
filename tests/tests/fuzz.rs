//! A mutation fuzzer over every parser that reads untrusted bytes: the transcript parsers
//! (`jsonl2md`'s detection and the Claude Code, Codex and Gemini readers; Cursor agent transcripts
//! and Aider histories), frontmatter, the query language, History rows (through `chrome2md`), MCP
//! requests, `brain browse` request targets, doc2md's readers of saved pages, Word files and text, and what the extraction reads of a session (its
//! turns, tool notes, statements, the subject of a shell command, a shown title). Seeds are the real files of
//! ../shared/corpora and the golden inputs; each case mutates one (bit flips, cut and spliced
//! ranges, inserted JSON tokens, huge numbers, NULs, invalid UTF-8) and must not panic. The
//! properties beyond "no panic" are checked where they exist (a parsed frontmatter round-trips; a
//! JSON-RPC request gets exactly one response).
//!
//! `make test` runs a smoke pass (`BRAIN_FUZZ_CASES`, default 200 cases per target); `make fuzz`
//! runs each target for `BRAIN_FUZZ_SECS` seconds in release mode. A failing input is written to
//! `target/fuzz-failures/<target>-<n>` and named in the panic message. Deterministic per
//! `BRAIN_FUZZ_SEED` (default 1).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use brain_tests::workspace;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens that break parsers more often than random bytes do.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\n",
    b"\r\n",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"\0",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xc0\xaf",
    b"1e999",
    b"-9223372036854775809",
    b"18446744073709551616",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b"\"\"",
    b"---\n",
    b"```",
    b"<untrusted>",
    b"</untrusted>",
    b"since:99999y",
    b"\"type\":\"user\"",
    b"\"type\":\"assistant\"",
    b"\"messages\":[",
    b"\"sessionId\":\"x\"",
    b"\"content\":[",
    b"\"tool_use\"",
    b"\"payload\":{",
    b"-----BEGIN RSA PRIVATE KEY-----",
];

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len);
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                let i = rng.below(len + 1);
                b.splice(i..i, t.iter().copied());
            }
            2 if len > 0 => {
                let i = rng.below(len);
                let j = (i + 1 + rng.below(64)).min(len);
                b.drain(i..j);
            }
            3 if len > 0 => {
                let cut = rng.below(len);
                b.truncate(cut);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                let j = (i + 1 + rng.below(256)).min(len);
                let piece = b[i..j].to_vec();
                let at = rng.below(b.len() + 1);
                b.splice(at..at, piece);
            }
            5 if !other.is_empty() => {
                let i = rng.below(other.len());
                let j = (i + 1 + rng.below(512)).min(other.len());
                let at = rng.below(len + 1);
                b.splice(at..at, other[i..j].iter().copied());
            }
            _ => {
                let i = rng.below(len + 1);
                let n = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(i..i, bytes);
            }
        }
    }
    b
}

/// How long, or how many cases, each target runs.
enum Budget {
    Cases(usize),
    Time(Duration),
}

fn budget() -> Budget {
    match std::env::var("BRAIN_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(secs) => Budget::Time(Duration::from_secs(secs)),
        None => Budget::Cases(
            std::env::var("BRAIN_FUZZ_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(200),
        ),
    }
}

fn seed() -> u64 {
    std::env::var("BRAIN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        | 1
}

/// Run `check` on mutants of `seeds` within the budget; a panic is saved and re-raised with its
/// input's file.
fn fuzz(target: &str, seeds: &[Vec<u8>], check: impl Fn(&[u8])) {
    assert!(!seeds.is_empty(), "{target}: no seeds");
    let mut rng = Rng(seed() ^ (target.len() as u64 * 0x9E37_79B9));
    let start = Instant::now();
    let mut n = 0usize;
    loop {
        match budget() {
            Budget::Cases(c) if n >= c => break,
            Budget::Time(t) if start.elapsed() >= t => break,
            _ => {}
        }
        let s = &seeds[rng.below(seeds.len())];
        let o = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, s, o);
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| check(&input))) {
            let dir = workspace().join("target/fuzz-failures");
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("{target}-{n}"));
            let _ = std::fs::write(&file, &input);
            std::panic::resume_unwind(Box::new(format!(
                "{target}: case {n} panicked ({:?}); input saved to {}",
                e.downcast_ref::<String>()
                    .map(String::as_str)
                    .or(e.downcast_ref::<&str>().copied()),
                file.display()
            )));
        }
        n += 1;
    }
    eprintln!(
        "fuzz {target}: {n} cases in {:.1} s, no panic",
        start.elapsed().as_secs_f64()
    );
}

/// The files under `dir` whose names end with one of `exts`, each cut to its first 64 KiB.
fn seeds_in(dir: &Path, exts: &[&str], max: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut files: Vec<PathBuf> = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if exts.iter().any(|x| p.to_string_lossy().ends_with(x)) {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files.into_iter().take(max) {
        if let Ok(mut b) = std::fs::read(&f) {
            b.truncate(64 * 1024);
            if !b.is_empty() {
                out.push(b);
            }
        }
    }
    out
}

#[test]
fn fuzz_transcript_parsers() {
    let mut seeds = seeds_in(
        &workspace().join("golden/jsonl2md"),
        &[".jsonl", ".json"],
        200,
    );
    if let Some(c) = brain_tests::shared("corpora") {
        for agent in ["claude-code", "codex", "gemini"] {
            seeds.extend(seeds_in(&c.join(agent), &[".jsonl", ".json"], 120));
        }
    }
    fuzz("transcripts", &seeds, |bytes| {
        let sha = brain_doc::sha256_hex(bytes);
        let out = brain_ingest::convert::convert_bytes(
            bytes,
            &sha,
            "fuzz.jsonl",
            Some("fuzz"),
            &[],
            true,
        );
        if let brain_ingest::convert::Status::Doc(doc) = out.status {
            // Whatever it made is a document that round-trips.
            let back = brain_doc::Doc::from_markdown(&doc.to_markdown()).expect("round trip");
            assert_eq!(back, *doc);
        }
    });
}

/// doc2md's in-process readers (the PDF one runs in a child process and is exercised through the
/// binary by tests/tests/doc2md.rs): saved pages, Word XML and zips, text; what they make renders
/// to a record that round-trips.
#[test]
fn fuzz_document_readers() {
    let golden = workspace().join("golden/doc2md");
    let mut pages = seeds_in(&golden, &[".html", ".htm"], 50);
    pages.extend(seeds_in(&workspace().join("docs"), &[".md"], 20));
    pages.push(
        b"<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table><pre>`</pre>".to_vec(),
    );
    let limits = brain_convert::Limits::default();
    let render = |c: brain_convert::Converted, kind| {
        let facts = brain_convert::FileFacts {
            path: Path::new("/fuzz/doc"),
            kind,
            sha256: String::new(),
            mtime_secs: 0,
        };
        let opts = brain_convert::RenderOptions { redact: true };
        if let Some(doc) = brain_convert::render(&facts, c, opts) {
            let back = brain_doc::Doc::from_markdown(&doc.to_markdown()).expect("round trip");
            assert_eq!(back, doc);
        }
    };
    fuzz("html", &pages, |bytes| {
        render(brain_convert::html::read(bytes), brain_convert::Kind::Html);
    });
    let xml = br#"<w:document xmlns:w="x"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/><w:numPr/></w:pPr><w:r><w:t>a &amp; &#65;</w:t><w:tab/><w:br/></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>"#;
    fuzz("docx-xml", &[xml.to_vec()], |bytes| {
        let _ = brain_convert::docx::paragraphs(bytes);
    });
    let zips = seeds_in(&golden, &[".docx"], 10);
    fuzz("docx-zip", &zips, |bytes| {
        if let Ok(c) = brain_convert::docx::read(bytes, &limits) {
            render(c, brain_convert::Kind::Docx);
        }
    });
    let texts = seeds_in(&golden, &[".txt"], 10);
    fuzz("text", &texts, |bytes| {
        if let Ok(c) = brain_convert::convert(brain_convert::Kind::Text, bytes, &limits) {
            render(c, brain_convert::Kind::Text);
        }
    });
}

#[test]
fn fuzz_frontmatter() {
    let mut seeds = seeds_in(&workspace().join("golden"), &[".md"], 300);
    seeds.push(b"---\ntitle: a\ndate: 2026-01-01\ntags: [x, y]\nsource:\n  type: session\n  file: f\n---\nbody\n".to_vec());
    fuzz("frontmatter", &seeds, |bytes| {
        let text = String::from_utf8_lossy(bytes);
        if let Ok(doc) = brain_doc::Doc::from_markdown(&text) {
            // What parses renders back to a form that parses to the same record.
            let again = brain_doc::Doc::from_markdown(&doc.to_markdown()).expect("re-parse");
            assert_eq!(again.to_markdown(), doc.to_markdown());
        }
        let _ = brain_doc::file::FileFacts::read("fuzz.md", &text, 0);
        let mut lines = brain_doc::blocks::Lines::new(&text);
        for l in text.lines() {
            let _ = lines.classify(l);
        }
    });
}

#[test]
fn fuzz_query_language() {
    let seeds: Vec<Vec<u8>> = [
        "lock contention",
        "\"exact phrase\" -exclude c:notes since:7d",
        "project:brain agent:claude until:2026-03-01 tantivy",
        "since:99999y until:-5d \"unterminated",
        "what was I fixing on the morning of 3 March?",
        "c:chrome-history -c:notes +must ~fuzzy* (a OR b) NOT c",
        "since:2026-02-30 since:yesterday since:9999999d",
        "When did Caroline go to the LGBTQ support group?",
        "so what did she do about it `has` who",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let now = jiff::Zoned::now();
    fuzz("query", &seeds, |bytes| {
        let text = String::from_utf8_lossy(bytes);
        if let Ok(q) = brain_rank::Query::parse(&text, &now) {
            assert!(q.terms.len() <= brain_rank::query::MAX_TERMS);
        }
        // Routing's cut of question words keeps words of the query, in order, and never leaves a
        // query the index reads with nothing it reads.
        let cut = brain_rank::route::strip_scaffolding(&text);
        let mut asked = text.split_whitespace();
        assert!(
            cut.split_whitespace().all(|w| asked.any(|a| a == w)),
            "{text:?} → {cut:?}"
        );
        if brain_lex::tokenize::has_terms(&text) {
            assert!(brain_lex::tokenize::has_terms(&cut), "{text:?} → {cut:?}");
        }
    });
}

#[test]
fn fuzz_mcp_requests() {
    let mut seeds = Vec::new();
    for e in std::fs::read_dir(workspace().join("golden/brain-mcp"))
        .expect("cases")
        .flatten()
    {
        for line in std::fs::read_to_string(e.path().join("stdin"))
            .unwrap_or_default()
            .lines()
        {
            seeds.push(line.as_bytes().to_vec());
        }
    }
    let home = tempfile::tempdir().expect("tempdir");
    let server =
        std::cell::RefCell::new(brain_mcp::Server::new(brain_store::Home::at(home.path())));
    fuzz("mcp", &seeds, |bytes| {
        let reply = server.borrow_mut().handle_line(bytes);
        if let Some(r) = reply {
            assert_eq!(r["jsonrpc"], "2.0", "{r}");
            assert!(r.get("result").is_some() != r.get("error").is_some(), "{r}");
        }
    });
}

#[test]
fn fuzz_history_rows() {
    // Rows of any SQLite type in every column chrome2md reads, through the binary: a few cases per
    // smoke run (each is a process and a database), many in `make fuzz`.
    let cases = match budget() {
        Budget::Cases(c) => (c / 20).max(5),
        Budget::Time(t) => (t.as_secs() as usize * 10).max(5),
    };
    let base =
        std::fs::read_to_string(workspace().join("golden/chrome2md/modern.sql")).expect("sql");
    let mut rng = Rng(seed() ^ 0xC0FFEE);
    let values = [
        "NULL",
        "0",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "1.5e300",
        "'text'",
        "X'00FF'",
        "''",
        "'https://user:pw@h/x?access_token=abcdefgh12345678'",
        "'javascript:alert(1)'",
        "'\u{202e}evil'",
        "13350000000000000",
        "(strftime('%s','2026-11-20 10:00:00') + 11644473600) * 1000000",
    ];
    let start = Instant::now();
    for n in 0..cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("Default/History");
        std::fs::create_dir_all(db.parent().expect("parent")).expect("mkdir");
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.execute_batch(&base).expect("base");
        let v = |rng: &mut Rng| values[rng.below(values.len())];
        for i in 0..20 {
            let sql = format!(
                "INSERT OR IGNORE INTO urls (id, url, title, visit_count, typed_count, last_visit_time, hidden) VALUES ({}, {}, {}, {}, 0, 0, {});\
                 INSERT OR IGNORE INTO visits (id, url, visit_time, transition) VALUES ({}, {}, {}, {});",
                1000 + i,
                v(&mut rng),
                v(&mut rng),
                v(&mut rng),
                v(&mut rng),
                1000 + i,
                if rng.below(2) == 0 {
                    (1000 + i).to_string()
                } else {
                    v(&mut rng).to_string()
                },
                v(&mut rng),
                v(&mut rng)
            );
            let _ = conn.execute_batch(&sql);
        }
        drop(conn);
        let out = brain_tests::chrome2md_once(dir.path(), &db);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 64)),
            "history case {n}: {:?}: {stderr}",
            out.status.code()
        );
        assert!(!stderr.contains("panicked"), "history case {n}: {stderr}");
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let _: brain_doc::Doc = serde_json::from_str(line).expect("a doc record");
        }
    }
    eprintln!(
        "fuzz history: {cases} databases in {:.1} s, no panic",
        start.elapsed().as_secs_f64()
    );
}

/// Cursor agent transcripts (JSONL and the older text form), through jsonl2md's detection and the
/// Cursor reader; Aider histories through theirs (issue #26). Whatever becomes a document
/// round-trips.
#[test]
fn fuzz_cursor_and_aider() {
    let Some(c) = brain_tests::shared("corpora") else {
        return;
    };
    let transcripts = seeds_in(&c.join("cursor"), &[".jsonl", ".txt"], 80);
    fuzz("cursor-transcripts", &transcripts, |bytes| {
        let mut issues = Vec::new();
        for txt in [false, true] {
            if let Some(conv) = brain_ingest::cursor::transcript::parse(
                "/h/.cursor/projects/p/agent-transcripts/fuzz.jsonl",
                bytes,
                &[("sub.jsonl".to_string(), bytes.to_vec())],
                txt,
                None,
                &mut issues,
            ) {
                let doc = brain_ingest::many::to_doc(
                    brain_ingest::session::Agent::Cursor,
                    Path::new("fuzz.jsonl"),
                    &conv,
                    true,
                );
                if let Some(doc) = doc {
                    let back =
                        brain_doc::Doc::from_markdown(&doc.to_markdown()).expect("round trip");
                    assert_eq!(back, doc);
                }
            }
        }
    });
    let histories = seeds_in(&c.join("aider"), &[".md"], 10);
    fuzz("aider-histories", &histories, |bytes| {
        let read = brain_ingest::aider::parse(bytes, "fuzz.md", Some("/p".into()));
        for conv in &read.conversations {
            assert!(!conv.id.is_empty());
            if let Some(doc) = brain_ingest::many::to_doc(
                brain_ingest::session::Agent::Aider,
                Path::new("fuzz.md"),
                conv,
                true,
            ) {
                let back = brain_doc::Doc::from_markdown(&doc.to_markdown()).expect("round trip");
                assert_eq!(back, doc);
            }
        }
    });
}

/// `brain browse` request targets (issue #27): paths and queries mutated from the pages' own,
/// answered without a panic, and a file is served only when it is one of the collection's.
#[test]
fn fuzz_browse_targets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("notes");
    brain_tests::notes_home(&dir.path().join("home"), &notes);
    std::fs::write(
        notes.join("a.md"),
        "---\ntitle: A\n---\n# A\n\n**User**: hi\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("home/secret.md"), "SECRET\n").expect("write");
    let app = std::cell::RefCell::new(brain_browse::App::new(
        brain_store::Home::at(dir.path().join("home")),
        "t".repeat(32),
        8182,
    ));
    let seeds: Vec<Vec<u8>> = [
        "/",
        "/timeline?day=2026-03-20&days=7&collection=notes",
        "/search?q=%22ledger%22+-x+since%3A7d&mode=lex&collection=notes&since=7d&until=today&limit=20",
        "/doc/notes/a.md",
        "/session/notes/a.md?line=7",
        "/raw/notes/a.md",
        "/raw/notes/%2e%2e/home/secret.md",
        "/entities?kind=person",
        "/entity/%40schen",
        "/static/style.css",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let cookie = "brain_browse_8182=".to_string() + &"t".repeat(32);
    fuzz("browse-targets", &seeds, |bytes| {
        let target = String::from_utf8_lossy(bytes);
        let req = brain_browse::Request {
            method: "GET",
            target: &target,
            host: Some("127.0.0.1:8182"),
            origins: Vec::new(),
            cookies: vec![&cookie],
        };
        let r = brain_browse::respond(&mut app.borrow_mut(), &req);
        assert!(
            [200, 303, 400, 403, 404].contains(&r.status),
            "{} for {target}",
            r.status
        );
        assert!(
            !r.body_text().contains("SECRET"),
            "a file outside the collection was served: {target}"
        );
    });
}

/// Sessions as `jsonl2md` renders them (the corpora's transcripts converted), mutated: the
/// extraction's readers (turns, tool notes, statements), the subject of every line as a shell
/// command and a shown title never panic, and every record they make is keyed by a normalized,
/// non-empty key and says one bounded line.
#[test]
fn fuzz_session_memory() {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut transcripts = seeds_in(&workspace().join("golden/jsonl2md"), &[".jsonl"], 60);
    if let Some(c) = brain_tests::shared("corpora") {
        transcripts.extend(seeds_in(&c.join("claude-code"), &[".jsonl"], 60));
    }
    for t in &transcripts {
        let sha = brain_doc::sha256_hex(t);
        let out = brain_ingest::convert::convert_bytes(t, &sha, "s.jsonl", Some("s"), &[], true);
        if let brain_ingest::convert::Status::Doc(doc) = out.status {
            seeds.push(doc.to_markdown().into_bytes());
        }
    }
    seeds.push(
        b"## Conversation\n\n**User**: ok, let's use vite. don't use webpack, use rollup.\n\n**Note**: Tool declined (Bash: npm install):\n> use pnpm\n\n**Note**: Tool error (Bash: cd x && uv run pytest -m browser):\n```text\nExit code 1\nFAILED t.py::x\n```\n"
            .to_vec(),
    );
    fuzz("session-memory", &seeds, |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = brain_doc::blocks::turns(&text);
        for line in text.lines().take(200) {
            if let Some(s) = brain_doc::command::subject(line) {
                assert!(!s.is_empty());
            }
        }
        let _ = brain_doc::title::shown("[image]", &text);
        let mut records = brain_distill::extract::find::tool_notes(&text, "2026-01-01");
        records.extend(brain_distill::extract::said::statements(
            &text,
            "2026-01-01",
        ));
        for r in records {
            assert_eq!(
                brain_doc::memory::normalize_key(&r.key).as_deref(),
                Some(r.key.as_str())
            );
            assert!(!r.statement.contains('\n'), "{:?}", r.statement);
            assert!(
                r.statement.chars().count() <= 1_000,
                "{}",
                r.statement.len()
            );
        }
    });
}
