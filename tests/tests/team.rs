//! Team memory on a real distributed engine (docs/team.md): the `teamindex` sink and `rank` /
//! `brain ask --engine`, against the 2-node SolrCloud cluster `make test` starts
//! (scripts/with-engine.sh). Golden cases for the compiled queries and the bulk records need no
//! engine. The node-kill test is in team_faults.rs (a binary of its own: it takes a node away).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use brain_doc::Hit;
use brain_team::sink::Summary;
use brain_tests::{command, engine, golden, model_dir, parse_lines, run, workspace};

/// A home with two collections, `notes` (shared) and `private` (not), pointed at `url` as the
/// engine `team`, writing to an index of its own.
struct Team {
    _dir: tempfile::TempDir,
    home: PathBuf,
    notes: PathBuf,
    private: PathBuf,
    url: String,
    index: String,
    model: PathBuf,
}

impl Team {
    fn new(url: &str, name: &str) -> Option<Team> {
        let model = model_dir()?;
        let dir = tempfile::tempdir().expect("test setup");
        let home = dir.path().join("home");
        let notes = dir.path().join("notes");
        let private = dir.path().join("private");
        for d in [&home, &notes, &private] {
            std::fs::create_dir_all(d).expect("test setup");
        }
        let index = format!("t-{name}-{}", std::process::id());
        let t = Team {
            _dir: dir,
            home,
            notes,
            private,
            url: url.to_string(),
            index,
            model,
        };
        t.configure(url);
        Some(t)
    }

    fn configure(&self, url: &str) {
        let yaml = format!(
            "collections:\n  - {{name: brain, path: corpus/brain}}\n  - {{name: notes, path: {}}}\n  - {{name: private, path: {}}}\npartition: {{default: brain}}\nteam:\n  engines: {{test: \"{url}\"}}\n  shared: [notes]\n  index: {}\n",
            self.notes.display(),
            self.private.display(),
            self.index
        );
        std::fs::write(self.home.join("brain.yaml"), yaml).expect("write a test file");
    }

    /// Point this home at the engine through a forwarder on a port of its own (the engine as a
    /// laptop sees it: it can go away and come back). The port and the running forwarder.
    fn behind_a_port(&self, url: &str) -> (u16, Forwarder) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let fwd = Forwarder::start(listener, port_of(url));
        self.configure(&url.replace(&format!(":{}/", port_of(url)), &format!(":{port}/")));
        (port, fwd)
    }

    fn note(&self, name: &str, text: &str) {
        std::fs::write(self.notes.join(name), text).expect("write a test file");
    }

    fn cmd(&self, bin: &str) -> std::process::Command {
        let mut c = command(bin, &self.home);
        c.env("BRAIN_EMBEDDER", format!("local:{}", self.model.display()))
            .env("BRAIN_AUTHOR", "ana")
            .env("BRAIN_MACHINE", "laptop-1");
        c
    }

    fn push(&self, args: &[&str]) -> (Output, Summary) {
        let out = run(self.cmd("teamindex").args(args), b"");
        let summary = parse_lines::<Summary>(&out.stdout)
            .pop()
            .unwrap_or_else(|| panic!("no summary: {}", String::from_utf8_lossy(&out.stderr)));
        (out, summary)
    }

    fn rank(&self, query: &str, extra: &[&str]) -> (i32, Vec<Hit>, String) {
        let out = run(
            self.cmd("rank")
                .args(["--engine", "test", "-n", "10"])
                .args(extra)
                .arg("--")
                .arg(query),
            b"",
        );
        (
            out.status.code().unwrap_or(-1),
            parse_lines::<Hit>(&out.stdout),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The local lexical list of `query` (ten hits), as `rank` answers without `--engine`.
    fn rank_here(&self, query: &str) -> Vec<Hit> {
        let out = run(
            self.cmd("rank")
                .args(["-n", "10", "--mode", "lex", "--", query]),
            b"",
        );
        parse_lines(&out.stdout)
    }

    /// `brain doctor`'s team check.
    fn doctor_team(&self) -> serde_json::Value {
        let out = run(self.cmd("brain").args(["doctor", "--json"]), b"");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("doctor json");
        report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| c["name"] == "team")
            .cloned()
            .expect("team check")
    }

    fn client(&self) -> brain_team::Engine {
        brain_team::Engine::connect(&self.url, &self.index, None, Duration::from_secs(30))
            .expect("test setup")
    }

    /// Records the engine holds matching `q` — a document's lexical passages and its chunks —
    /// after a commit (what a search sees).
    fn count(&self, q: &str) -> u64 {
        self.select_count(q, "*:*")
    }

    /// Lexical passages the engine holds matching `q` (one for each short note).
    fn passages(&self, q: &str) -> u64 {
        self.select_count(q, "unit:lex")
    }

    fn select_count(&self, q: &str, fq: &str) -> u64 {
        let e = self.client();
        e.post_json(
            &format!("{}/update", self.index),
            &[("commit", "true")],
            b"{}",
        )
        .expect("test setup");
        let v = e
            .select(&[
                ("q".into(), q.into()),
                ("fq".into(), fq.into()),
                ("rows".into(), "0".into()),
            ])
            .expect("test setup");
        v["response"]["numFound"].as_u64().expect("test setup")
    }

    /// Every record id the engine holds, sorted.
    fn ids(&self) -> Vec<String> {
        self.ids_of("*:*")
    }

    /// The ids of the records matching `q`, sorted.
    fn ids_of(&self, q: &str) -> Vec<String> {
        let e = self.client();
        e.post_json(
            &format!("{}/update", self.index),
            &[("commit", "true")],
            b"{}",
        )
        .expect("test setup");
        let v = e
            .select(&[
                ("q".into(), q.into()),
                ("rows".into(), "10000".into()),
                ("fl".into(), "id".into()),
            ])
            .expect("test setup");
        let mut ids: Vec<String> = v["response"]["docs"]
            .as_array()
            .expect("test setup")
            .iter()
            .map(|d| d["id"].as_str().expect("test setup").to_string())
            .collect();
        ids.sort();
        ids
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        if let Ok(e) =
            brain_team::Engine::connect(&self.url, &self.index, None, Duration::from_secs(30))
        {
            let _ = e.get(
                "admin/collections",
                &[("action", "DELETE"), ("name", &self.index)],
            );
        }
    }
}

