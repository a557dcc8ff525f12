//! `vecindex`: golden chunker cases, embedder parity with an independent float64 reference, incremental
//! indexing, search, and the failure contract (model missing → 65, HTTP timeout → 66).
//!
//! Tests that need the model find it at `$BRAIN_TEST_MODEL_DIR` or `target/models/all-MiniLM-L6-v2`
//! (`scripts/fetch-model.sh` installs it there). Absent, they fail under `BRAIN_REQUIRE_MODEL=1` (CI) and
//! are skipped with a message otherwise.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use brain_doc::Hit;
use brain_tests::{command, golden, model_dir, parse_lines, run, workspace};
use serde_json::{Value, json};

fn doc(id: &str, title: &str, date: &str, body: &str) -> String {
    let (collection, path) = id.split_once('/').unwrap_or(("notes", id));
    json!({"schema": 1, "kind": "doc", "id": id, "collection": collection, "path": path, "title": title,
           "date": date, "source": {"type": "note", "file": "x"}, "meta": {}, "body": body})
    .to_string()
        + "\n"
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

#[test]
fn golden_vecindex() {
    golden("vecindex", "vecindex", |_| {});
}

#[test]
fn a_missing_model_fails_at_once_with_65_and_the_fix() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(
        &mut command("vecindex", home.path()),
        doc("notes/a.md", "A", "2026-01-01", "x").as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("brain model fetch"), "{err}");
    assert!(out.stdout.is_empty());
    let search = run(
        command("vecindex", home.path()).args(["--search", "anything"]),
        b"",
    );
    assert_eq!(search.status.code(), Some(65));
}

