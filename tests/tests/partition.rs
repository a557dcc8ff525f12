//! `partition`: golden cases, and the files it writes parse back into the records it prints.

use brain_doc::Doc;
use brain_tests::{command, golden, parse_lines, run, workspace};

#[test]
fn golden_cases() {
    golden("partition", "partition", |_| {});
}

#[test]
fn written_files_round_trip_to_the_printed_records_and_rerun_writes_nothing() {
    let home = tempfile::tempdir().expect("tempdir");
    let input =
        std::fs::read(workspace().join("golden/partition/default-rules/stdin")).expect("stdin");
    let out = run(&mut command("partition", home.path()), &input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(
        docs.len(),
        4,
        "two sessions, a browser day, a note; the bad line and the unknown collection skipped"
    );
    for d in &docs {
        let collection = d.collection.as_deref().expect("collection set");
        assert_eq!(d.id, format!("{collection}/{}", d.path));
        assert!(!d.path.contains(".."), "{}", d.path);
        let file = home.path().join("corpus").join(collection).join(&d.path);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(&Doc::from_markdown(&text).expect("markdown"), d);
    }
    let kinds: Vec<(&str, &str)> = docs
        .iter()
        .map(|d| {
            (
                d.source.kind.as_str(),
                d.collection.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("session", "brain"),
            ("session", "brain"),
            ("browser", "chrome-history"),
            ("note", "brain")
        ]
    );

    // Re-partitioning the output is a no-op: same records, no file rewritten.
    let again = run(&mut command("partition", home.path()), &out.stdout);
    assert_eq!(parse_lines::<Doc>(&again.stdout), docs);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("0 written, 4 unchanged, 0 skipped"),
        "{stderr}"
    );
}