/// The compiled query of every filter and phrase form (golden/team-query): what the engine is
/// sent, parameter by parameter; no engine needed.
#[test]
fn golden_compiled_queries() {
    let dir = workspace().join("golden/team-query");
    let queries = std::fs::read_to_string(dir.join("queries.txt")).expect("test setup");
    let now: jiff::Zoned = "2026-04-10T12:00:00+00:00[UTC]"
        .parse()
        .expect("test setup");
    let mut got = String::new();
    for q in queries
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let rec = match brain_rank::Query::parse(q, &now) {
            Ok(parsed) => match brain_rank::engine::compile_for_engine(
                &parsed,
                &brain_rank::Filters::default(),
                &[],
                10,
                &now,
            ) {
                Ok(params) => serde_json::json!({"query": q, "params": params}),
                Err(e) => serde_json::json!({"query": q, "refused": e.to_string()}),
            },
            Err(e) => serde_json::json!({"query": q, "refused": e.to_string()}),
        };
        got.push_str(&rec.to_string());
        got.push('\n');
    }
    let file = dir.join("expected.ndjson");
    if std::env::var("GOLDEN_UPDATE").is_ok_and(|v| v == "1") {
        std::fs::write(&file, &got).expect("write a test file");
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(
        got, want,
        "golden/team-query differs (GOLDEN_UPDATE=1 rewrites it)"
    );
}

/// The bulk records of documents (`teamindex --records`, golden/teamindex): no engine, no model.
#[test]
fn golden_teamindex() {
    golden("teamindex", "teamindex", |_| {});
}

/// Push, then search through the engine: only the shared collection is there, each passage once,
/// with its author and machine; hits come back as hit records with brain's fusion signals.
#[test]
fn round_trip_through_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "roundtrip") else {
        return;
    };
    t.note(
        "retry.md",
        "---\ntitle: Billing retry decision\ndate: 2026-03-01\ntype: decision\nproject: billing\n---\nWe decided the billing retry uses exponential backoff with jitter, capped at five attempts.\n",
    );
    t.note("cache.md", "# Cache migration\n\nThe cache migration failed because two writers took the lock at once.\n");
    std::fs::write(
        t.private.join("plan.md"),
        "# Private\n\nzanzibar salary negotiation notes\n",
    )
    .expect("write a test file");
    let (out, s) = t.push(&["--all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(s.created);
    assert_eq!(
        (s.docs, s.not_shared, s.sent, s.passages, s.spooled),
        (3, 1, 2, 4, 0),
        "a passage and a chunk each"
    );
    assert_eq!(s.mapping, "brain-2-384-all-minilm-l6-v2");
    assert_eq!((t.passages("*:*"), t.count("unit:vec")), (2, 2));
    assert_eq!(
        t.count("body:zanzibar"),
        0,
        "a collection not shared reached the engine"
    );
    assert_eq!(t.count("author:ana AND machine:laptop-1"), 4);

    let (code, hits, err) = t.rank("billing retry", &["--mode", "lex"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hits[0].uri, "brain://notes/retry.md");
    assert_eq!(hits[0].signals["author"], "ana");
    assert!(hits[0].untrusted, "team text reaches an agent fenced");
    for (q, want) in [
        ("\"exponential backoff\"", vec!["brain://notes/retry.md"]),
        ("type:decision retry", vec!["brain://notes/retry.md"]),
        ("project:billing backoff", vec!["brain://notes/retry.md"]),
        ("cache -writers", vec![]),
        ("collection:notes migration", vec!["brain://notes/cache.md"]),
        ("since:2026-03-02 retry", vec![]),
        ("until:2026-03-01 retry", vec!["brain://notes/retry.md"]),
    ] {
        let (code, hits, err) = t.rank(q, &["--mode", "lex"]);
        let got: Vec<&str> = hits.iter().map(|h| h.uri.as_str()).collect();
        assert_eq!(got, want, "{q}: exit {code}: {err}");
    }
    // Hybrid: the engine's k-NN over the vectors this home's model made, fused by brain.
    let (code, hits, err) = t.rank("why did the cache migration fail", &["--mode", "hybrid"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hits[0].uri, "brain://notes/cache.md");
    assert!(
        hits[0].signals.contains_key("vec") && hits[0].signals.contains_key("rrf"),
        "{:?}",
        hits[0].signals
    );
    let (code, hits, _) = t.rank("a lock taken by two processes", &["--mode", "vec"]);
    assert_eq!(code, 0);
    assert_eq!(hits[0].uri, "brain://notes/cache.md");
    // Only one's own: another author's documents are left out.
    let mut other = t.cmd("rank");
    other
        .env("BRAIN_AUTHOR", "bo")
        .args(["--engine", "test", "--own", "--mode", "lex", "billing"]);
    let out = run(&mut other, b"");
    assert_eq!(
        out.status.code(),
        Some(67),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // brain ask prints the same answer for people.
    let out = run(
        t.cmd("brain")
            .args(["ask", "--engine", "test", "billing retry"]),
        b"",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Billing retry decision"));
    // What the engine cannot filter is refused, not ignored.
    for q in ["tag:x retry", "ref:src/a.rs retry"] {
        let (code, _, err) = t.rank(q, &["--mode", "lex"]);
        assert_eq!(code, 64, "{q}: {err}");
    }
}

/// Sending again sends nothing; a changed document replaces its passages (fewer chunks: the
/// extra ones go); a document gone from the collection goes from the engine (--all); a changed
/// frontmatter alone is sent again.
#[test]
fn pushes_are_idempotent_and_follow_changes() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "idem") else {
        return;
    };
    let long: String = (0..120)
        .map(|i| format!("Paragraph {i} about the deploy pipeline and its canary stage.\n\n"))
        .collect();
    t.note("deploy.md", &format!("# Deploy\n\n{long}"));
    t.note("keep.md", "# Keep\n\nThe keeper note stays.\n");
    let (_, s) = t.push(&["--all"]);
    assert!(s.passages > 3, "{s:?}");
    let first = t.ids();
    assert_eq!(first.len(), s.passages);
    let (_, again) = t.push(&["--all"]);
    assert_eq!((again.sent, again.unchanged, again.passages), (0, 2, 0));
    assert_eq!(t.ids(), first);
    t.note(
        "deploy.md",
        "# Deploy\n\nNow a short note about the canary.\n",
    );
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.passages), (1, 2), "a passage and a chunk");
    assert_eq!(t.ids().len(), 4, "the stale records of deploy.md are gone");
    t.note(
        "keep.md",
        "---\ntype: decision\n---\n# Keep\n\nThe keeper note stays.\n",
    );
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.sent, 1);
    assert_eq!(t.passages("type:decision"), 1);
    std::fs::remove_file(t.notes.join("deploy.md")).expect("test setup");
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.removed, 1);
    assert_eq!(t.ids().len(), 2);
    // From stdin (partition's output): the same records, nothing pruned.
    let doc = serde_json::json!({"schema": 1, "kind": "doc", "id": "notes/in.md", "collection": "notes", "path": "in.md", "title": "Piped", "date": "2026-04-01T00:00:00Z", "source": {"type": "note", "file": "x"}, "meta": {}, "body": "piped through partition"});
    let out = run(
        t.cmd("teamindex").arg("-q"),
        format!("{doc}\nnot json\n").as_bytes(),
    );
    assert!(out.status.success());
    let s: Summary = parse_lines(&out.stdout).pop().expect("test setup");
    assert_eq!((s.sent, s.removed), (1, 0));
    assert_eq!(t.ids().len(), 4);
}

