//! `brain browse` (issue #27) against the memory vault (golden/vault) with a real jsonl2md session
//! and hostile documents added: the HTTP contract over a real socket (token, loopback Host and
//! Origin, read-only, paths that try to escape, escaping, headers, concurrent requests, counts
//! against `brain status --json`, `brain ask --link`), then the pages in Debian's headless Chromium
//! through playwright-core (tests/browser): the printed URL opened, a search followed to its turn,
//! injected script never run, a screenshot of each page in target/browse-shots/.
//!
//! Build first: `cargo build --workspace --bins`; the browser part needs `bash tests/browser/install.sh`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use brain_tests::{bin, command, run, workspace};

const NOW: &str = "2026-03-23T12:00:00Z";

/// What a hostile person or page can put in a note.
const HOSTILE_NOTE: &str = "---\ntitle: \"<script>window.__pwned='title'</script> Hostile note\"\ndate: 2026-03-12T10:00:00Z\ntags: [\"<img src=x onerror=window.__pwned='tag'>\"]\n---\n# Hostile note\n\nzanzibar marker text.\n\n<script>window.__pwned='block';alert('block')</script>\n\nInline <img src=x onerror=\"window.__pwned='img';alert('img')\"> and <svg onload=\"window.__pwned='svg'\"></svg>.\n\n[click me](javascript:window.__pwned='link') · [also](JaVaScRiPt:alert('link2')) · ![pic](javascript:window.__pwned='pic') · [data](data:text/html,<script>alert(1)</script>)\n\n<iframe src=\"https://evil.example/\"></iframe>\n\n<a href=\"javascript:window.__pwned='a'\">raw anchor</a>\n";

/// A session whose turns carry script, as a transcript pasted from a web page would.
const HOSTILE_SESSION: &str = "---\ntitle: Hostile session zanzibar\ndate: 2026-03-12T11:00:00Z\nagent: claude\nsession_id: hostile-0001\nproject: /home/dev/code/billing-api\n---\n## Conversation\n\n**User**: please run <script>window.__pwned='turn';alert('turn')</script> zanzibar\n\n**Assistant**: Here is <img src=x onerror=\"window.__pwned='turn-img'\"> and [a link](javascript:window.__pwned='turn-link').\n\n## Tools Used\n\n- Bash: echo \"<svg onload=window.__pwned='svg'>\"\n";

