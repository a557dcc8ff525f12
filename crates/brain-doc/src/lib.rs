//! The wire formats of `brain` (schema 1) and the I/O every stage shares.
//!
//! Every stage of the pipeline speaks one of three homogeneous NDJSON record kinds:
//!
//! * [`Doc`] — a normalized document (a session, a browser day, a note, a distilled artifact). Its
//!   markdown file form is YAML frontmatter plus body and round-trips losslessly ([`Doc::to_markdown`],
//!   [`Doc::from_markdown`]).
//! * [`Hit`] — one ranked passage, as `rank` emits and `fmt` renders.
//! * [`ErrorRecord`] — a machine-readable failure, with an [`ErrorCode`] that maps one-to-one onto the
//!   process exit codes of README.md ([`ErrorCode::exit_code`]).
//!
//! [`ndjson`] reads record streams line by line, reporting a malformed line with its number and going on;
//! [`atomic`] writes files with temp-file-plus-rename so a reader never sees half a file.
//!
//! `docs/FORMATS.md` documents every field with examples; the tests in this crate and in `tests/` parse
//! every stage's output back into these types.

pub mod atomic;
pub mod blocks;
pub mod bytes;
pub mod command;
mod doc;
pub mod env;
mod error;
pub mod fence;
pub mod file;
mod hash;
mod hit;
pub mod links;
pub mod loopback;
pub mod markdown;
pub mod memory;
pub mod ndjson;
pub mod passage;
pub mod timings;
pub mod title;
pub mod yaml;

pub use doc::{Doc, DocError, Source, SourcePart};
pub use error::{Classified, ErrorCode, ErrorRecord, storage_fault};
pub use hash::{docid, sha256_hex, tie_key};
pub use hit::{Hit, HitMemory, SEMANTIC, TimeWindow, WEAK, strength_label, strength_text};

/// The wire-format version every record carries in its `schema` field.
pub const SCHEMA: u32 = 1;

#[cfg(test)]
mod formats_doc {
    //! `docs/FORMATS.md` is checked against the types: every serialized field must be documented.

    use super::*;

    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        if let serde_json::Value::Object(m) = v {
            for (k, v) in m {
                out.push(k.clone());
                if k != "meta" && k != "signals" {
                    keys(v, out);
                }
            }
        }
        if let serde_json::Value::Array(a) = v {
            for v in a {
                keys(v, out);
            }
        }
    }

    #[test]
    fn every_field_is_documented() {
        let formats = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/FORMATS.md"
        ))
        .expect("docs/FORMATS.md exists");
        let mut doc = Doc::new(
            "x",
            "t",
            "d",
            Source {
                kind: "session".into(),
                agent: Some("claude".into()),
                file: "f".into(),
                lines: Some([1, 2]),
                sha256: Some("h".into()),
                parts: vec![SourcePart {
                    file: "g".into(),
                    sha256: Some("h".into()),
                }],
            },
        );
        doc.collection = Some("c".into());
        let hit = Hit {
            schema: SCHEMA,
            kind: "hit".into(),
            rank: 1,
            score: 1.0,
            strength: None,
            uri: "u".into(),
            docid: "#".into(),
            collection: "c".into(),
            path: "p".into(),
            file: Some("f".into()),
            title: "t".into(),
            date: "d".into(),
            age_days: 0,
            started: None,
            ended: None,
            session_id: None,
            project: None,
            agent: None,
            line: 1,
            snippet: "s".into(),
            signals: serde_json::Map::new(),
            untrusted: false,
            memory: Some(HitMemory {
                kind: Some("fact".into()),
                importance: 3,
                confidence: 1.0,
                pinned: true,
                key: Some("k".into()),
                occurred_at: Some("d".into()),
                expires_at: Some("d".into()),
                state: "current".into(),
                superseded_by: Some("i".into()),
            }),
            anchor: Some("page-3".into()),
            link: Some("http://127.0.0.1:8182/doc/c/p.md?t=0".into()),
        };
        let err = ErrorRecord::new(ErrorCode::Internal, "m", "f");
        let mut all = Vec::new();
        for v in [
            serde_json::to_value(&doc).expect("doc"),
            serde_json::to_value(&hit).expect("hit"),
            serde_json::to_value(&err).expect("err"),
        ] {
            keys(&v, &mut all);
        }
        let missing: Vec<_> = all
            .iter()
            .filter(|k| !formats.contains(&format!("`{k}`")))
            .collect();
        assert!(
            missing.is_empty(),
            "fields missing from docs/FORMATS.md: {missing:?}"
        );
        for code in ErrorCode::ALL {
            assert!(
                formats.contains(&format!("| `{code}` | {} |", code.exit_code())),
                "{code} row"
            );
        }
    }
}