/// A TCP forwarder on `port` to `target`, until dropped: the engine as a laptop sees it, which
/// can go away and come back.
struct Forwarder {
    stop: Arc<AtomicBool>,
}

impl Forwarder {
    /// The forwarder on `port` back, to the engine at `url`.
    fn again(port: u16, url: &str) -> Forwarder {
        Forwarder::start(
            TcpListener::bind(("127.0.0.1", port)).expect("rebind"),
            port_of(url),
        )
    }

    fn start(listener: TcpListener, target: u16) -> Forwarder {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        listener.set_nonblocking(true).expect("test setup");
        std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).expect("test setup");
                        let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                            continue;
                        };
                        for (mut a, mut b) in [
                            (
                                client.try_clone().expect("test setup"),
                                server.try_clone().expect("test setup"),
                            ),
                            (server, client),
                        ] {
                            std::thread::spawn(move || {
                                let mut buf = [0u8; 65536];
                                while let Ok(n) = a.read(&mut buf) {
                                    if n == 0 || b.write_all(&buf[..n]).is_err() {
                                        break;
                                    }
                                }
                                let _ = b.shutdown(std::net::Shutdown::Write);
                            });
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Forwarder { stop }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn port_of(url: &str) -> u16 {
    url.rsplit(':')
        .next()
        .expect("test setup")
        .split('/')
        .next()
        .expect("test setup")
        .parse()
        .expect("test setup")
}

/// Offline, the requests spool and the run succeeds; back online, the spool drains first, in
/// order, and the engine holds every document exactly once. `brain ask --engine` meanwhile fails
/// with 65 and a clear message, and without --engine is unaffected.
#[test]
fn an_offline_laptop_spools_and_drains() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "spool") else {
        return;
    };
    // A port nothing listens on — until the forwarder takes it.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("test setup");
        l.local_addr().expect("test setup").port()
    };
    let away = url.replace(&format!(":{}/", port_of(&url)), &format!(":{port}/"));
    t.configure(&away);
    for i in 0..5 {
        t.note(
            &format!("n{i}.md"),
            &format!("# Note {i}\n\nOffline note number {i} about quokkas.\n"),
        );
    }
    // Two records a note: three requests of two notes at most.
    let (out, s) = t.push(&["--all", "--batch", "4"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((s.sent, s.spooled), (5, 3), "{s:?}");
    assert!(s.offline.is_some() && s.waiting == 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the next teamindex run sends them"));
    // Nothing new is embedded again while it waits; an edit made offline spools after the rest.
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.waiting), (0, 3));
    t.note(
        "n0.md",
        "# Note 0\n\nEdited offline: quokkas and wombats.\n",
    );
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.waiting), (1, 4));
    // The engine unreachable: a search through it says so (65); the home's own search is not
    // touched by it.
    let (code, _, err) = t.rank("quokkas", &[]);
    assert_eq!(code, 65, "{err}");
    assert!(
        err.contains("cannot be reached") && err.contains("fix:"),
        "{err}"
    );
    let out = run(t.cmd("brain").args(["ask", "quokkas"]), b"");
    assert!(matches!(out.status.code(), Some(0 | 65 | 67)), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("cannot be reached"));
    // Back online.
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("test setup");
    let _fwd = Forwarder::start(listener, port_of(&url));
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.drained, s.waiting, s.sent), (4, 0, 0), "{s:?}");
    assert_eq!(t.ids_of("unit:lex").len(), 5, "every document exactly once");
    assert_eq!(t.ids().len(), 10);
    assert_eq!(t.count("body:wombat"), 1, "the later edit won");
    let (code, hits, err) = t.rank("quokkas", &["--mode", "lex"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hits.len(), 5);
}

/// A push killed mid-way: the next run completes it, and the engine holds every document exactly
/// once.
#[test]
fn a_push_killed_midway_is_completed_by_the_next() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "kill") else {
        return;
    };
    for i in 0..60 {
        t.note(
            &format!("k{i:02}.md"),
            &format!("# K {i}\n\nKilled push note {i} about lemurs.\n"),
        );
    }
    let mut child = t
        .cmd("teamindex")
        .args(["--all", "--batch", "4", "-q"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("test setup");
    let sent = t.home.join("state/team");
    let start = std::time::Instant::now();
    // Kill once the first requests were acknowledged (the state file is written after each).
    while start.elapsed() < Duration::from_secs(120) {
        let written = walk_files(&sent).iter().any(|p| p.ends_with("sent.json"));
        if written || child.try_wait().expect("test setup").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let (out, s) = t.push(&["--all"]);
    assert!(out.status.success());
    assert_eq!(s.sent + s.unchanged, 60, "{s:?}");
    let ids = t.ids();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(
        (ids.len(), unique.len()),
        (120, 120),
        "a passage and a chunk each"
    );
    assert_eq!(t.ids_of("unit:lex").len(), 60);
}

/// Two teamindex runs at once: one takes the lock, the other exits 70 (or starts after the first
/// ended and finds nothing to send); the engine holds every document once.
#[test]
fn concurrent_pushes_never_write_twice() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "conc") else {
        return;
    };
    for i in 0..40 {
        t.note(
            &format!("c{i:02}.md"),
            &format!("# C {i}\n\nConcurrent push note {i} about ibises.\n"),
        );
    }
    let spawn = || {
        t.cmd("teamindex")
            .args(["--all", "--batch", "2"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("test setup")
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a, b].map(|c| c.wait_with_output().expect("test setup"));
    let codes: Vec<Option<i32>> = outs.iter().map(|o| o.status.code()).collect();
    assert!(codes.contains(&Some(0)), "{outs:?}");
    for o in &outs {
        match o.status.code() {
            Some(0) => {}
            Some(70) => assert!(
                String::from_utf8_lossy(&o.stderr).contains("teamindex"),
                "{o:?}"
            ),
            _ => panic!("{o:?}"),
        }
    }
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.unchanged), (0, 40), "{s:?}");
    let ids = t.ids();
    let mut unique = ids.clone();
    unique.dedup();
    // Which records are missing, and what both runs said (a failure seen once in CI, 79 of 80,
    // not reproduced since: the next one names the record and the runs' words).
    let missing: Vec<String> = (0..40)
        .flat_map(|i| {
            let doc = format!("notes/c{i:02}.md");
            let hash = brain_doc::sha256_hex(doc.as_bytes());
            [0, 1].map(move |seq| (format!("{hash}!{seq}"), format!("{doc}!{seq}")))
        })
        .filter(|(id, _)| ids.binary_search(id).is_err())
        .map(|(_, name)| name)
        .collect();
    assert_eq!(
        (ids.len(), unique.len()),
        (80, 80),
        "a passage and a chunk each; missing {missing:?}; the runs said: {:?}",
        outs.iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect::<Vec<_>>()
    );
}

