//! A model folder's tokenizer files, checked once: after `tokenizer.json` and `vocab.txt` were
//! found to be a pair [`crate::wordpiece`] rebuilds exactly (their sha256s in
//! [`crate::bert::BERT_UNCASED`]), a stamp beside them (`tokenizer.checked`) records the pair and
//! each file's size, modification time and inode. A later process whose files still match reads
//! `vocab.txt` alone: not the 700 KB JSON, and no hashing of 0.9 MB (issue 55: about 1 ms of CPU
//! on every fresh hybrid query with bge-small; a stamp that does not match is checked again).

use std::path::Path;

/// The stamp's file name, beside `tokenizer.json`.
pub const FILE: &str = "tokenizer.checked";

/// What the stamp holds of one file: size, modification time (ns since the epoch), inode.
fn identity(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    let ns = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
    Some(format!("{} {ns} {}", m.len(), m.ino()))
}

const HEAD: &str = "brain tokenizer check v1";

/// The stamp's text for `json` and `vocab` checked as the pair `pair`.
fn stamp(json: &Path, vocab: &Path, pair: (&str, &str)) -> Option<String> {
    Some(format!(
        "{HEAD}\n{} {}\n{}\n{}\n",
        pair.0,
        pair.1,
        identity(json)?,
        identity(vocab)?
    ))
}

/// Whether the stamp beside `json` vouches for it and `vocab` as they are now, as one of `known`.
pub fn vouched(json: &Path, vocab: &Path, known: &[(&str, &str)]) -> bool {
    let Ok(text) = std::fs::read_to_string(json.with_file_name(FILE)) else {
        return false;
    };
    // The pair the stamp names, if this build still knows it; then the files as they are now.
    let named = text
        .lines()
        .nth(1)
        .and_then(|l| l.split_once(' '))
        .and_then(|(t, v)| known.iter().find(|&&(a, b)| a == t && b == v));
    named.is_some_and(|&pair| stamp(json, vocab, pair).is_some_and(|s| s == text))
}

/// Record that `json` and `vocab` were checked as `pair` (best effort: a folder that cannot be
/// written, or a read-only process, keeps checking each time).
pub fn remember(json: &Path, vocab: &Path, pair: (&str, &str)) {
    if let Some(s) = stamp(json, vocab, pair) {
        let _ = brain_doc::atomic::write(&json.with_file_name(FILE), s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_vouches_for_the_files_as_they_were_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (json, vocab) = (
            dir.path().join("tokenizer.json"),
            dir.path().join("vocab.txt"),
        );
        std::fs::write(&json, "{}").expect("json");
        std::fs::write(&vocab, "[PAD]\n").expect("vocab");
        let known = [("aa", "bb")];
        assert!(!vouched(&json, &vocab, &known), "no stamp yet");
        remember(&json, &vocab, known[0]);
        assert!(vouched(&json, &vocab, &known));
        assert!(
            !vouched(&json, &vocab, &[("aa", "cc")]),
            "a pair no longer known"
        );
        // A file replaced (another inode, size or time): checked again.
        std::fs::write(dir.path().join("v2"), "[PAD]\n[UNK]\n").expect("v2");
        std::fs::rename(dir.path().join("v2"), &vocab).expect("swap");
        assert!(!vouched(&json, &vocab, &known));
        // A damaged stamp vouches for nothing.
        remember(&json, &vocab, known[0]);
        std::fs::write(dir.path().join(FILE), "garbage").expect("stamp");
        assert!(!vouched(&json, &vocab, &known));
    }
}