/// The vault, a real jsonl2md session, the hostile documents, traps for path escapes; indexed.
fn browse_home(work: &Path) -> PathBuf {
    let home = brain_tests::vault_home(work, false).expect("vault");
    let out = run(
        command("jsonl2md", &home).args([
            "--out-dir",
            work.join("sessions").to_str().expect("utf8"),
            workspace()
                .join("golden/jsonl2md/claude-subagents/proj")
                .to_str()
                .expect("utf8"),
        ]),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(work.join("notes/hostile.md"), HOSTILE_NOTE).expect("write");
    std::fs::write(work.join("sessions/hostile-session.md"), HOSTILE_SESSION).expect("write");
    // A fact and the one that replaced it (one key).
    for (name, date, city) in [
        ("city-1", "2026-03-01", "Lisbon"),
        ("city-2", "2026-03-15", "Porto"),
    ] {
        std::fs::write(
            work.join(format!("notes/{name}.md")),
            format!("---\ntitle: Ana lives in {city}\ndate: {date}\ntype: fact\nkey: ana-city\n---\nAna lives in {city}.\n"),
        )
        .expect("write");
    }
    // Traps: a link out of the collection, a hidden file, a file the glob does not take.
    std::os::unix::fs::symlink(home.join("brain.yaml"), work.join("notes/escape.md"))
        .expect("link");
    std::fs::write(work.join("notes/.hidden.md"), "# hidden\n").expect("write");
    std::fs::write(work.join("notes/secret.txt"), "not a document\n").expect("write");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    home
}

/// A running `brain browse --port 0`, stopped when dropped.
struct Server {
    child: Child,
    url: String,
    port: u16,
    token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(home: &Path) -> Server {
    let mut c = command("brain", home);
    c.env("BRAIN_NOW", NOW)
        .args(["browse", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().expect("spawn brain browse");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the URL");
    let url = line.trim().to_string();
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .expect("a loopback URL");
    let (port, token) = rest.split_once("/?t=").expect("port and token");
    Server {
        port: port.parse().expect("port"),
        token: token.to_string(),
        url,
        child,
    }
}

/// One raw HTTP request (`Connection: close`): status, headers, body.
fn request(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    // HTTP/1.0: the body comes whole, never chunked.
    let mut req = format!("{method} {target} HTTP/1.0\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

impl Server {
    fn cookie(&self) -> String {
        format!("brain_browse_{}={}", self.port, self.token)
    }

    /// GET `target` with the token's cookie.
    fn get(&self, target: &str) -> (u16, Vec<(String, String)>, String) {
        request(self.port, "GET", target, &[("Cookie", &self.cookie())])
    }
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[test]
fn the_http_contract_holds_on_a_real_socket() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = browse_home(work.path());
    let s = start(&home);
    let port = s.port;

    // The token: required everywhere, moved into a cookie by the printed URL.
    for t in [
        "/",
        "/search?q=ledger",
        "/static/style.css",
        "/doc/notes/pinned.md",
    ] {
        assert_eq!(request(port, "GET", t, &[]).0, 403, "{t} without the token");
    }
    let (status, h, _) = request(port, "GET", &format!("/?t={}", s.token), &[]);
    assert_eq!(status, 303);
    assert_eq!(header(&h, "location"), Some("/"));
    let cookie = header(&h, "set-cookie").expect("cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert_eq!(
        request(port, "GET", "/?t=00000000000000000000000000000000", &[]).0,
        403
    );

    // Loopback only, read only.
    for host in [
        "evil.example",
        "evil.example:80",
        "localhost.evil.example",
        "192.168.1.2",
    ] {
        let (status, _, _) = request(port, "GET", "/", &[("Host", host), ("Cookie", &s.cookie())]);
        assert_eq!(status, 403, "Host {host}");
    }
    let (status, _, _) = request(
        port,
        "GET",
        "/",
        &[("Origin", "https://evil.example"), ("Cookie", &s.cookie())],
    );
    assert_eq!(status, 403);
    for m in ["POST", "PUT", "DELETE"] {
        assert_eq!(
            request(port, m, "/", &[("Cookie", &s.cookie())]).0,
            405,
            "{m}"
        );
    }
    let (status, _, body) = request(port, "HEAD", "/", &[("Cookie", &s.cookie())]);
    assert_eq!((status, body.as_str()), (200, ""));

    // Every answer forbids scripts and framing and keeps its URL to itself.
    let (status, h, body) = s.get("/");
    assert_eq!(status, 200);
    let csp = header(&h, "content-security-policy").expect("csp");
    assert!(
        csp.contains("default-src 'none'") && !csp.contains("script-src"),
        "{csp}"
    );
    assert_eq!(header(&h, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&h, "referrer-policy"), Some("no-referrer"));
    assert_eq!(header(&h, "x-frame-options"), Some("DENY"));

    // The overview's counts are `brain status --json`'s.
    let st = run(command("brain", &home).args(["status", "--json"]), b"");
    let st: serde_json::Value = serde_json::from_slice(&st.stdout).expect("status");
    for c in st["collections"].as_array().expect("collections") {
        let row = format!(
            "data-collection=\"{}\" data-docs=\"{}\"",
            c["name"].as_str().expect("name"),
            c["docs"]
        );
        assert!(body.contains(&row), "{row} in the overview");
    }

    // Paths that try to escape: refused (400) or not a document (404), never served.
    for t in [
        "/raw/notes/../../home/brain.yaml",
        "/raw/notes/%2e%2e/%2e%2e/home/brain.yaml",
        "/raw/notes/..%2f..%2fhome%2fbrain.yaml",
        "/raw/notes/..%5c..%5chome%5cbrain.yaml",
        "/raw/notes/%00pinned.md",
        "/raw//etc/passwd",
    ] {
        assert_eq!(s.get(t).0, 400, "{t}");
    }
    for t in [
        "/raw/notes/escape.md",
        "/raw/notes/.hidden.md",
        "/raw/notes/secret.txt",
        "/raw/nowhere/x.md",
        "/raw/home/brain.yaml",
        "/doc/notes/escape.md",
        "/session/notes/escape.md",
    ] {
        let (status, _, body) = s.get(t);
        assert_eq!(status, 404, "{t}");
        assert!(!body.contains("collections:"), "{t} leaked brain.yaml");
    }
    let (status, h, body) = s.get("/raw/notes/pinned.md");
    assert_eq!(status, 200);
    assert_eq!(
        header(&h, "content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert!(body.starts_with("---"), "{body}");

    // Hostile content is text.
    let (status, _, body) = s.get("/doc/notes/hostile.md");
    assert_eq!(status, 200);
    // Markup never passes; as text (escaped) the words may stay.
    for bad in ["<script", "<img", "<svg", "<iframe", "<a href=\"javascript"] {
        assert!(!body.contains(bad), "{bad} in the hostile note's page");
    }
    let handler = regex::Regex::new(r"(?i)<[a-z][^<>]*\son[a-z]+\s*=").expect("regex");
    assert!(
        !handler.is_match(&body),
        "an event handler attribute in a tag"
    );
    let scheme =
        regex::Regex::new(r#"(?i)<[a-z][^<>]*\s(href|src)\s*=\s*"\s*(javascript|data|vbscript):"#)
            .expect("regex");
    assert!(!scheme.is_match(&body), "a script URL in a tag's attribute");
    let loads = regex::Regex::new(r"(?i)<[a-z][^<>]*\ssrc\s*=").expect("regex");
    assert!(!loads.is_match(&body), "nothing loads from a document");
    assert!(
        body.contains("&lt;script&gt;window.__pwned="),
        "shown as text"
    );
    let (status, _, body) = s.get("/session/sessions/hostile-session.md");
    assert_eq!(status, 200);
    assert!(!body.contains("<script") && !body.contains("<img"));
    assert!(!scheme.is_match(&body) && !handler.is_match(&body));
    let (_, _, body) = s.get("/search?q=zanzibar");
    assert!(!body.contains("<script>window"), "snippets are escaped");
    assert!(body.contains("Hostile"), "{body}");

    // A search hit in a session opens its turn.
    let (status, _, body) = s.get("/search?q=WebKit+timestamps&mode=lex");
    assert_eq!(status, 200);
    let href = body
        .split("class=\"hit-title\" href=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a hit")
        .replace("&#x2f;", "/")
        .replace("&amp;", "&");
    assert!(
        href.starts_with("/session/sessions/") && href.contains("line=") && href.ends_with("#hit"),
        "{href}"
    );
    let (status, _, page) = s.get(href.trim_end_matches("#hit"));
    assert_eq!(status, 200);
    assert!(
        page.contains("class=\"turn role-user hit\"") || page.contains("class=\"part hit\""),
        "the turn is marked"
    );
    assert!(page.contains("id=\"hit\""));
    assert!(
        page.contains("agent-a9f3 (code-reviewer): Review DST handling"),
        "subagents nested"
    );

    // Bad input is a clear 400, not a failure.
    let (status, _, body) = s.get("/search?q=%22unclosed");
    assert_eq!(
        status, 400,
        "a query `brain ask` refuses (exit 64) is refused here too"
    );
    assert!(body.contains("id=\"error\""), "with its reason on the page");
    assert_eq!(s.get("/search?q=x&mode=nonsense").0, 400);
    assert_eq!(s.get(&format!("/search?q={}", "a".repeat(5000))).0, 400);
    assert_eq!(s.get("/timeline?day=yesterday-ish").0, 400);
    assert_eq!(s.get("/timeline?days=400").0, 400);
    assert_eq!(s.get("/search?q=x&collection=nope").0, 400);
    assert_eq!(s.get("/nowhere").0, 404);

    // A supersession chain: the old fact names what replaced it, both list the key's records.
    let (status, _, body) = s.get("/doc/notes/city-1.md");
    assert_eq!(status, 200);
    let sup = body
        .split("id=\"supersession\"")
        .nth(1)
        .expect("a supersession panel");
    assert!(
        sup.contains("superseded by") && sup.contains("notes&#x2f;city-2.md"),
        "{sup}"
    );
    let chain = body.split("id=\"chain\"").nth(1).expect("the key's chain");
    let (old, new) = (
        chain.find("Lisbon (this one)").expect("old"),
        chain.find("Porto").expect("new"),
    );
    assert!(old < new, "oldest first");
    assert!(
        chain.contains("superseded ·") && chain.contains("current ·"),
        "{chain}"
    );

    // Pages of the memory model.
    let (status, _, body) = s.get("/timeline?day=2026-03-20");
    assert_eq!(status, 200);
    assert!(body.contains("id=\"d2026-03-20\"") && body.contains("id=\"d2026-03-14\""));
    assert_eq!(
        body.matches("class=\"cell ").count(),
        53 * 7,
        "a year of days"
    );
    let (status, _, body) = s.get("/entity/Sarah");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Sarah Chen"));
    let (status, _, body) = s.get("/entity/SC");
    assert_eq!(
        status, 400,
        "an alias two entities share is a choice, never a guess"
    );
    assert!(
        body.contains("Sarah Chen") && body.contains("&#x2f;entity&#x2f;"),
        "{body}"
    );
    let (status, _, body) = s.get("/entities");
    assert_eq!(status, 200);
    assert!(body.contains("id=\"kind-person\"") && body.contains("id=\"kind-project\""));

    // Concurrent readers all get their page.
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let cookie = s.cookie();
            std::thread::spawn(move || {
                let t = ["/", "/timeline", "/search?q=ledger", "/entities"][i % 4];
                request(port, "GET", t, &[("Cookie", &cookie)]).0
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().expect("thread"), 200);
    }

    // `brain ask --link` points into this server.
    let out = run(
        command("brain", &home).env("BRAIN_NOW", NOW).args([
            "ask",
            "--link",
            "--json",
            "ledger serialization",
        ]),
        b"",
    );
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    let link = env["hits"][0]["link"].as_str().expect("a link");
    assert!(
        link.starts_with(&format!("http://127.0.0.1:{port}/")) && link.contains(&s.token),
        "{link}"
    );
    let target = link
        .strip_prefix(&format!("http://127.0.0.1:{port}"))
        .expect("path")
        .split('#')
        .next()
        .expect("target");
    let (status, h, _) = request(port, "GET", target, &[]);
    assert_eq!(status, 303, "a link works in a browser without the cookie");
    let (status, _, _) = s.get(header(&h, "location").expect("location"));
    assert_eq!(status, 200);
    drop(s);
    let out = run(
        command("brain", &home).args(["ask", "--link", "ledger"]),
        b"",
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no `brain browse` is running"),
        "a stopped server gives no links"
    );
}

/// The pages in a real browser (Debian's Chromium through playwright-core).
#[test]
fn the_pages_work_in_a_real_browser_and_injected_script_never_runs() {
    let Some(driver) = browser() else {
        return;
    };
    let work = tempfile::tempdir().expect("tempdir");
    let home = browse_home(work.path());
    let s = start(&home);
    let shots = workspace().join("target/browse-shots");
    let input = serde_json::json!({
        "url": s.url,
        "shots": shots,
        "query": "WebKit timestamps",
        "hostile": "/doc/notes/hostile.md",
        "pages": {
            "timeline": "/timeline?day=2026-03-20",
            "document": "/doc/notes/hostile.md",
            "session": "/session/sessions/hostile-session.md",
            "session-subagents": "/session/sessions/22222222-aaaa-4bbb-8ccc-000000000002.md",
            "entities": "/entities",
            "entity": "/entity/Sarah",
            "project": "/entity/billing",
            "search-explain": "/search?q=ledger",
        },
    });
    let out = Command::new("node")
        .arg(driver.join("browse.mjs"))
        .arg(input.to_string())
        .current_dir(&driver)
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "browse.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");

    // The printed URL lands on a clean address, the token in a cookie.
    assert_eq!(seen["landed"], format!("http://127.0.0.1:{}/", s.port));
    for (path, status) in seen["pages"].as_object().expect("pages") {
        assert_eq!(status, 200, "{path}");
    }
    // Counts as `brain status --json` gives them.
    let st = run(command("brain", &home).args(["status", "--json"]), b"");
    let st: serde_json::Value = serde_json::from_slice(&st.stdout).expect("status");
    for c in st["collections"].as_array().expect("collections") {
        assert_eq!(
            seen["overview"]["collections"][c["name"].as_str().expect("name")],
            c["docs"]
        );
    }
    assert_eq!(
        seen["overview"]["total"]
            .as_str()
            .map(|t| t.replace(',', "")),
        Some(st["docs"].to_string())
    );
    // No injected script ran: no dialog, nothing set, nothing fetched from elsewhere.
    assert_eq!(seen["dialogs"], serde_json::json!([]), "{seen}");
    for (page, v) in seen["pwned"].as_object().expect("pwned") {
        assert!(v.is_null(), "script ran on {page}: {v}");
    }
    assert_eq!(
        seen["blocked"],
        serde_json::json!([]),
        "requests left the server"
    );
    assert!(
        seen["hostile_text"]
            .as_str()
            .is_some_and(|t| t.contains("<script>window.__pwned"))
    );
    // The search form, and a hit followed to its turn.
    let hits = seen["search"]["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{seen}");
    assert_eq!(seen["followed"]["hash"], "#hit");
    assert_eq!(
        seen["followed"]["visible"], true,
        "the turn is scrolled into view"
    );
    assert!(
        seen["followed"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("WebKit timestamps")),
        "{}",
        seen["followed"]
    );
    assert!(seen["explain_rows"].as_u64().is_some_and(|n| n > 0));
    // Phone width: no page wider than the screen; the dark scheme applied.
    assert!(
        seen["phone"]["scrollWidth"].as_u64() <= seen["phone"]["width"].as_u64(),
        "{}",
        seen["phone"]
    );
    assert_ne!(seen["phone"]["bg"], "rgb(255, 255, 255)");
    for shot in seen["shots"].as_array().expect("shots") {
        let p = PathBuf::from(shot.as_str().expect("path"));
        assert!(
            std::fs::metadata(&p).is_ok_and(|m| m.len() > 1000),
            "{}",
            p.display()
        );
    }
}

/// The browser driver folder, when node, Chromium and playwright-core are installed (`make test`
/// installs them: tests/browser/install.sh); `None` (skipped) otherwise, an error in CI.
fn browser() -> Option<PathBuf> {
    let dir = workspace().join("tests/browser");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let chromium =
        Path::new(&std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()))
            .exists();
    let driver = dir
        .join("node_modules/playwright-core/package.json")
        .exists();
    if node && chromium && driver {
        return Some(dir);
    }
    let why = format!(
        "node {node}, chromium {chromium}, playwright-core {driver}: run `bash tests/browser/install.sh`"
    );
    if std::env::var("BRAIN_REQUIRE_CORPORA").is_ok_and(|v| v == "1") {
        panic!("the browser test cannot run ({why}), and BRAIN_REQUIRE_CORPORA=1 requires it");
    }
    brain_tests::skip(&why);
    let _ = bin("brain");
    None
}

#[test]
fn slow_clients_stall_no_page_and_headers_are_bounded() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), false) else {
        return;
    };
    let s = start(&home);
    let addr = format!("127.0.0.1:{}", s.port);
    let mut held = Vec::new();
    for _ in 0..64 {
        let mut c = std::net::TcpStream::connect(&addr).expect("connect");
        std::io::Write::write_all(&mut c, b"GET /?t=").expect("part");
        held.push(c);
    }
    for _ in 0..10 {
        // The token's landing: answered with the redirect that sets the cookie.
        let (status, _, _) = request(s.port, "GET", &format!("/?t={}", s.token), &[]);
        assert_eq!(status, 303);
    }
    let status_of = |raw: &[u8]| -> u16 {
        let mut c = std::net::TcpStream::connect(&addr).expect("connect");
        c.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .expect("timeout");
        let _ = std::io::Write::write_all(&mut c, raw);
        let mut out = String::new();
        let _ = std::io::Read::read_to_string(&mut c, &mut out);
        out.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    };
    let mut big = format!("GET /?t={} HTTP/1.1\r\nHost: {addr}\r\nX-Big: ", s.token).into_bytes();
    big.extend(std::iter::repeat_n(b'a', 64 << 20));
    big.extend(b"\r\n\r\n");
    assert_eq!(status_of(&big), 431);
    for hosts in ["Host:\r\n", "Host: 127.0.0.1\r\nHost: evil.example\r\n"] {
        let raw = format!("GET /?t={} HTTP/1.1\r\n{hosts}\r\n", s.token);
        assert_eq!(status_of(raw.as_bytes()), 403, "{hosts:?}");
    }
    drop(held);
}

/// `--open` whose opener fails says so on stderr (issue 59: it failed silently) and leaves no
/// zombie: the opener's exit is waited for while the server runs.
#[test]
fn open_says_when_the_opener_fails_and_reaps_it() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = browse_home(work.path());
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let opener = bin.join(if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    });
    std::fs::write(
        &opener,
        "#!/bin/sh\necho 'no display to open it on' >&2\nexit 3\n",
    )
    .expect("opener");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = command("brain", &home)
        .env("PATH", path)
        .args(["browse", "--port", "0", "--open"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn brain browse --open");
    let pid = child.id();
    let mut said = String::new();
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    while !said.contains("failed") {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        said.push_str(&line);
    }
    // No zombie child of the server (Linux: /proc lists its children's states).
    let zombies = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
            })
        })
        .count();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said.contains("failed") && said.contains("no display to open it on"),
        "{said}"
    );
    assert_eq!(zombies, 0);
}