/// This home's state damaged: sent.json not JSON, and a spool file that is not a request. The
/// push says so, sets both aside, sends every document again and deletes the passages the lost
/// state knew of (a document now shorter leaves no stale chunk). forget --purge still reaches
/// the engine, and doctor names the damaged file before the push repairs it.
#[test]
fn a_damaged_state_is_set_aside_and_repaired() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "damaged") else {
        return;
    };
    let long: String = (0..120)
        .map(|i| format!("Paragraph {i} about the heron migration and its counts.\n\n"))
        .collect();
    t.note("long.md", &format!("# Long\n\n{long}"));
    t.note("short.md", "# Short\n\nA short note about herons.\n");
    let (_, s) = t.push(&["--all"]);
    assert!(s.passages > 3, "{s:?}");
    let state = t
        .home
        .join("state/team")
        .join(brain_team::sink::state_key(&t.client()));
    let sent = state.join("sent.json");
    assert!(sent.is_file());
    std::fs::write(&sent, b"{\"notes/long.md\": {\"hash\": tru").expect("test setup");
    let check = t.doctor_team();
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(check.to_string().contains("damaged"), "{check}");
    // A spooled request someone truncated: not a request the engine takes.
    let spool = state.join("spool");
    std::fs::create_dir_all(&spool).expect("test setup");
    std::fs::write(
        spool.join("000000000000000000000001-0000000001-000000.json"),
        b"{\"add\":{\"doc\":{\"id\"",
    )
    .expect("test setup");
    t.note("long.md", "# Long\n\nNow one paragraph about herons.\n");
    let (out, s) = t.push(&["--all"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("damaged") && err.contains("set aside"),
        "{err}"
    );
    assert!(state.join("sent.json.damaged").is_file());
    assert!(state.join("spool/refused").is_dir(), "{err}");
    assert_eq!((s.sent, s.waiting), (2, 0), "{s:?}");
    assert_eq!(t.ids().len(), 4, "the lost state's stale records are gone");
    // The state is whole again: the next run sends nothing.
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.unchanged), (0, 2), "{s:?}");
    // A damaged state does not stop a purge from reaching the engine.
    std::fs::write(&sent, b"\x00\xff").expect("test setup");
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    let out = run(
        t.cmd("brain")
            .args(["forget", "--purge", "--yes", "notes/short.md"]),
        b"",
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(t.count("doc_id:\"notes/short.md\""), 0);
}

/// What leaves the machine is redacted again: a hand-written note's secret never reaches the
/// engine (not in any field, not searchable), a `<private>` span neither; a note marked
/// `brain:do-not-index` is never sent, and one marked after it was sent is deleted from the engine.
#[test]
fn secrets_and_opted_out_notes_never_reach_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "secret") else {
        return;
    };
    let ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    t.note(
        "deploy.md",
        &format!("---\nkey: deploy.{ghp}\n---\n# Deploy {ghp}\n\nPush the kiwi build with {ghp}.\n\n<private>pager 555-0100</private>\n"),
    );
    t.note(
        "diary.md",
        "# Diary\n\nbrain:do-not-index\n\nkiwi thoughts kept here.\n",
    );
    t.note("plain.md", "# Plain\n\nA plain kiwi note.\n");
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.withheld), (2, 1), "{s:?}");
    assert!(s.redacted >= 3, "{s:?}");
    let e = t.client();
    let v = e
        .select(&[("q".into(), "*:*".into()), ("rows".into(), "100".into())])
        .expect("test setup");
    let held = v.to_string();
    assert!(!held.contains(ghp) && !held.contains("555-0100"), "{held}");
    assert!(held.contains("[REDACTED:"), "{held}");
    assert_eq!(t.count(&format!("body:{ghp}")), 0);
    assert_eq!(t.count("doc_id:\"notes/diary.md\""), 0);
    // Marked after it was sent: deleted from the engine.
    t.note(
        "plain.md",
        "# Plain\n\nA plain kiwi note.\n\nbrain:do-not-index\n",
    );
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.withheld, s.removed), (2, 1), "{s:?}");
    assert_eq!(t.count("doc_id:\"notes/plain.md\""), 0);
    assert_eq!(t.ids().len(), 2, "deploy.md's passage and chunk");
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Documents with huge fields, markup, control characters and ids that try to leave their index;
/// queries that try to inject the engine's syntax: stored and searched as text.
#[test]
fn hostile_documents_and_queries_are_text() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "hostile") else {
        return;
    };
    // A long body (many passages), a title of 100 KB, a word of 50 KB.
    let long = "pangolin ".repeat(3000);
    let title = "heading ".repeat(12_500);
    let word = "x".repeat(50_000);
    t.note(
        "huge.md",
        &format!("---\ntitle: {title}\n---\n{long}\n{word}\n"),
    );
    t.note(
        "markup.md",
        "---\nproject: \"x\\\") OR (*:*\"\ntype: \"a\\u0000b\"\n---\n# <script>alert(1)</script>\n\n{!xmlparser v='<x/>'} \\\" \u{0007} \u{202e}reversed *:* AND OR NOT ~ ^ [ ] okapi\n",
    );
    let (out, s) = t.push(&["--all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.refused, 0, "{s:?}");
    // From stdin (an --all run would prune them: they are no files of the collection).
    let mut doc = serde_json::json!({"schema": 1, "kind": "doc", "id": "notes/../../admin/collections?action=DELETE", "collection": "notes", "path": "../x.md", "title": "Escape", "date": "2026-04-01T00:00:00Z", "source": {"type": "note", "file": "x"}, "meta": {}, "body": "escaping narwhal"});
    let out = run(t.cmd("teamindex").arg("-q"), format!("{doc}\n").as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    doc["id"] = "notes/{!knn f=vec}".into();
    let out = run(t.cmd("teamindex").arg("-q"), format!("{doc}\n").as_bytes());
    assert!(out.status.success());
    // An id longer than the engine keeps (32 KB): refused alone, reported; the batch's other
    // document still goes.
    let mut big = doc.clone();
    big["id"] = format!("notes/{}", "i".repeat(40_000)).into();
    doc["id"] = "notes/beside-the-big-one".into();
    let out = run(
        &mut t.cmd("teamindex"),
        format!("{big}\n{doc}\n").as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Summary = parse_lines(&out.stdout).pop().expect("test setup");
    assert_eq!((s.refused, s.sent), (1, 1), "{s:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused by the engine"));
    assert!(t.count("body:pangolin") >= 1);
    let (code, hits, _) = t.rank("narwhal", &["--mode", "lex"]);
    assert_eq!(code, 0);
    assert!(
        hits.iter()
            .any(|h| h.uri == "brain://notes/../../admin/collections?action=DELETE")
    );
    // The index survived the id that looked like an API call.
    assert!(t.count("*:*") >= 4);
    let (_, hits, _) = t.rank("okapi", &["--mode", "lex"]);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].title.contains("<script>"));
    let total = t.count("*:*") as usize;
    for q in [
        "*:*",
        "\"*:*\"",
        "{!knn f=vec topK=10}[1,2]",
        "\") OR (*:*",
        "body:* OR title:*",
        "x\\\" OR \\\"*:*",
        "AND OR NOT",
        "project:\"x\\\") OR (*:*\" okapi",
        "collection:notes) OR (collection:* okapi",
        "[* TO *]",
        "\u{0007} \u{202e}",
        &"okapi ".repeat(300),
    ] {
        let (code, hits, err) = t.rank(q, &["--mode", "lex"]);
        assert!(matches!(code, 0 | 64 | 67), "{q:?}: exit {code}: {err}");
        assert!(
            hits.len() < total.min(10)
                || hits
                    .iter()
                    .all(|h| h.snippet.contains("okapi") || h.snippet.contains("pangolin")),
            "{q:?} matched everything: {hits:?}"
        );
    }
}

