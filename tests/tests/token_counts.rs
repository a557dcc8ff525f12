//! The token counter of the memory block (brain-fmt's prepared cl100k_base table) counts every
//! text of the real corpora exactly as bpe-openai (tested there against tiktoken) does: every
//! file whole, and every line, as the briefing and `brain context` count their items.

use brain_fmt::block::tokens::count;
use brain_tests::{files, shared};

#[test]
fn every_corpus_text_counts_as_bpe_openai_counts() {
    let Some(corpora) = shared("corpora") else {
        return;
    };
    let cl100k = bpe_openai::cl100k_base();
    let (mut texts, mut tokens, mut lines) = (0usize, 0usize, 0usize);
    for path in files(&corpora) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // Binary files (SQLite History, images) as the lossy text a careless reader would pass.
        let text = String::from_utf8_lossy(&bytes);
        let n = count(&text);
        assert_eq!(n, cl100k.count(text.as_ref()), "{}", path.display());
        for line in text.lines() {
            assert_eq!(
                count(line),
                cl100k.count(line),
                "{}: {line:?}",
                path.display()
            );
            lines += 1;
        }
        texts += 1;
        tokens += n;
    }
    eprintln!("{texts} corpus files, {lines} lines, {tokens} tokens: every count equal");
    assert!(texts > 20, "{texts} files");
}
