//! `doc2md` end to end: the golden cases, the conformance suite over every file of the real
//! corpora, hostile documents (damaged, encrypted, bombs, huge, deeply nested, secrets), and
//! documents held in a collection: converted by `lexindex --all`, searchable, served by `brain
//! get`, re-read when changed, gone when deleted.

use std::io::Write;
use std::path::{Path, PathBuf};

use brain_doc::Doc;
use brain_tests::{command, documents_home, golden, parse_lines, run, shared, workspace};

/// Run doc2md with `args`; (docs, stderr, exit code).
fn doc2md(home: &Path, args: &[&str]) -> (Vec<Doc>, String, i32) {
    let out = run(command("doc2md", home).args(args), b"");
    (
        parse_lines(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// What every record must be, whatever the input.
fn check(d: &Doc) {
    d.validate().expect("valid meta");
    assert!(d.id.starts_with("doc__"), "{}", d.id);
    assert_eq!(d.source.kind, "document");
    assert!(d.date.parse::<jiff::Timestamp>().is_ok(), "{}", d.date);
    let format = d.meta["format"].as_str().expect("format");
    assert!(
        ["pdf", "html", "docx", "text"].contains(&format),
        "{format}"
    );
    assert_eq!(Doc::from_markdown(&d.to_markdown()).expect("markdown"), *d);
}

/// A PDF of `pages` (each a list of lines) in Helvetica, with a correct cross-reference table.
fn pdf(pages: &[Vec<String>]) -> Vec<u8> {
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let font = 3 + 2 * n;
    let mut objs = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
    ];
    for (i, lines) in pages.iter().enumerate() {
        let ops: String = lines.iter().map(|l| format!("({l}) Tj T* ")).collect();
        let body = format!("BT /F1 12 Tf 72 720 Td 14 TL {ops}ET");
        objs.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R /Resources << /Font << /F1 {font} 0 R >> >> >>",
            4 + 2 * i
        ));
        objs.push(format!(
            "<< /Length {} >>\nstream\n{body}\nendstream",
            body.len()
        ));
    }
    objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A DOCX whose body is `xml` (WordprocessingML paragraphs).
fn docx(xml: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
    zip.start_file("word/document.xml", opts).expect("entry");
    zip.write_all(format!("<w:document {w}><w:body>{xml}</w:body></w:document>").as_bytes())
        .expect("write");
    zip.finish().expect("finish");
    out.into_inner()
}

fn para(text: &str) -> String {
    format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>")
}

#[test]
fn golden_cases() {
    golden("doc2md", "doc2md", |_| {});
}

#[test]
fn out_dir_writes_documents_that_read_back() {
    let home = tempfile::tempdir().expect("home");
    let out = home.path().join("out");
    let case = workspace().join("golden/doc2md");
    let inputs = [
        case.join("pdf-pages-and-info/report.pdf"),
        case.join("docx-headings-lists-tables/plan.docx"),
        case.join("html-saved-page/page.html"),
    ];
    let mut args = vec!["--out-dir".to_string(), out.display().to_string()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (stdout, err, code) = doc2md(home.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    let mut files: Vec<PathBuf> = brain_tests::files(&out);
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    for f in files {
        let d = Doc::from_markdown(&std::fs::read_to_string(&f).expect("read")).expect("doc");
        check(&d);
        assert_eq!(
            f.file_name().expect("name").to_string_lossy(),
            format!("{}.md", d.id)
        );
    }
}

/// Every file of the real corpora that doc2md reads by name (and the whole tree walked as
/// folders): no panic, every record whole, converted + failed = the documents found.
#[test]
fn conformance_over_the_real_corpora() {
    let Some(corpora) = shared("corpora") else {
        return brain_tests::skip("../shared/corpora is not beside the checkout");
    };
    let home = tempfile::tempdir().expect("home");
    let out = run(
        command("doc2md", home.path())
            .arg(&corpora)
            .arg("--timeout=20"),
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!([0, 64, 66].contains(&code), "exit {code}: {err}");
    assert!(!err.contains("internal error"), "{err}");
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    docs.iter().for_each(check);
    let found = walkdir::WalkDir::new(&corpora)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| brain_store::documents::format_of(&e.file_name().to_string_lossy()).is_some())
        .count();
    let summary = err
        .lines()
        .find_map(|l| l.strip_prefix("doc2md: "))
        .filter(|l| l.contains("converted"))
        .unwrap_or_default()
        .to_string();
    let failed = err
        .lines()
        .filter(|l| l.starts_with("doc2md: warning: "))
        .count();
    assert_eq!(docs.len() + failed, found, "{summary}\n{err}");
    assert!(found > 0, "the corpora hold no document doc2md reads");
}

/// Damaged copies of every golden input — cut at many lengths, bytes flipped, ranges zeroed —
/// converted in one run: exit 0, 64 or 66 only, no panic of doc2md itself, every record whole,
/// and every file accounted for.
#[test]
fn damaged_documents_are_reasons_never_panics() {
    let home = tempfile::tempdir().expect("home");
    let dir = home.path().join("damaged");
    std::fs::create_dir_all(&dir).expect("dir");
    let case = workspace().join("golden/doc2md");
    let inputs = [
        ("pdf", case.join("pdf-pages-and-info/report.pdf")),
        ("docx", case.join("docx-headings-lists-tables/plan.docx")),
        ("html", case.join("html-saved-page/page.html")),
        ("txt", case.join("text-latin1/notes.txt")),
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut made = 0;
    for (ext, path) in &inputs {
        let bytes = std::fs::read(path).expect("input");
        for i in 0..40 {
            let mut b = bytes.clone();
            match i % 4 {
                0 => b.truncate((next() as usize) % b.len()),
                1 => {
                    for _ in 0..1 + next() % 8 {
                        let at = (next() as usize) % b.len();
                        b[at] ^= (next() % 255 + 1) as u8;
                    }
                }
                2 => {
                    let at = (next() as usize) % b.len();
                    let end = (at + 1 + (next() as usize) % 64).min(b.len());
                    b[at..end].fill(0);
                }
                _ => {
                    let at = (next() as usize) % b.len();
                    let extra: Vec<u8> = (0..(next() % 200)).map(|_| next() as u8).collect();
                    b.splice(at..at, extra);
                }
            }
            std::fs::write(dir.join(format!("m{i:02}.{ext}")), &b).expect("write");
            made += 1;
        }
    }
    let d = dir.display().to_string();
    let (docs, err, code) = doc2md(home.path(), &[&d, "--timeout=10"]);
    assert!([0, 64, 66].contains(&code), "exit {code}: {err}");
    assert!(
        !err.contains("internal error") && !err.contains("doc2md' panicked"),
        "{err}"
    );
    docs.iter().for_each(check);
    let failed = err
        .lines()
        .filter(|l| l.starts_with("doc2md: warning: "))
        .count();
    assert_eq!(docs.len() + failed, made, "{err}");
}

/// Bombs and giants: a DOCX that unpacks past the limit, a 1 GiB file, 100,000 nested tags, a PDF
/// parse over its memory limit and one over its time limit — each a reason and the contract's
/// exit code, the other documents of the run still converted.
#[test]
fn bombs_and_giants_are_bounded() {
    let home = tempfile::tempdir().expect("home");
    let dir = home.path().join("docs");
    std::fs::create_dir_all(&dir).expect("dir");
    let bomb_xml = para(&"a".repeat(1 << 20)).repeat(40);
    let bomb = docx(&bomb_xml);
    assert!(bomb.len() < 1 << 20, "a bomb compresses: {}", bomb.len());
    std::fs::write(dir.join("bomb.docx"), &bomb).expect("bomb");
    let giant = std::fs::File::create(dir.join("giant.pdf")).expect("giant");
    giant.set_len(1 << 30).expect("sparse 1 GiB");
    let mut nested = "<div>".repeat(100_000);
    nested.push_str("the deep text");
    std::fs::write(dir.join("nested.html"), nested).expect("nested");
    std::fs::write(dir.join("fine.txt"), "still converted").expect("fine");
    let d = dir.display().to_string();
    let (docs, err, code) = doc2md(home.path(), &[&d, "--max-bytes=16777216"]);
    assert_eq!(code, 64, "{err}");
    let titles: Vec<&str> = docs.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["fine", "nested"], "{err}");
    assert!(docs[1].body.contains("the deep text"));
    assert!(
        err.contains("bomb.docx: too large: word/document.xml unpacks to more than"),
        "{err}"
    );
    assert!(
        err.contains("giant.pdf: too large: 1.0 GiB (at most 16.0 MiB)"),
        "{err}"
    );

    // A PDF whose parse needs more memory than allowed, and one that takes longer than allowed.
    let lines: Vec<String> = (0..200_000)
        .map(|i| format!("line {i} of a long page"))
        .collect();
    let long = dir.join("long.pdf");
    std::fs::write(&long, pdf(&[lines])).expect("long pdf");
    let l = long.display().to_string();
    let (docs, err, code) = doc2md(home.path(), &[&l, "--max-memory=8000000"]);
    assert!(docs.is_empty());
    assert_eq!(code, 64, "{err}");
    assert!(err.contains("long.pdf: "), "{err}");
    let (docs, err, code) = doc2md(home.path(), &[&l, "--timeout=1"]);
    if code == 0 {
        // A machine fast enough to read it in a second: the limit was not reached.
        assert_eq!(docs.len(), 1);
        brain_tests::skip(
            "doc2md read a 200,000-line PDF within 1 s: the time limit was not reached",
        );
    } else {
        assert_eq!(code, 66, "{err}");
        assert!(err.contains("did not finish in 1 s"), "{err}");
    }
}

/// Secrets in every field a document has — title, author, address, headings, text — are
/// redacted before anything is written; `--no-redact` keeps them.
#[test]
fn secrets_in_every_field_are_redacted() {
    let home = tempfile::tempdir().expect("home");
    let key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let page = format!(
        "<!-- saved from url=(0040)https://x.example/?token={key} -->\
<html><head><title>t {key}</title><meta name=\"author\" content=\"{key}\"></head>\
<body><h2>h {key}</h2><p>p {key}</p><table><tr><td>{key}</td></tr></table><pre>{key}</pre></body></html>"
    );
    let f = home.path().join("page.html");
    std::fs::write(&f, page).expect("page");
    let d = home.path().join("plan.docx");
    std::fs::write(
        &d,
        docx(&para(&format!("AWS AKIAIOSFODNN7EXAMPLE and {key}"))),
    )
    .expect("docx");
    let p = home.path().join("r.pdf");
    std::fs::write(&p, pdf(&[vec![format!("token {key}")]])).expect("pdf");
    let args: Vec<String> = [&f, &d, &p]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(command("doc2md", home.path()).args(&args), b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains(key) && !text.contains("AKIAIOSFODNN7EXAMPLE"),
        "{text}"
    );
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(docs.len(), 3);
    for d in &docs {
        assert!(d.meta["redactions"].as_u64() > Some(0), "{}", d.id);
    }
    let mut raw = vec!["--no-redact"];
    raw.extend(&args);
    let (docs, _, _) = doc2md(home.path(), &raw);
    assert!(docs[0].body.contains(key));
}

/// A collection that holds documents in place: `lexindex --all` converts and indexes them
/// (PDF pages, a saved page, a DOCX, text), `brain get` serves their markdown, a changed file is
/// converted again, a deleted one leaves the index and the cache, a damaged one is skipped with
/// its reason (and tried again only when it changes), and markdown notes are untouched.
#[test]
fn a_collection_of_documents_is_indexed_and_served() {
    let work = tempfile::tempdir().expect("work");
    let home = work.path().join("home");
    let papers = work.path().join("papers");
    documents_home(&home, &papers, "**/*.{md,pdf,html,docx,txt}");
    let case = workspace().join("golden/doc2md");
    std::fs::create_dir_all(papers.join("sub")).expect("sub");
    for (from, to) in [
        ("pdf-pages-and-info/report.pdf", "report.pdf"),
        ("docx-headings-lists-tables/plan.docx", "sub/plan.docx"),
        ("html-saved-page/page.html", "page.html"),
    ] {
        std::fs::copy(case.join(from), papers.join(to)).expect("copy");
    }
    std::fs::write(
        papers.join("note.md"),
        "# Note\n\nmarkdown about zeppelins\n",
    )
    .expect("md");
    std::fs::write(papers.join("todo.txt"), "buy oat milk").expect("txt");
    std::fs::write(papers.join("broken.pdf"), "%PDF-1.7\n1 0 obj <<").expect("broken");

    let lex = |home: &Path| run(command("lexindex", home).arg("--all"), b"");
    let out = lex(&home);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("documents: 4 converted, 1 failed"), "{err}");
    assert!(err.contains("broken.pdf: not a readable PDF"), "{err}");
    let ask = |q: &str| {
        let out = run(
            command("brain", &home).args(["ask", q, "--mode", "lex", "--json"]),
            b"",
        );
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        answer["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["path"].as_str().map(String::from))
            .collect::<Vec<_>>()
    };
    assert_eq!(ask("Latency fell"), ["report.pdf"]);
    // A citation points into the document: the page, the heading's id.
    let anchor = |q: &str| {
        let out = run(
            command("brain", &home).args(["ask", q, "--mode", "lex", "--json"]),
            b"",
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v["hits"][0]["anchor"].as_str().map(String::from)
    };
    assert_eq!(anchor("Latency fell").as_deref(), Some("page-2"));
    assert_eq!(anchor("stampedes jitter").as_deref(), Some("ttl"));
    assert_eq!(anchor("zeppelins"), None);
    let shown = run(
        command("brain", &home).args(["ask", "Latency fell", "--mode", "lex"]),
        b"",
    );
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains(" § page-2"),
        "{}",
        String::from_utf8_lossy(&shown.stdout)
    );
    assert_eq!(ask("tantivy server"), ["sub/plan.docx"]);
    assert_eq!(ask("stampedes jitter"), ["page.html"]);
    assert_eq!(ask("oat milk"), ["todo.txt"]);
    assert_eq!(ask("zeppelins"), ["note.md"]);

    let get = run(
        command("brain", &home).args(["get", "brain://notes/report.pdf"]),
        b"",
    );
    let text = String::from_utf8_lossy(&get.stdout);
    assert!(
        text.contains("## Page 2") && text.contains("Latency fell"),
        "{text}"
    );
    let get = run(
        command("brain", &home).args(["get", "brain://notes/broken.pdf"]),
        b"",
    );
    assert_eq!(get.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&get.stderr).contains("could not be converted"));

    // Unchanged: nothing converted again (the damaged file is not retried).
    let err = String::from_utf8_lossy(&lex(&home).stderr).into_owned();
    assert!(!err.contains("documents:"), "{err}");
    // Changed and deleted.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(papers.join("todo.txt"), "buy rye bread").expect("txt");
    std::fs::remove_file(papers.join("report.pdf")).expect("rm");
    let err = String::from_utf8_lossy(&lex(&home).stderr).into_owned();
    assert!(
        err.contains("documents: 1 converted, 3 unchanged, 1 removed (file gone)"),
        "{err}"
    );
    assert!(ask("oat milk").is_empty());
    assert_eq!(ask("rye bread"), ["todo.txt"]);
    assert!(ask("Latency fell").is_empty());
    let cache = home.join("cache/doc2md/notes");
    assert!(!cache.join("report.pdf.md").exists());
    assert!(cache.join("sub/plan.docx.md").exists());

    // Archived and restored: its status lives in the markdown kept of it, and a full run keeps it.
    let forget = |args: &[&str]| {
        let out = run(command("brain", &home).arg("forget").args(args), b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    forget(&["notes/page.html"]);
    assert!(ask("stampedes jitter").is_empty());
    lex(&home);
    assert!(
        ask("stampedes jitter").is_empty(),
        "archived stays archived"
    );
    forget(&["--restore", "notes/page.html"]);
    assert_eq!(ask("stampedes jitter"), ["page.html"]);

    // A purge reaches the markdown kept of a document, not only the index and the file.
    let purge = run(
        command("brain", &home).args(["forget", "--purge", "--yes", "notes/sub/plan.docx"]),
        b"",
    );
    assert_eq!(
        purge.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&purge.stderr)
    );
    assert!(!papers.join("sub/plan.docx").exists());
    assert!(!cache.join("sub/plan.docx.md").exists());
    assert!(ask("tantivy server").is_empty());
}

/// Two `doc2md --collections` at once (the watcher and the nightly run) both finish, and the kept
/// markdown is whole.
#[test]
fn concurrent_collection_runs_agree() {
    let work = tempfile::tempdir().expect("work");
    let home = work.path().join("home");
    let papers = work.path().join("papers");
    documents_home(&home, &papers, "**/*.txt");
    for i in 0..200 {
        std::fs::write(papers.join(format!("n{i}.txt")), format!("note number {i}")).expect("w");
    }
    let runs: Vec<_> = (0..2)
        .map(|_| {
            command("doc2md", &home)
                .arg("--collections")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for r in runs {
        let out = r.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let cache = home.join("cache/doc2md/notes");
    for i in 0..200 {
        let text = std::fs::read_to_string(cache.join(format!("n{i}.txt.md"))).expect("kept");
        let d = Doc::from_markdown(&text).expect("whole");
        assert_eq!(d.body, format!("note number {i}\n"));
    }
}

/// A `doc2md --out-dir` killed at any moment leaves whole documents or none (each written aside
/// and renamed), and a link loop in a folder it walks does not hold it (issue 57's hostile input).
#[test]
fn a_kill_mid_write_leaves_whole_documents_and_a_link_loop_ends() {
    let home = tempfile::tempdir().expect("home");
    let src = home.path().join("src");
    std::fs::create_dir_all(src.join("deep")).expect("mkdir");
    let page = std::fs::read(workspace().join("golden/doc2md/html-saved-page/page.html"))
        .expect("a saved page");
    for i in 0..300 {
        std::fs::write(src.join(format!("page-{i:03}.html")), &page).expect("copy");
    }
    // A folder linking back to its parent: walked once, never around.
    std::os::unix::fs::symlink(&src, src.join("deep/loop")).expect("link");
    let out = home.path().join("out");
    for delay_ms in [5u64, 20, 40, 80, 160] {
        let mut child = command("doc2md", home.path())
            .arg("--out-dir")
            .arg(&out)
            .arg(&src)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("doc2md");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for f in brain_tests::files(&out) {
            let name = f.file_name().expect("name").to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // a write's own temporary file, never a document
            }
            let text = std::fs::read_to_string(&f).expect("read");
            let d = Doc::from_markdown(&text)
                .unwrap_or_else(|e| panic!("{name} is torn after a kill at {delay_ms} ms: {e}"));
            check(&d);
        }
    }
    // Run whole: every page once, the loop not followed.
    let (_, err, code) = doc2md(
        home.path(),
        &[
            "--out-dir",
            out.to_str().expect("utf8"),
            src.to_str().expect("utf8"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let written = brain_tests::files(&out)
        .into_iter()
        .filter(|f| {
            !f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .count();
    assert_eq!(written, 300, "{err}");
}