/// Basic auth from the environment: sent to the engine, never printed; credentials refused → 71;
/// credentials in the URL → 64.
#[test]
fn credentials_are_sent_and_never_shown() {
    let Some(t) = Team::new("http://127.0.0.1:9/solr", "creds") else {
        return;
    };
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let listener = TcpListener::bind("127.0.0.1:0").expect("test setup");
    let port = listener.local_addr().expect("test setup").port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let mut conn = conn;
            let mut buf = vec![0u8; 65536];
            let n = conn.read(&mut buf).unwrap_or(0);
            log.lock()
                .expect("test setup")
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let _ = conn.write_all(
                b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    t.configure(&format!("http://127.0.0.1:{port}/solr"));
    t.note("a.md", "# A\n\nsome note\n");
    let out = run(
        t.cmd("teamindex")
            .args(["--all"])
            .env("BRAIN_ENGINE_USER", "ana")
            .env("BRAIN_ENGINE_PASSWORD", "hunter2-secret"),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(71),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !all.contains("hunter2") && !all.contains("YW5hOmh1bnRlcjIt"),
        "{all}"
    );
    assert!(all.contains("refused the credentials"), "{all}");
    let requests = seen.lock().expect("test setup").join("\n");
    assert!(
        requests
            .to_lowercase()
            .contains("authorization: basic yw5hom"),
        "{requests}"
    );
    // A URL with credentials in it is refused before anything is sent.
    let out = run(
        t.cmd("teamindex")
            .args(["--engine", "http://ana:pw@127.0.0.1:9/solr"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(":pw@"));
}

/// Nothing shared (the default): nothing leaves the machine — no engine is contacted, even one
/// that does not exist.
#[test]
fn nothing_shared_sends_nothing() {
    let Some(t) = Team::new("http://127.0.0.1:9/solr", "none") else {
        return;
    };
    let base = std::fs::read_to_string(t.home.join("brain.yaml")).expect("yaml");
    std::fs::write(
        t.home.join("brain.yaml"),
        base.replace("shared: [notes]", "shared: []"),
    )
    .expect("write");
    t.note("a.md", "# A\n\nsome note\n");
    let (out, s) = t.push(&["--all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((s.docs, s.not_shared, s.sent), (1, 1, 0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing is sent"));
}

/// brain.yaml's team section is checked: a shared collection that does not exist, an engine URL
/// that is not one, an index name that could escape — 64 with the fix, nothing sent.
#[test]
fn a_bad_team_section_is_refused() {
    let Some(t) = Team::new("http://127.0.0.1:9/solr", "badcfg") else {
        return;
    };
    let base = std::fs::read_to_string(t.home.join("brain.yaml")).expect("test setup");
    for (from, to) in [
        ("shared: [notes]", "shared: [nope]"),
        (
            "engines: {test: \"http://127.0.0.1:9/solr\"}",
            "engines: {test: \"file:///etc\"}",
        ),
        (&format!("index: {}", t.index), "index: ../x"),
        ("shared: [notes]", "shared: [notes]\n  shards: 0"),
        ("shared: [notes]", "shared: [notes]\n  bogus: 1"),
    ] {
        std::fs::write(t.home.join("brain.yaml"), base.replace(from, to))
            .expect("write a test file");
        let out = run(t.cmd("teamindex").arg("--all"), b"");
        assert_eq!(
            out.status.code(),
            Some(64),
            "{to}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `brain eval SET --engine URL`: the set goes through the teamindex sink and every query through
/// the engine; on a slice of SciFact (every judged document of the 300 test queries, and as many
/// others) nDCG@10 is within 0.01 of the same evaluation on this machine's own indexes, lexical
/// and hybrid. (The whole set is in docs/team.md's figures: `bench`-sized, not CI-sized.)
#[test]
fn eval_through_the_engine_matches_local() {
    let Some(url) = engine() else { return };
    let Some(model) = model_dir() else { return };
    let Some(scifact) = brain_tests::shared("ir/scifact") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("slice");
    std::fs::create_dir_all(set.join("qrels")).expect("mkdir");
    let qrels = std::fs::read_to_string(scifact.join("qrels/test.tsv")).expect("qrels");
    let judged: std::collections::HashSet<&str> = qrels
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(1))
        .collect();
    let corpus = std::fs::read_to_string(scifact.join("corpus.jsonl")).expect("corpus");
    let (mut kept, mut others) = (String::new(), 0);
    for line in corpus.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("corpus line");
        let id = v["_id"].as_str().expect("id");
        if judged.contains(id) || others < judged.len() {
            if !judged.contains(id) {
                others += 1;
            }
            kept.push_str(line);
            kept.push('\n');
        }
    }
    std::fs::write(set.join("corpus.jsonl"), kept).expect("write corpus");
    std::fs::copy(scifact.join("queries.jsonl"), set.join("queries.jsonl")).expect("queries");
    std::fs::write(set.join("qrels/test.tsv"), &qrels).expect("qrels");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let eval = |mode: &str, engine: Option<&str>| -> f64 {
        let mut c = command("brain", &home);
        c.env("BRAIN_EMBEDDER", format!("local:{}", model.display()))
            .args(["eval", "--json", "--mode", mode])
            .arg(&set);
        if let Some(e) = engine {
            c.args(["--engine", e]);
        }
        let out = run(&mut c, b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
        assert_eq!(r["queries"], 300);
        assert_eq!(r["engine"].is_string(), engine.is_some(), "{r}");
        r["ndcg_at_10"].as_f64().expect("ndcg")
    };
    for mode in ["lex", "hybrid"] {
        let local = eval(mode, None);
        let remote = eval(mode, Some(&url));
        eprintln!("scifact slice {mode}: local {local}, engine {remote}");
        assert!(
            (local - remote).abs() <= 0.01,
            "{mode}: local {local}, engine {remote}"
        );
    }
    let e = brain_team::Engine::connect(&url, "x", None, Duration::from_secs(30)).expect("connect");
    let list = e
        .get("admin/collections", &[("action", "LIST")])
        .expect("list");
    for name in list["collections"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str())
    {
        if name.starts_with("eval-") {
            let _ = e.get("admin/collections", &[("action", "DELETE"), ("name", name)]);
        }
    }
}

/// The lifecycle through the engine: archived, superseded and expired records are hidden unless
/// asked for; `--as-of` brings back what was current then and leaves out what came later.
#[test]
fn the_lifecycle_holds_in_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "life") else {
        return;
    };
    t.note("old.md", "---\ndate: 2026-01-01\nstatus: superseded\n---\n# Old\n\nThe gateway timeout is 30 seconds.\n");
    t.note("gone.md", "---\ndate: 2026-01-02\nstatus: archived\n---\n# Gone\n\nThe gateway timeout was archived.\n");
    t.note("ttl.md", "---\ndate: 2026-01-03\nexpires_at: 2026-02-01\n---\n# Expired\n\nThe gateway timeout for the launch week.\n");
    t.note(
        "now.md",
        "---\ndate: 2026-03-01\n---\n# Now\n\nThe gateway timeout is 60 seconds.\n",
    );
    let (out, _) = t.push(&["--all"]);
    assert!(out.status.success());
    let uris = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--mode", "lex", "--now", "2026-04-10T12:00:00Z"];
        args.extend_from_slice(extra);
        let (code, hits, err) = t.rank("gateway timeout", &args);
        assert!(matches!(code, 0 | 67), "{err}");
        let mut u: Vec<String> = hits.into_iter().map(|h| h.uri).collect();
        u.sort();
        u
    };
    assert_eq!(uris(&[]), vec!["brain://notes/now.md"]);
    assert_eq!(uris(&["--include-superseded"]).len(), 4);
    // What was current on 2026-01-20: the expiring record and the one since superseded; not
    // the archived one, not the one written later.
    assert_eq!(
        uris(&["--as-of", "2026-01-20"]),
        vec!["brain://notes/old.md", "brain://notes/ttl.md"]
    );
}

/// `brain forget --purge` deletes the record from the engine too, and says so; while the engine
/// is unreachable the delete waits in the spool and the next teamindex sends it first.
#[test]
fn a_purge_reaches_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "purge") else {
        return;
    };
    // The engine as a laptop sees it: through a port that can close and open again.
    let (port, fwd) = t.behind_a_port(&url);
    t.note("keep.md", "# Keep\n\nThe capybara note stays.\n");
    t.note("secret.md", "# Secret\n\nThe capybara secret must go.\n");
    t.note(
        "later.md",
        "# Later\n\nThe capybara note purged while offline.\n",
    );
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.sent, 3);
    let purge = |id: &str| -> String {
        let out = run(t.cmd("brain").args(["forget", "--purge", "--yes", id]), b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = purge("notes/secret.md");
    assert!(said.contains("deleted from the team engine"), "{said}");
    assert_eq!(t.count("doc_id:\"notes/secret.md\""), 0);
    assert_eq!((t.passages("*:*"), t.count("*:*")), (2, 4));
    // Offline: the delete is spooled.
    drop(fwd);
    let said = purge("notes/later.md");
    assert!(said.contains("waits in the spool"), "{said}");
    assert_eq!(
        t.count("doc_id:\"notes/later.md\""),
        2,
        "nothing reached the engine yet"
    );
    // Back: the next teamindex sends the spooled delete first.
    let _fwd = Forwarder::again(port, &url);
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.drained, 1, "{s:?}");
    assert_eq!(t.count("doc_id:\"notes/later.md\""), 0);
    assert_eq!((t.passages("*:*"), t.count("*:*")), (1, 2));

    // Written and pushed while the engine is away (its add waits in the spool), then purged: the
    // add leaves the spool before anything is sent, so the engine never receives the text.
    drop(_fwd);
    t.note(
        "offline.md",
        "# Offline\n\nThe quokkasecret written offline.\n",
    );
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.spooled), (1, 1), "{s:?}");
    let said = purge("notes/offline.md");
    assert!(said.contains("waits in the spool"), "{said}");
    let state = t.home.join("state/team");
    let spooled: Vec<(String, Vec<u8>)> = brain_tests::tree(&state);
    assert!(
        spooled
            .iter()
            .all(|(_, b)| !String::from_utf8_lossy(b).contains("quokkasecret")),
        "the purged text left the spool"
    );
    let _fwd = Forwarder::again(port, &url);
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.drained, 1, "only the purge's delete was left: {s:?}");
    assert_eq!(t.count("body:quokkasecret"), 0);
    assert_eq!(t.count("doc_id:\"notes/offline.md\""), 0);
    assert_eq!((t.passages("*:*"), t.count("*:*")), (1, 2));
}

