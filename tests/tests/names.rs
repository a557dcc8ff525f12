//! A record's frontmatter `id:` is its name (issue 40, seed 003): `relations` and `supersedes`
//! name records by it, and `brain get` and `brain related` resolve it.

use std::path::Path;

use brain_tests::{command, indexed_notes, run};

const NOW: &str = "2026-06-01T12:00:00Z";

fn home() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, _) = indexed_notes(&[
        (
            "auth-2026-01.md",
            "---\nid: dec-auth-1\ntitle: Auth keeps server sessions\ndate: 2026-01-10\ntype: decision\n---\nThe auth flow keeps server sessions in the zebrafish store.\n",
        ),
        (
            "auth-2026-05.md",
            "---\nid: dec-auth-2\ntitle: Auth moves to signed tokens\ndate: 2026-05-10\ntype: decision\nsupersedes: dec-auth-1\nrelations:\n  - {kind: refines, to: DEC-AUTH-1}\n---\nThe auth flow moves to signed tokens; the zebrafish store goes.\n",
        ),
        (
            "secret-name.md",
            "---\nid: ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\ntitle: A name that is a token\n---\nzebrafish token\n",
        ),
        (
            "long-name.md",
            &format!(
                "---\nid: {}\ntitle: A name too long\n---\nzebrafish long\n",
                "n".repeat(300)
            ),
        ),
        (
            "unnamed.md",
            "---\ntitle: A note with a bad id\nid: [not, a, name]\n---\nzebrafish notes\n",
        ),
    ]);
    let h = dir.path().join("home");
    (dir, h)
}

fn brain(h: &Path, args: &[&str]) -> std::process::Output {
    run(command("brain", h).env("BRAIN_NOW", NOW).args(args), b"")
}

#[test]
fn get_and_related_resolve_a_record_by_its_id() {
    let (_dir, h) = home();
    let got = brain(&h, &["get", "dec-auth-1"]);
    assert_eq!(
        got.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert!(String::from_utf8_lossy(&got.stdout).contains("keeps server sessions"));
    // Any case, as relations write it.
    let got = brain(&h, &["get", "DEC-AUTH-2"]);
    assert!(String::from_utf8_lossy(&got.stdout).contains("signed tokens"));
    let rel = brain(&h, &["related", "dec-auth-1", "--json"]);
    let text = String::from_utf8_lossy(&rel.stdout);
    assert_eq!(
        rel.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rel.stderr)
    );
    assert!(text.contains("notes/auth-2026-05.md"), "{text}");
    // A name nobody bears is not found (67), not a guess; a name that is a secret, or longer than
    // a name may be, is never stored as one.
    assert_eq!(brain(&h, &["get", "dec-auth-9"]).status.code(), Some(67));
    assert_eq!(
        brain(&h, &["get", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"])
            .status
            .code(),
        Some(67)
    );
    assert_eq!(
        brain(&h, &["get", &"n".repeat(300)]).status.code(),
        Some(67)
    );
}

#[test]
fn supersedes_by_id_hides_the_old_decision_and_as_of_finds_it() {
    let (_dir, h) = home();
    let ask = |extra: &[&str]| {
        let mut a = vec!["ask", "--json", "--mode", "lex", "zebrafish"];
        a.extend_from_slice(extra);
        let out = brain(&h, &a);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
        v["hits"]
            .as_array()
            .map(|hs| {
                hs.iter()
                    .map(|x| x["path"].as_str().unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let now = ask(&[]);
    assert!(now.contains(&"auth-2026-05.md".to_string()), "{now:?}");
    assert!(
        !now.contains(&"auth-2026-01.md".to_string()),
        "superseded by name: {now:?}"
    );
    let then = ask(&["--as-of", "2026-02-01"]);
    assert!(then.contains(&"auth-2026-01.md".to_string()), "{then:?}");
    // doctor sees the supersedes resolve (it would fail on a target the index does not hold).
    let doc = brain(&h, &["doctor", "--json"]);
    let text = String::from_utf8_lossy(&doc.stdout);
    assert!(text.contains("\"memory\""), "{text}");
    assert!(!text.contains("which the index does not hold"), "{text}");
    assert!(!text.contains("supersedes naming no record"), "{text}");
}

/// The MCP `get` tool resolves a record's `id:` as `brain get` does.
#[test]
fn mcp_get_resolves_a_record_by_its_id() {
    use std::io::Write;
    let (_dir, h) = home();
    let mut child = command("brain", &h)
        .env("BRAIN_NOW", NOW)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn brain mcp");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for msg in [
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get", "arguments": {"file": "dec-auth-2"}}}),
        ] {
            writeln!(stdin, "{msg}").expect("send");
        }
    }
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    let reply = text.lines().nth(1).expect("the get reply");
    let v: serde_json::Value = serde_json::from_str(reply).expect("json");
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert!(v.to_string().contains("signed tokens"), "{v}");
}