/// The web view agrees with the CLI (issue 59): the overview counts the entities its Entities
/// page lists; entities of one name say where each is; a message's commands are code, not
/// literal backticks; search collapses the near-duplicates `brain ask` collapses.
#[test]
fn the_web_view_agrees_with_the_cli() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = browse_home(work.path());
    for (i, project) in ["/work/a/app", "/work/b/app"].iter().enumerate() {
        std::fs::write(
            work.path().join(format!("sessions/app-{i}.md")),
            format!("---\ntitle: App session {i}\ndate: 2026-03-0{}\ntype: session\nproject: {project}\n---\n## Conversation\n\nWorked on the app.\n", i + 1),
        )
        .expect("write");
    }
    let dup = "# Release checklist\n\nBump the version, tag the release, publish the crate, announce it on the list.\n";
    for name in ["release-a.md", "release-b.md"] {
        std::fs::write(work.path().join("notes").join(name), dup).expect("write");
    }
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A doctor run that fails (no hooks here): the overview says so.
    let _ = run(command("brain", &home).args(["doctor", "--json"]), b"");
    let s = start(&home);
    let (status, _, overview) = s.get("/");
    assert_eq!(status, 200);
    let (_, _, entities) = s.get("/entities");
    let entities = entities.replace("&#x2f;", "/");
    let total = entities
        .split("<h1>Entities <span class=\"count\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .expect("the count");
    assert!(
        overview.contains(&format!("<li>{total} entities")),
        "the overview counts {total} entities too: {overview}"
    );
    assert!(total != "0");
    for place in ["/work/a/app", "/work/b/app"] {
        assert!(
            entities.contains(place),
            "{place} tells the two apps apart: {entities}"
        );
    }
    assert!(!overview.contains('`'), "literal backticks: {overview}");
    assert!(overview.contains("<code>"), "{overview}");
    let ask = run(
        command("brain", &home).args([
            "ask",
            "--json",
            "--mode",
            "lex",
            "release checklist publish",
        ]),
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
    let cli = v["hits"].as_array().map_or(0, |h| {
        h.iter()
            .filter(|h| {
                h["path"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("release-"))
            })
            .count()
    });
    assert_eq!(cli, 1, "the CLI collapses the copy: {v}");
    let (_, _, page) = s.get("/search?q=release+checklist+publish&mode=lex");
    assert_eq!(
        page.matches("release-a.md").count().min(1) + page.matches("release-b.md").count().min(1),
        1,
        "{page}"
    );
}