/// A spooled request damaged on disk is never sent, and loses nothing: the next run sends every
/// shared document again, so the engine holds each one.
#[test]
fn a_damaged_spool_loses_no_document() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "damaged-spool") else {
        return;
    };
    let (port, fwd) = t.behind_a_port(&url);
    t.note("one.md", "# One\n\nThe first wombat note.\n");
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    t.push(&["--all"]);
    drop(fwd);
    t.note("two.md", "# Two\n\nThe second wombat note.\n");
    t.note("three.md", "# Three\n\nThe third wombat note.\n");
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    let (_, s) = t.push(&["--all"]);
    assert_eq!(s.spooled, 1, "{s:?}");
    // A torn file: the spooled request cut in half.
    let file = brain_tests::files(&t.home.join("state/team"))
        .into_iter()
        .find(|f| f.components().any(|c| c.as_os_str() == "spool"))
        .expect("a spooled file");
    let bytes = std::fs::read(&file).expect("read");
    std::fs::write(&file, &bytes[..bytes.len() / 2]).expect("tear");
    let _fwd = Forwarder::again(port, &url);
    let (out, s) = t.push(&["--all"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("every shared document is sent again"),
        "{said}"
    );
    assert_eq!((s.drained, s.sent), (0, 3), "{s:?}");
    for id in ["one", "two", "three"] {
        assert_eq!(t.count(&format!("doc_id:\"notes/{id}.md\"")), 2, "{id}");
    }
    // And the next run has nothing left to do.
    let (_, s) = t.push(&["--all"]);
    assert_eq!((s.sent, s.unchanged, s.waiting), (0, 3, 0), "{s:?}");
}

