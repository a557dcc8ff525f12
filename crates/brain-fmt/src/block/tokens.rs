//! Token counts: OpenAI's `cl100k_base` byte-pair encoding (bpe-openai; the same counts as
//! tiktoken). Claude's tokenizer is not public; cl100k is the common table agents budget with, and
//! a budget counted with it is a budget, not a guess from characters.

/// The table's name, as the block and `--json` report it.
pub const TOKENIZER: &str = "cl100k_base";

/// Tokens of `text`.
pub fn count(text: &str) -> usize {
    bpe_openai::cl100k_base().count(text)
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_are_the_tables_not_characters() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        // Code and identifiers cost more than prose of the same length.
        let code = "fn main() { let x: Vec<u8> = vec![0x1f; 16]; }";
        assert!(count(code) > code.len() / 4, "{}", count(code));
    }
}
