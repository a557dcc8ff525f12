//! Which search engine a search results page belongs to.
//!
//! `keyword_search_terms.keyword_id` points into the *Web Data* database, not History, so the engine
//! is named from the results page's host instead.

use crate::urls::{display_domain, domain_matches};

/// Host suffix → engine name. Source: Chromium's prepopulated search engines
/// (components/search_engines/prepopulated_engines.json, 2026) plus the developer sites whose own
/// search shows up in keyword_search_terms.
const ENGINES: &[(&str, &str)] = &[
    ("duckduckgo.com", "DuckDuckGo"),
    ("search.brave.com", "Brave Search"),
    ("bing.com", "Bing"),
    ("search.yahoo.com", "Yahoo"),
    ("ecosia.org", "Ecosia"),
    ("kagi.com", "Kagi"),
    ("startpage.com", "Startpage"),
    ("perplexity.ai", "Perplexity"),
    ("yandex.ru", "Yandex"),
    ("yandex.com", "Yandex"),
    ("baidu.com", "Baidu"),
    ("youtube.com", "YouTube"),
    ("github.com", "GitHub"),
    ("stackoverflow.com", "Stack Overflow"),
    ("wikipedia.org", "Wikipedia"),
    ("docs.rs", "docs.rs"),
    ("crates.io", "crates.io"),
];

/// The engine of a results page on `host`: a known name, `Google` for any `google.<tld>`, else the
/// host itself.
pub fn engine(host: &str) -> String {
    if let Some((_, name)) = ENGINES
        .iter()
        .find(|(suffix, _)| domain_matches(host, suffix))
    {
        return (*name).to_string();
    }
    let h = display_domain(host);
    let labels: Vec<&str> = h.split('.').collect();
    if labels.iter().rev().skip(1).take(2).any(|l| *l == "google") {
        return "Google".into();
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_named_from_the_host() {
        assert_eq!(engine("www.google.com"), "Google");
        assert_eq!(engine("www.google.co.uk"), "Google");
        assert_eq!(engine("duckduckgo.com"), "DuckDuckGo");
        assert_eq!(engine("www.bing.com"), "Bing");
        assert_eq!(engine("search.example.org"), "search.example.org");
        assert_eq!(engine("www.notgoogle.com"), "notgoogle.com");
    }
}