/// `brain doctor`'s team check: passes when the engine holds what this home sent; fails, naming
/// the difference, when a document was deleted behind its back; passes again after teamindex.
#[test]
fn doctor_compares_this_home_with_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "doctor") else {
        return;
    };
    t.note("a.md", "# A\n\nalpha note\n");
    t.note("b.md", "# B\n\nbeta note\n");
    t.push(&["--all"]);
    let c = t.doctor_team();
    assert_eq!(c["outcome"], "pass", "{c}");
    let e = t.client();
    e.post_json(
        &format!("{}/update", t.index),
        &[("commit", "true")],
        br#"{"delete": {"query": "doc_id:\"notes/b.md\""}}"#,
    )
    .expect("delete");
    let c = t.doctor_team();
    assert_eq!(c["outcome"], "fail", "{c}");
    assert!(c.to_string().contains("sent, not held: notes/b.md"), "{c}");
    // teamindex --all does not know it is missing (it was sent): the state is the truth of what
    // was sent, so the fix is a fresh state. Deleting it sends everything again.
    std::fs::remove_dir_all(t.home.join("state/team")).expect("rm state");
    t.push(&["--all"]);
    assert_eq!(t.doctor_team()["outcome"], "pass");
}

/// The MCP `query` tool searches a team engine by its name in brain.yaml, never a URL.
#[test]
fn mcp_query_reaches_the_engine_by_name_only() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "mcp") else {
        return;
    };
    t.note("m.md", "# M\n\nThe axolotl regenerates its limbs.\n");
    t.push(&["--all"]);
    let mut child = t
        .cmd("brain")
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn brain mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(
        child.stdout.take().expect("stdout"),
    ));
    let mut ask = |id: u64, method: &str, params: serde_json::Value| -> serde_json::Value {
        let msg =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").expect("send");
        stdin.flush().expect("flush");
        let line = lines.next().expect("a reply").expect("read");
        serde_json::from_str(&line).expect("json")
    };
    ask(
        1,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let r = ask(
        2,
        "tools/call",
        serde_json::json!({"name": "query", "arguments": {"query": "axolotl limbs", "engine": "test"}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let results = r["result"]["structuredContent"]["results"]
        .as_array()
        .expect("results")
        .clone();
    assert_eq!(results[0]["uri"], "brain://notes/m.md", "{r}");
    let r = ask(
        3,
        "tools/call",
        serde_json::json!({"name": "query", "arguments": {"query": "axolotl", "engine": url}}),
    );
    assert_eq!(r["result"]["isError"], true, "a URL is not a name: {r}");
    drop(stdin);
    let _ = child.wait();
}

/// Seed 002 through the engine: a later active record of the same key supersedes an older one —
/// whoever wrote either — hidden by default, back with --include-superseded, and current again
/// `--as-of` a day before the newer one.
#[test]
fn a_later_record_of_a_key_supersedes_in_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "keys") else {
        return;
    };
    t.note("pg15.md", "---\ndate: 2026-01-10\ntype: fact\nkey: db.engine\n---\n# Database\n\nThe core database runs Postgres 15.\n");
    t.push(&["--all"]);
    // A teammate's newer record of the same key, sent from their machine.
    let doc = serde_json::json!({"schema": 1, "kind": "doc", "id": "notes/pg16.md", "collection": "notes", "path": "pg16.md", "title": "Database upgrade", "date": "2026-03-01T00:00:00Z", "source": {"type": "note", "file": "x"}, "meta": {"type": "fact", "key": "DB.Engine"}, "body": "The core database runs Postgres 16 since the upgrade."});
    let mut c = t.cmd("teamindex");
    c.env("BRAIN_AUTHOR", "bo")
        .env("BRAIN_MACHINE", "desktop-2")
        .env("BRAIN_HOME", t.home.join("../bo-home"));
    std::fs::create_dir_all(t.home.join("../bo-home")).expect("bo home");
    std::fs::copy(
        t.home.join("brain.yaml"),
        t.home.join("../bo-home/brain.yaml"),
    )
    .expect("yaml");
    let out = run(&mut c, format!("{doc}\n").as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let uris = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--mode", "lex", "--now", "2026-04-10T12:00:00Z"];
        args.extend_from_slice(extra);
        let (_, hits, _) = t.rank("core database postgres", &args);
        let mut u: Vec<String> = hits.into_iter().map(|h| h.uri).collect();
        u.sort();
        u
    };
    assert_eq!(uris(&[]), vec!["brain://notes/pg16.md"]);
    assert_eq!(uris(&["--include-superseded"]).len(), 2);
    assert_eq!(
        uris(&["--as-of", "2026-02-01"]),
        vec!["brain://notes/pg15.md"]
    );
}

/// An `https://` engine: its certificate is verified — refused (71, with the fix) when a team's own
/// CA signed it and brain was not told; reached with `team.ca` / `BRAIN_ENGINE_CA`. The engine
/// here is `openssl s_server`, which answers HTML: reaching it shows as "not JSON".
#[test]
fn an_https_engine_is_verified_against_the_team_ca() {
    let Some(t) = Team::new("http://127.0.0.1:9/solr", "tls") else {
        return;
    };
    if std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("BRAIN_REQUIRE_ENGINE").is_err(),
            "openssl (Debian's openssl package) is needed for the TLS test"
        );
        brain_tests::skip("no openssl (Debian's openssl package)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let ssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(d)
            .output()
            .expect("openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-subj",
        "/CN=team-ca",
        "-days",
        "2",
    ]);
    ssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "srv.key",
        "-out",
        "srv.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(d.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n").expect("ext");
    ssl(&[
        "x509",
        "-req",
        "-in",
        "srv.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "srv.pem",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut server = std::process::Command::new("openssl")
        .args([
            "s_server",
            "-accept",
            &port.to_string(),
            "-cert",
            "srv.pem",
            "-key",
            "srv.key",
            "-www",
            "-quiet",
        ])
        .current_dir(d)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("s_server");
    let start = std::time::Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err()
        && start.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    t.configure(&format!("https://127.0.0.1:{port}/solr"));
    t.note("a.md", "# A\n\nsome note\n");
    let out = run(t.cmd("teamindex").arg("--all"), b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(71), "{err}");
    assert!(
        err.contains("TLS failed") && err.contains("team.ca"),
        "{err}"
    );
    let out = run(
        t.cmd("teamindex")
            .arg("--all")
            .env("BRAIN_ENGINE_CA", d.join("ca.pem")),
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.contains("not JSON") && !err.contains("TLS failed"),
        "{err}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// `brain context --engine`: the memory block for a task, built from the team engine's answers
/// (fenced as team text), within the budget.
#[test]
fn context_is_built_from_the_engine() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "context") else {
        return;
    };
    t.note("r.md", "---\ntype: decision\nimportance: 5\n---\n# Release\n\nWe decided releases go out on Tuesdays after the canary.\n");
    t.push(&["--all"]);
    let out = run(
        t.cmd("brain").args([
            "context",
            "--engine",
            "test",
            "--json",
            "--budget",
            "500",
            "when do releases go out",
        ]),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let block: serde_json::Value = serde_json::from_slice(&out.stdout).expect("context json");
    let text = block.to_string();
    assert!(text.contains("Tuesdays"), "{text}");
    assert!(text.contains("untrusted"), "team text is fenced: {text}");
}

/// Three notes — all of "tokio runtime shutdown", one word of it, none — indexed here and pushed.
fn runtime_notes(t: &Team) {
    t.note(
        "a.md",
        "# Tokio runtime\n\nThe tokio runtime panicked on shutdown.\n",
    );
    t.note(
        "b.md",
        "# Runtime notes\n\nA runtime note without the other word.\n",
    );
    t.note(
        "c.md",
        "# Unrelated\n\nSomething else entirely about gardens.\n",
    );
    assert!(run(t.cmd("lexindex").arg("--all"), b"").status.success());
    t.push(&["--all"]);
}

/// A document's strength reads the same through the engine as locally (issue 58: 0.32 through
/// the engine, 1.00 locally — the engine's hits carried no `match` signal): each engine hit's
/// share of the query's words is weighed as this home's index weighs them.
#[test]
fn strengths_through_the_engine_are_on_the_local_scale() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "strength") else {
        return;
    };
    // One passage of about 2,500 bytes, two chunks: the query's words are in the passage, not
    // in either chunk alone (mapping 1 searched the chunks: this note was a weaker match there).
    let filler = "The scheduler kept its worker threads busy while the queue drained. ".repeat(36);
    t.note(
        "d.md",
        &format!("# Long notes\n\nThe tokio executor stalled. {filler}It hung at shutdown.\n"),
    );
    runtime_notes(&t);
    for query in [
        "tokio runtime shutdown",
        "runtime",
        "gardens tokio",
        "tokio shutdown",
    ] {
        let local = t.rank_here(query);
        let (_, remote, said) = t.rank(query, &["--mode", "lex"]);
        assert!(!remote.is_empty(), "{query}: {said}");
        for r in &remote {
            let l = local
                .iter()
                .find(|l| l.uri == r.uri)
                .unwrap_or_else(|| panic!("{query}: {} not found locally", r.uri));
            let (Some(a), Some(b)) = (l.strength, r.strength) else {
                panic!(
                    "{query}: {} has no strength: {:?} / {:?}",
                    r.uri, l.strength, r.strength
                );
            };
            assert!(
                (a - b).abs() <= 0.05,
                "{query}: {} local {a}, engine {b}",
                r.uri
            );
            // The same passage, so the same share of the query's words, and the same line of it
            // shown.
            assert_eq!(
                l.signals.get("match"),
                r.signals.get("match"),
                "{query}: {}",
                r.uri
            );
            assert_eq!((l.line, &l.snippet), (r.line, &r.snippet), "{query}");
        }
        // The author and machine each engine hit was sent by.
        assert!(
            remote
                .iter()
                .all(|h| h.signals["author"] == "ana" && h.signals["machine"] == "laptop-1"),
            "{remote:?}"
        );
    }
    // And a person reading the answer sees them, whatever the mode fused.
    let ask = run(
        t.cmd("brain")
            .args(["ask", "--engine", "test", "tokio runtime shutdown"]),
        b"",
    );
    let shown = String::from_utf8_lossy(&ask.stdout);
    assert!(shown.contains("by ana on laptop-1"), "{shown}");
}

