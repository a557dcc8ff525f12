//! The NSFW filter over URLs, titles and search terms (seed 000 §2: "NSFW filtering on URLs, titles,
//! and searches").
//!
//! Two lists, both lower case:
//! * **words** match whole words of a title, a search or a URL (split on anything not a letter or a
//!   digit), so `sussex.ac.uk` or "Essex" never trip over `sex`;
//! * **host fragments** match anywhere inside a host name, for sites whose names glue the word to
//!   something else (`pornhub.com`, `xvideos.com`).
//!
//! The policy file extends both lists (`nsfw_words`, `nsfw_hosts`) or turns the filter off.

use std::collections::HashSet;

/// Built-in whole words. Source: our own short list (2026-11) of unambiguous adult-content terms in
/// English, plus a few common in page titles of adult sites; deliberately small to avoid false cuts.
pub const WORDS: &[&str] = &[
    "porn",
    "porno",
    "pornography",
    "xxx",
    "nsfw",
    "hentai",
    "nude",
    "nudes",
    "naked",
    "sex",
    "sexy",
    "erotic",
    "erotica",
    "fetish",
    "milf",
    "camgirl",
    "camgirls",
    "onlyfans",
    "blowjob",
    "hardcore",
    "xvideos",
    "xhamster",
    "pornhub",
    "redtube",
    "youporn",
    "chaturbate",
    "stripchat",
    "rule34",
];

/// Built-in host fragments. Source: the same list, restricted to strings that do not occur inside
/// ordinary words (no `sex`: Sussex, Essex).
pub const HOST_FRAGMENTS: &[&str] = &[
    "porn",
    "xxx",
    "hentai",
    "xvideos",
    "xhamster",
    "redtube",
    "chaturbate",
    "stripchat",
    "onlyfans",
    "rule34",
    "nsfw",
    "camgirl",
    "erotic",
];

/// A compiled NSFW matcher.
#[derive(Debug, Clone, Default)]
pub struct Nsfw {
    words: HashSet<String>,
    host_fragments: Vec<String>,
}

impl Nsfw {
    /// The built-in lists extended by `extra_words` and `extra_hosts`.
    pub fn new(extra_words: &[String], extra_hosts: &[String]) -> Self {
        let words = WORDS
            .iter()
            .map(|w| w.to_string())
            .chain(extra_words.iter().map(|w| w.to_lowercase()))
            .collect();
        let host_fragments = HOST_FRAGMENTS
            .iter()
            .map(|w| w.to_string())
            .chain(extra_hosts.iter().map(|w| w.to_lowercase()))
            .collect();
        Nsfw {
            words,
            host_fragments,
        }
    }

    /// A matcher that matches nothing (`nsfw: false` in the policy).
    pub fn off() -> Self {
        Nsfw::default()
    }

    /// True when any whole word of `text` is on the word list.
    pub fn text(&self, text: &str) -> bool {
        if self.words.is_empty() {
            return false;
        }
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .any(|w| {
                if w.bytes().any(|b| b.is_ascii_uppercase()) || !w.is_ascii() {
                    self.words.contains(&w.to_lowercase())
                } else {
                    self.words.contains(w)
                }
            })
    }

    /// True when `host` contains a host fragment or a whole listed word.
    pub fn host(&self, host: &str) -> bool {
        let h = host.to_ascii_lowercase();
        self.host_fragments.iter().any(|f| h.contains(f.as_str())) || self.text(&h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_match_but_substrings_do_not() {
        let n = Nsfw::new(&[], &[]);
        assert!(n.text("Free PORN videos"));
        assert!(n.text("https://example.com/sex/ed"));
        assert!(!n.text("University of Sussex — Essex campus"));
        assert!(!n.text("Sextant navigation"));
    }

    #[test]
    fn host_fragments_catch_glued_names_and_lists_extend() {
        let n = Nsfw::new(&["casino".into()], &["badsite".into()]);
        assert!(n.host("www.pornhub.com"));
        assert!(n.host("cdn.badsite.net"));
        assert!(n.text("online casino bonus"));
        assert!(!n.host("www.sussex.ac.uk"));
        assert!(!Nsfw::off().text("porn"));
    }
}