#[test]
fn embeddings_match_the_float64_reference() {
    let Some(model) = model_dir() else { return };
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("tests/fixtures/vec_reference.json"))
            .expect("fixture"),
    )
    .expect("fixture json");
    let cases = fixture["cases"].as_array().expect("cases");
    let stdin: String = cases
        .iter()
        .map(|c| json!({"text": c["text"]}).to_string() + "\n")
        .collect();
    let home = tempfile::tempdir().expect("tempdir");
    let spec = format!("local:{}", model.display());
    // The f32 kernel (every CPU) matches the reference to 1e-4; the int8 kernel (the default on
    // AVX-512 VNNI CPUs) to 1e-2 (measured p1 0.996 over 200 SciFact chunks, docs/vectors.md).
    for (kernel, floor) in [("f32", 0.9999), ("auto", 0.99)] {
        let out = run(
            command("vecindex", home.path())
                .env("BRAIN_EMBED_KERNEL", kernel)
                .args(["--embed", "--embedder", &spec]),
            stdin.as_bytes(),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        let used = if err.contains("kernel int8-vnni") {
            "int8-vnni"
        } else {
            assert!(err.contains("kernel f32;"), "{err}");
            "f32"
        };
        let floor = if used == "f32" { 0.9999 } else { floor };
        let got: Vec<Value> = parse_lines(&out.stdout);
        assert_eq!(got.len(), cases.len());
        let floats = |v: &Value| -> Vec<f64> {
            v.as_array()
                .expect("array")
                .iter()
                .filter_map(Value::as_f64)
                .collect()
        };
        for (g, c) in got.iter().zip(cases) {
            let (a, b) = (floats(&g["embedding"]), floats(&c["embedding"]));
            assert_eq!(a.len(), 384);
            let cos = cosine(&a, &b);
            eprintln!(
                "{used}: cosine {cos:.7} tokens {} {:?}",
                c["tokens"],
                c["text"].as_str().map(|s| &s[..s.len().min(30)])
            );
            assert!(cos >= floor, "{used}: cosine {cos} for {}", c["text"]);
        }
        if used == "f32" {
            // The published sentence-transformers values for the first text.
            let first = floats(&got[0]["embedding"]);
            for (x, want) in first
                .iter()
                .zip([0.067657, 0.063496, 0.048713, 0.079305, 0.037448])
            {
                assert!((x - want).abs() < 1e-4, "{x} vs {want}");
            }
        }
    }
    // An unknown kernel is a usage error naming the variable, before any input is read.
    let out = run(
        command("vecindex", home.path())
            .env("BRAIN_EMBED_KERNEL", "fp4")
            .args(["--embed", "--embedder", &spec]),
        stdin.as_bytes(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{err}");
    assert!(err.contains("BRAIN_EMBED_KERNEL=fp4"), "{err}");
}

#[test]
fn indexing_is_incremental_and_search_finds_paraphrases() {
    let Some(model) = model_dir() else { return };
    let home = tempfile::tempdir().expect("tempdir");
    let spec = format!("local:{}", model.display());
    let docs = [
        doc(
            "brain/jwt.md",
            "Debugging the API gateway",
            "2026-03-01",
            "The JWT token was rejected: signature verification failed, so every request got a 401.",
        ),
        doc(
            "brain/css.md",
            "Styling the landing page",
            "2026-03-02",
            "We moved the hero banner to a flexbox layout and fixed the font sizes.",
        ),
        doc(
            "notes/db.md",
            "Postgres vacuum",
            "2025-01-05",
            "Autovacuum was too slow on the events table; we tuned its cost limit.",
        ),
    ];
    let index = |stdin: String| {
        let out = run(
            command("vecindex", home.path()).args(["--embedder", &spec]),
            stdin.as_bytes(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse_lines::<Value>(&out.stdout).remove(0)
    };
    let first = index(docs.concat());
    assert_eq!(
        (first["embedded"].as_u64(), first["unchanged"].as_u64()),
        (Some(3), Some(0))
    );
    let again = index(docs.concat());
    assert_eq!(
        (again["embedded"].as_u64(), again["unchanged"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(
        again["generation"], first["generation"],
        "nothing changed, no new generation"
    );
    let changed = doc(
        "brain/css.md",
        "Styling the landing page",
        "2026-03-02",
        "Dark mode colours for the hero banner.",
    );
    let third = index(changed);
    assert_eq!(
        (third["embedded"].as_u64(), third["unchanged"].as_u64()),
        (Some(1), Some(0))
    );

    let search = |extra: &[&str]| -> Vec<Hit> {
        let mut cmd = command("vecindex", home.path());
        cmd.args([
            "--embedder",
            &spec,
            "--search",
            "authorization failures",
            "-k",
            "3",
        ])
        .args(extra);
        let out = run(&mut cmd, b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse_lines(&out.stdout)
    };
    let hits = search(&[]);
    assert_eq!(
        hits.len(),
        3,
        "the untouched docs survived the partial update"
    );
    assert_eq!(hits[0].uri, "brain://brain/jwt.md");
    assert_eq!(hits[0].signals["vec"].as_f64(), Some(hits[0].score));
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    let only_notes = search(&["--collection", "notes"]);
    assert_eq!(
        only_notes
            .iter()
            .map(|h| h.uri.as_str())
            .collect::<Vec<_>>(),
        ["brain://notes/db.md"]
    );
    let recent = search(&["--since", "2026-01-01"]);
    assert!(recent.iter().all(|h| h.collection == "brain"), "{recent:?}");
}

/// A one-shot HTTP server on 127.0.0.1 answering every request with `answer(body)`; `None` = accept and
/// never answer.
fn server(answer: Option<fn(&Value) -> Value>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let Some(answer) = answer else {
                held.push(s); // keep the connection open, say nothing
                continue;
            };
            let body = read_request(&mut s);
            let reply = answer(&serde_json::from_slice(&body).unwrap_or(Value::Null)).to_string();
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    format!("http://{addr}")
}

fn read_request(s: &mut std::net::TcpStream) -> Vec<u8> {
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let Ok(n) = s.read(&mut chunk) else {
            return Vec::new();
        };
        if n == 0 {
            return Vec::new();
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return buf[end + 4..end + 4 + len].to_vec();
            }
        }
    }
}

/// A fake embedder: the vector counts letters a–d of each input.
fn letters(text: &str) -> Vec<f64> {
    "abcd"
        .chars()
        .map(|c| text.chars().filter(|x| *x == c).count() as f64 + 0.1)
        .collect()
}

#[test]
fn an_ollama_server_is_used_and_a_silent_one_times_out_with_66() {
    let home = tempfile::tempdir().expect("tempdir");
    let ollama = server(Some(|req| {
        let inputs = req["input"].as_array().cloned().unwrap_or_default();
        json!({"embeddings": inputs.iter().map(|t| letters(t.as_str().unwrap_or(""))).collect::<Vec<_>>()})
    }));
    let spec = format!("ollama:{ollama}#fake");
    let stdin = doc("notes/a.md", "aaaa", "2026-01-01", "aaaa aaaa")
        + &doc("notes/d.md", "dddd", "2026-01-01", "dddd dddd");
    let out = run(
        command("vecindex", home.path()).args(["--embedder", &spec]),
        stdin.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: Vec<Hit> = parse_lines(
        &run(
            command("vecindex", home.path()).args(["--embedder", &spec, "--search", "ddd"]),
            b"",
        )
        .stdout,
    );
    assert_eq!(
        hits.first().map(|h| h.uri.as_str()),
        Some("brain://notes/d.md")
    );

    let silent = server(None);
    let spec = format!("ollama:{silent}#fake");
    let out = run(
        command("vecindex", home.path()).args(["--embedder", &spec, "--timeout", "1"]),
        stdin.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(66),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("timed out"));
}

/// The default model's tokenizer is built in code from vocab.txt (brain_vec::wordpiece: a fresh
/// process's model load without the 466 KB JSON): it must cut every text into exactly the ids the
/// JSON-described one does — every file of ../shared/corpora, SciFact, and text made to trip it
/// (special tokens written out, control and zero-width characters, accents and combining marks,
/// CJK, a 200-letter word, emoji, NUL, texts over the 512-token limit).
/// The same for every embedder of the catalog installed under target/models (`make model` installs
/// bge-small-en-v1.5 too): their tokenizer.json files differ from MiniLM's in padding and
/// truncation only, and `brain model fetch` writes their vocab.txt from it. (The reranker reads
/// query–passage pairs with its tokenizer.json, never the built one.)
#[test]
fn the_built_tokenizer_cuts_every_text_as_the_json_one_does() {
    let Some(model) = model_dir() else { return };
    let texts = tokenizer_texts();
    let mut checked = 0;
    for card in brain_vec::catalog::CARDS {
        let dir = model.with_file_name(card.name);
        if card.kind != brain_vec::catalog::Kind::Embedder || !dir.join("tokenizer.json").is_file()
        {
            continue;
        }
        let json = std::fs::read(dir.join("tokenizer.json")).expect("tokenizer.json");
        let vocab = brain_vec::bert::known_bert_uncased(&json, &dir.join("vocab.txt"))
            .unwrap_or_else(|| panic!("{}: the fast path is taken", card.name));
        let slow = brain_vec::bert::json_tokenizer(&json, 512).expect("json");
        let fast = brain_vec::wordpiece::BertUncased::new(vocab, 512).expect("built");
        let mut tokens = 0;
        for t in &texts {
            let a = slow.encode(t.as_str(), true).expect("slow");
            assert_eq!(
                a.get_ids(),
                fast.encode(t).as_slice(),
                "{}: {t:?}",
                card.name
            );
            tokens += a.get_ids().len();
        }
        eprintln!(
            "{}: {} texts, {tokens} tokens: identical",
            card.name,
            texts.len()
        );
        checked += 1;
    }
    assert!(checked >= 1);
}

/// Texts that trip tokenizers, random Unicode, and every line of the corpora and SciFact.
fn tokenizer_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "[CLS] already [SEP] inside [MASK] and [PAD][UNK]",
        "tab\there\u{0}nul \u{200b}zero\u{feff}width \u{7}bell \u{fffd}",
        "Café naïve résumé ÅNGSTRÖM Straße ǅ İstanbul",
        "e\u{301}\u{327} a\u{316}\u{301}\u{300} \u{1d165}\u{301} ﬁ ㎏ Ⅻ ½ Ω K",
        "中文字符 and 日本語 mixed with 한국어",
        "emoji 🎉🚀 and ✓ marks, «quotes» — dashes … ellipsis",
        &"a".repeat(200),
        "x",
        "",
        "   ",
        "snake_case camelCase kebab-case path/to/file.rs:42 0x1f 1e-9 v2.3.4",
        "[[CLS]] [SEP [MASK [MASK][MASK]] [pad] [UNK",
        &"word ".repeat(700),
        &format!("{}[SEP] tail", "ab ".repeat(509)),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Random text over the ranges where the Unicode tables matter: Latin-1, combining marks,
    // general punctuation and format characters, CJK, Hangul, private use, emoji, anything.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let ranges: [(u32, u32); 9] = [
        (0x20, 0x7f),
        (0x80, 0x250),
        (0x300, 0x370),
        (0x2000, 0x2070),
        (0x3000, 0x3100),
        (0x4e00, 0x4e40),
        (0xac00, 0xac40),
        (0xe000, 0xe010),
        (0x1f300, 0x1f340),
    ];
    for _ in 0..3000 {
        let text: String = (0..40)
            .filter_map(|_| {
                let r = next();
                let c = if r % 10 == 9 {
                    (r >> 8) as u32 % 0x11_0000
                } else {
                    let (lo, hi) = ranges[(r % 9) as usize];
                    lo + (r >> 8) as u32 % (hi - lo)
                };
                char::from_u32(c)
            })
            .collect();
        texts.push(text);
    }
    let shared = workspace().join("../shared");
    for dir in ["corpora", "ir/scifact"] {
        for e in walkdir::WalkDir::new(shared.join(dir))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
        {
            let Ok(bytes) = std::fs::read(e.path()) else {
                continue;
            };
            if bytes.len() > 4 << 20
                || bytes.contains(&0) && !e.path().to_string_lossy().ends_with(".txt")
            {
                continue; // binary databases; huge files are sampled by their first lines below
            }
            let text = String::from_utf8_lossy(&bytes);
            texts.extend(
                text.lines()
                    .take(400)
                    .map(|l| l.chars().take(4000).collect::<String>()),
            );
        }
    }
    assert!(texts.len() > 5_000, "{} texts", texts.len());
    texts
}

/// The quantized weights kept between processes (`.brain-int8.bin` beside the model): written by
/// the first run that quantizes (a batch), read by the next fresh process so its short inputs
/// (queries) take the int8 kernel; a cut-short copy or one made from other weights is ignored
/// (f32 path, exact to the reference). Only where the CPU has AVX-512 VNNI.
#[test]
fn the_saved_int8_weights_serve_fresh_queries_and_a_bad_copy_is_ignored() {
    let Some(src) = model_dir() else { return };
    let t = tempfile::tempdir().expect("tempdir");
    let model = t.path().join("model");
    std::fs::create_dir_all(&model).expect("mkdir");
    for f in [
        "config.json",
        "tokenizer.json",
        "vocab.txt",
        "model.safetensors",
    ] {
        std::fs::copy(src.join(f), model.join(f)).expect("copy model");
    }
    let spec = format!("local:{}", model.display());
    let home = t.path().join("home");
    let embed = |text: &str| -> (Vec<f64>, String) {
        let out = run(
            command("vecindex", &home).args(["--embed", "--embedder", &spec]),
            (json!({"text": text}).to_string() + "\n").as_bytes(),
        );
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{err}");
        let rec: Vec<Value> = parse_lines(&out.stdout);
        let v = rec[0]["embedding"]
            .as_array()
            .expect("embedding")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        (v, err)
    };
    let query = "authorization failures in the gateway";
    let (reference, err) = embed(query);
    if !err.contains("kernel int8-vnni") {
        eprintln!("no AVX-512 VNNI here: the int8 copy is not used");
        return;
    }
    let copy = model.join(brain_vec::bert::INT8_COPY);
    assert!(!copy.exists(), "a query alone quantizes nothing");
    // A batch (over 32 tokens) quantizes, and keeps the copy.
    embed(&"the quick brown fox jumps over the lazy dog ".repeat(12));
    let len = std::fs::metadata(&copy).expect("the copy").len();
    assert!(len > 10_000_000, "{len} bytes");
    // The next fresh process's query takes the int8 kernel: close to f32, not equal.
    let (q8, _) = embed(query);
    let cos = cosine(&q8, &reference);
    assert!((0.99..0.99999).contains(&cos), "cosine {cos}");
    // A copy cut short is ignored: f32 again.
    let bytes = std::fs::read(&copy).expect("read");
    std::fs::write(&copy, &bytes[..bytes.len() / 2]).expect("truncate");
    let (back, _) = embed(query);
    assert!(cosine(&back, &reference) > 0.999999);
    // A copy made from other weights (the model file replaced, as `brain model fetch` does) too.
    std::fs::write(&copy, &bytes).expect("restore");
    let (q8_again, _) = embed(query);
    assert!(
        cosine(&q8_again, &reference) < 0.99999,
        "the copy restored is used"
    );
    let w = model.join("model.safetensors");
    let tmp = model.join("model.safetensors.new");
    std::fs::copy(&w, &tmp).expect("copy");
    std::fs::rename(&tmp, &w).expect("replace");
    let (fresh, _) = embed(query);
    assert!(
        cosine(&fresh, &reference) > 0.999999,
        "a stale copy is not read"
    );
}

/// Only the pinned tokenizer pair takes the built path: a `vocab.txt` that is missing, cut short
/// or edited (a token swapped) sends the model back to its `tokenizer.json`, whose ids it then
/// gives — never ids from a vocabulary the model was not trained with.
#[test]
fn a_missing_cut_or_edited_vocab_falls_back_to_the_json_tokenizer() {
    let Some(model) = model_dir() else { return };
    let t = tempfile::tempdir().expect("tempdir");
    let json = t.path().join("tokenizer.json");
    std::fs::copy(model.join("tokenizer.json"), &json).expect("copy");
    let vocab = std::fs::read_to_string(model.join("vocab.txt")).expect("vocab");
    let text = "Tokenizers: unaffable résumé 中文 [SEP] done";
    let want = brain_vec::bert::json_tokenizer(&std::fs::read(&json).expect("json"), 512)
        .expect("json")
        .encode(text, true)
        .expect("encode")
        .get_ids()
        .to_vec();
    let cut = vocab[..vocab.len() / 2].to_string();
    let swapped = vocab.replacen("the\n", "teh\n", 1);
    assert_ne!(swapped, vocab);
    for (what, v) in [
        ("missing", None),
        ("cut short", Some(cut)),
        ("edited", Some(swapped)),
    ] {
        let _ = std::fs::remove_file(t.path().join("vocab.txt"));
        if let Some(v) = v {
            std::fs::write(t.path().join("vocab.txt"), v).expect("write");
        }
        let tok = brain_vec::bert::load_tokenizer(&json, 512).expect("load");
        assert!(
            matches!(tok, brain_vec::bert::Tokens::Json(_)),
            "{what}: the JSON tokenizer"
        );
        assert_eq!(tok.ids(text).expect("ids"), want, "{what}");
    }
    // The pinned pair itself takes the built path.
    std::fs::write(t.path().join("vocab.txt"), &vocab).expect("write");
    assert!(matches!(
        brain_vec::bert::load_tokenizer(&json, 512).expect("load"),
        brain_vec::bert::Tokens::Built(_)
    ));
}