/// A member with no local index of their own (they only ask the engine) still gets strengths on
/// the match scale: each hit's share of the query's words, weighed by the engine's statistics
/// (its lexical passages and those holding each word), as a local index would weigh them.
#[test]
fn a_member_without_a_local_index_gets_match_strengths() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "nolocal") else {
        return;
    };
    runtime_notes(&t);
    let query = "tokio runtime shutdown";
    let local = t.rank_here(query);
    std::fs::remove_dir_all(t.home.join("index").join("lex")).expect("no local index");
    let (code, hits, said) = t.rank(query, &["--mode", "lex"]);
    assert_eq!(code, 0, "{said}");
    let signal = |list: &[Hit], name: &str| {
        let h = list
            .iter()
            .find(|h| h.uri.ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {list:?} {said}"));
        assert!(h.strength.is_some(), "{name} has no strength: {list:?}");
        h.signals["match"].as_f64().expect("a match signal")
    };
    assert!((signal(&hits, "a.md") - 1.0).abs() <= 0.01, "{hits:?}");
    // One word of three ("runtime", in two of the three passages), weighed by the engine's
    // statistics as the local index weighed it (every word the same would say a third).
    let b = signal(&hits, "b.md");
    assert!((b - signal(&local, "b.md")).abs() <= 0.01, "{b} {local:?}");
    assert!(b < 0.25, "{b}");
}

/// An index made by the last mapping (1: chunks alone, searched by words) is refused, never
/// mixed with records of this one: `teamindex` exits 65 with the fix (a new `team.index`) and
/// sends nothing, `rank --engine` exits 65, and doctor's team check names the mapping.
#[test]
fn an_index_of_the_last_mapping_is_refused_with_its_fix() {
    let Some(url) = engine() else { return };
    let Some(t) = Team::new(&url, "oldmap") else {
        return;
    };
    let e = t.client();
    let old = brain_team::mapping::Mapping::new("local:all-MiniLM-L6-v2", 384)
        .schema()
        .replace("brain-2-384-", "brain-1-384-");
    let name = "brain-1-384-all-minilm-l6-v2";
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default();
        for (file, text) in [
            (
                "solrconfig.xml",
                include_str!("../../crates/brain-team/conf/solrconfig.xml").to_string(),
            ),
            ("schema.xml", old),
        ] {
            zip.start_file(file, opts).expect("test setup");
            zip.write_all(text.as_bytes()).expect("test setup");
        }
        zip.finish().expect("test setup");
    }
    // Uploaded by an earlier run of this test, or now.
    let _ = e.post_bytes(
        "admin/configs",
        &[("action", "UPLOAD"), ("name", name)],
        &buf.into_inner(),
    );
    e.get(
        "admin/collections",
        &[
            ("action", "CREATE"),
            ("name", &t.index),
            ("numShards", "1"),
            ("replicationFactor", "1"),
            ("collection.configName", name),
            ("waitForFinalState", "true"),
        ],
    )
    .expect("an index of mapping 1");
    t.note("a.md", "# Upgrade\n\nA note written after the upgrade.\n");
    let out = run(t.cmd("teamindex").arg("--all"), b"");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{said}");
    assert!(
        said.contains(name) && said.contains("point team.index at a new name"),
        "{said}"
    );
    assert_eq!(t.count("*:*"), 0, "nothing was sent");
    let (code, _, said) = t.rank("upgrade", &["--mode", "lex"]);
    assert_eq!(code, 65, "{said}");
    assert!(said.contains("mapping 2"), "{said}");
    let check = t.doctor_team();
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(check.to_string().contains(name), "{check}");
}
