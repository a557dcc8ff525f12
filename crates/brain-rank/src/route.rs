//! Query routing (seed 000 §4, "the narrowest-useful query rule"): literal queries go lexical,
//! conceptual ones hybrid, chronological ones become a date filter or a recency walk.
//!
//! * **Literal** — anything a person copies rather than phrases: quoted strings, flags (`-f`,
//!   `--force`), paths and file names (`src/main.rs`), identifiers (`parse_config`, `parseConfig`,
//!   `std::fs`), error codes and error text (`E0432`, `ENOENT`, `error[`, `Traceback`), words mixing
//!   letters and digits (`sha256`), negations. BM25 finds these exactly; embeddings blur them.
//! * **Conceptual** — plain words: questions and paraphrases. Hybrid (lex + vec) when vectors exist.
//! * **Temporal** — "yesterday", "the morning of 3 March", "a few weeks ago", "the latest" …:
//!   [`crate::when::find`] reads them as a soft window, a part of the day, an ordering, and removes
//!   them; if nothing but filler words remains ("what was I doing yesterday"), the query is a
//!   recency walk: the documents nearest the window.

/// How a query is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Route by the query's shape: literal → lex, conceptual → hybrid (when vectors exist), temporal
    /// → a date window or a recency walk.
    #[default]
    Auto,
    /// BM25 only; needs no model.
    Lex,
    /// Vector similarity only (vec and hyde sub-queries).
    Vec,
    /// Lexical and vector lists fused with reciprocal rank fusion.
    Hybrid,
    /// Newest documents first, no text matching (what `auto` picks for "what did I do yesterday").
    Recent,
}

impl Mode {
    /// Lower-case name, as in signals and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Lex => "lex",
            Mode::Vec => "vec",
            Mode::Hybrid => "hybrid",
            Mode::Recent => "recent",
        }
    }
}

/// Error signatures that make a query literal even when its words are plain.
const ERROR_MARKERS: [&str; 9] = [
    "error[",
    "error:",
    "exception",
    "traceback",
    "panicked at",
    "errno",
    "fatal:",
    "segmentation fault",
    "stack trace",
];

/// Does `text` hold a literal token (see the module docs)?
pub fn is_literal(text: &str) -> bool {
    let lower = text.to_lowercase();
    if text.contains('"') || ERROR_MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    text.split_whitespace().any(literal_token)
}

fn literal_token(t: &str) -> bool {
    // Field filters are syntax, not content.
    if let Some((f, _)) = t.split_once(':')
        && crate::query::FILTER_FIELDS.contains(&f.to_ascii_lowercase().as_str())
    {
        return false;
    }
    let core = t
        .trim_end_matches(['?', '!', ',', ';', ')', '.'])
        .trim_start_matches('(');
    if core.is_empty() {
        return false;
    }
    if core.starts_with('-') {
        return true; // a flag or a negation
    }
    if core.contains([
        '/', '\\', '_', '=', '<', '>', '[', ']', '{', '}', '`', '$', '@', '#', '|',
    ]) || core.contains("::")
        || core.contains("->")
    {
        return true;
    }
    let chars: Vec<char> = core.chars().collect();
    // a.b with letters or digits on both sides: file names, dotted names, versions.
    if chars
        .windows(3)
        .any(|w| w[0].is_alphanumeric() && matches!(w[1], '.' | ':') && w[2].is_alphanumeric())
    {
        return true;
    }
    let letters = chars.iter().any(|c| c.is_alphabetic());
    let digits = chars.iter().any(|c| c.is_ascii_digit());
    if letters && digits {
        return true; // sha256, E0432, v2
    }
    // camelCase / PascalCase inside a word: a lower-case letter followed by an upper-case one.
    if chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase())
    {
        return true;
    }
    // SHOUTED identifiers: ENOENT, EACCES (three or more capitals, no lower case).
    chars.len() >= 3 && chars.iter().all(|c| c.is_uppercase() || *c == '_')
}

/// What a query says about how far to trust the vector list beside the lexical one (hybrid): an
/// embedding blurs names and specifics that BM25 matches exactly, and finds paraphrases BM25 misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorRoute {
    /// A literal token ([`is_literal`]): the lexical list decides.
    Literal,
    /// A name or a number: a capitalized word inside the sentence ("what did Alice say about the
    /// Kyoto trip"), a named project or agent, digits. The word that shows it.
    Named(String),
    /// Plain words: the vector list weighs as much as the lexical one.
    Paraphrase,
}

impl VectorRoute {
    /// The route's name in explain and signals.
    pub fn name(&self) -> &'static str {
        match self {
            VectorRoute::Literal => "literal",
            VectorRoute::Named(_) => "named",
            VectorRoute::Paraphrase => "paraphrase",
        }
    }
}

/// How `text` routes its vector list; `named` says whether the query names a known project or
/// agent ([`crate::entity::find`]).
pub fn vector_route(text: &str, named: Option<&str>) -> VectorRoute {
    if is_literal(text) {
        return VectorRoute::Literal;
    }
    if let Some(n) = named {
        return VectorRoute::Named(n.to_string());
    }
    let mut sentence_start = true;
    for w in text.split_whitespace() {
        let core = w.trim_matches(|c: char| !c.is_alphanumeric());
        let starts = sentence_start;
        if core.is_empty() {
            continue; // a bullet or a dash: the sentence has not begun
        }
        sentence_start = w.ends_with(['.', '?', '!', ':']);
        if core.chars().all(|c| c.is_ascii_digit()) {
            return VectorRoute::Named(core.to_string());
        }
        let mut chars = core.chars();
        let capital = chars.next().is_some_and(char::is_uppercase);
        let pronoun = matches!(core, "I" | "I'm" | "I've" | "I'd" | "I'll");
        if capital && !starts && !pronoun && chars.any(char::is_lowercase) {
            return VectorRoute::Named(core.to_string());
        }
    }
    VectorRoute::Paraphrase
}

/// Words that carry no topic in a chronological question ("what was I working on yesterday").
const FILLER: [&str; 39] = [
    "what",
    "was",
    "were",
    "i",
    "we",
    "did",
    "do",
    "doing",
    "done",
    "work",
    "worked",
    "working",
    "on",
    "show",
    "me",
    "my",
    "our",
    "the",
    "a",
    "an",
    "have",
    "has",
    "had",
    "happened",
    "happen",
    "recent",
    "recently",
    "activity",
    "sessions",
    "session",
    "anything",
    "everything",
    "stuff",
    "things",
    "list",
    "all",
    "from",
    "during",
    "?",
];

/// Question scaffolding: phrases that shape a question about one's own past work but name nothing
/// in it. Dropped from the lexical query before BM25 (auto mode) so they do not dilute scoring —
/// measured on real sessions, "what could have" let a heading "## What Could Have Gone Better"
/// outrank the passage naming the question's entity. Longest first; whole words, any case.
pub const SCAFFOLDING: [&str; 32] = [
    "which session was about",
    "what did we decide about",
    "what did we decide on",
    "what did i decide about",
    "what did we talk about",
    "what did we discuss about",
    "what did we discuss",
    "what did i ask about",
    "find the session where",
    "the conversation where",
    "the session where",
    "the session about",
    "which session",
    "what session",
    "do you remember",
    "can you find",
    "remind me",
    "tell me about",
    "what could have",
    "what should have",
    "where did i",
    "where did we",
    "when did i",
    "when did we",
    "how did i",
    "how did we",
    "what did i",
    "what did we",
    "what was the",
    "what were the",
    "how much",
    "how many",
];

/// Words that shape a question but name nothing in it, dropped wherever they stand (as
/// [`SCAFFOLDING`] is): interrogatives, auxiliary verbs, personal pronouns but the asker's "me",
/// "my", "us", "our", and a few fillers. Measured on LoCoMo (bench/locomo, auto mode, with the
/// "for the first time" rule of `when`): session Recall@5 0.8698 → 0.8916 without vectors, 0.8813
/// → 0.8985 with bge-small (docs/query.md). Sorted, for `binary_search`.
pub const QUESTION_WORDS: [&str; 44] = [
    "about", "any", "are", "can", "could", "did", "do", "does", "from", "had", "has", "have", "he",
    "her", "hers", "him", "his", "how", "i", "is", "its", "just", "she", "should", "so", "some",
    "their", "them", "they", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "whose", "why", "will", "would", "you", "your",
];

/// The words of a query as written, and each normalized for matching (lower case, the punctuation
/// around it trimmed): what routing reads phrases from.
pub fn words(text: &str) -> (Vec<&str>, Vec<String>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let norm = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    (words, norm)
}

/// The words of `text` that are question scaffolding ([`SCAFFOLDING`]), as byte ranges (see
/// [`crate::query::word_spans`]); none when nothing else would be left.
pub fn scaffolding(text: &str) -> Vec<std::ops::Range<usize>> {
    let (words, norm) = words(text);
    let mut keep = vec![true; words.len()];
    for phrase in SCAFFOLDING {
        let p: Vec<&str> = phrase.split(' ').collect();
        let mut i = 0;
        while i + p.len() <= norm.len() {
            if keep[i..i + p.len()].iter().all(|k| *k)
                && norm[i..i + p.len()].iter().zip(&p).all(|(a, b)| a == b)
            {
                keep[i..i + p.len()].iter_mut().for_each(|k| *k = false);
                i += p.len();
            } else {
                i += 1;
            }
        }
    }
    // A question word counts only as written in prose: `has` in backticks, or part of a name, is
    // what the asker copied.
    let prose = |w: &str| {
        w.chars()
            .all(|c| c.is_alphabetic() || matches!(c, '?' | '!' | ',' | '.' | ';' | '(' | ')'))
    };
    for (i, (w, n)) in words.iter().zip(&norm).enumerate() {
        if keep[i] && prose(w) && QUESTION_WORDS.binary_search(&n.as_str()).is_ok() {
            keep[i] = false;
        }
    }
    // Never the whole query: something the index reads must be left ("what is it" stays whole).
    let rest: Vec<&str> = words
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(w, _)| *w)
        .collect();
    if !brain_lex::tokenize::has_terms(&rest.join(" ")) {
        return Vec::new();
    }
    crate::query::word_spans(text)
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| !**k)
        .map(|(s, _)| s)
        .collect()
}

/// `text` without its question scaffolding ([`scaffolding`]), or `text` itself when nothing else
/// would be left.
pub fn strip_scaffolding(text: &str) -> String {
    let cut = scaffolding(text);
    crate::query::word_spans(text)
        .into_iter()
        .filter(|w| !cut.contains(w))
        .map(|w| &text[w])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Is `rest` empty of topic words, so that the query is a recency walk? `field:value` filters are
/// not topic words.
pub fn only_filler(rest: &str) -> bool {
    rest.split_whitespace()
        .filter(|t| {
            !t.split_once(':').is_some_and(|(f, v)| {
                !v.is_empty()
                    && crate::query::FILTER_FIELDS.contains(&f.to_ascii_lowercase().as_str())
            })
        })
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .all(|w| FILLER.contains(&w.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_scaffolding_is_dropped_but_never_the_whole_query() {
        assert_eq!(
            strip_scaffolding("What did we decide about caching?"),
            "caching?"
        );
        assert_eq!(
            strip_scaffolding("which session was about the Tokyo festival"),
            "the Tokyo festival"
        );
        assert_eq!(
            strip_scaffolding("how many dinner parties did I host"),
            "dinner parties host"
        );
        assert_eq!(
            strip_scaffolding("what could have gone better"),
            "gone better"
        );
        assert_eq!(strip_scaffolding("how much"), "how much");
        // Question words go wherever they stand; the asker's "my", and words written as code,
        // stay.
        assert_eq!(
            strip_scaffolding("When did Caroline go to the LGBTQ support group?"),
            "Caroline go to the LGBTQ support group?"
        );
        assert_eq!(
            strip_scaffolding("What did Jon say about his store?"),
            "Jon say store?"
        );
        assert_eq!(
            strip_scaffolding("why does my `has` check fail"),
            "my `has` check fail"
        );
        assert_eq!(strip_scaffolding("who was she?"), "who was she?");
        // Nor is it cut down to stop words, which the index does not read.
        assert_eq!(strip_scaffolding("what is it about"), "what is it about");
        assert_eq!(
            strip_scaffolding("what did we decide about the"),
            "what did we decide about the"
        );
        assert!(QUESTION_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(strip_scaffolding("somewhat did we"), "somewhat");
    }

    #[test]
    fn names_and_numbers_route_the_vector_list_as_named() {
        let named = |q: &str| match vector_route(q, None) {
            VectorRoute::Named(w) => Some(w),
            _ => None,
        };
        assert_eq!(
            named("what did Alice say about the trip").as_deref(),
            Some("Alice")
        );
        assert_eq!(
            named("the concert in Kyoto last year").as_deref(),
            Some("Kyoto")
        );
        assert_eq!(
            named("how many of the 12 tests failed").as_deref(),
            Some("12")
        );
        // A capital that starts a sentence, and the pronoun I, name nothing.
        assert_eq!(named("Why did I choose it? Because it is embedded"), None);
        assert_eq!(named("why we chose SQLite").as_deref(), Some("SQLite"));
        assert_eq!(
            named("What did I decide about caching? Honestly unsure."),
            None
        );
        assert_eq!(named("- Why did the login fail"), None);
        assert_eq!(
            vector_route("why the login kept failing", Some("brain")),
            VectorRoute::Named("brain".into())
        );
        assert_eq!(vector_route("fix parse_config", None), VectorRoute::Literal);
        assert_eq!(
            vector_route("how do I make the index faster", None),
            VectorRoute::Paraphrase
        );
        // Hostile text: no panic, a route.
        let long = "Ä ".repeat(10_000) + "ß?! ";
        assert_eq!(vector_route(&long, None), VectorRoute::Paraphrase);
        assert_eq!(vector_route("", None), VectorRoute::Paraphrase);
    }

    #[test]
    fn literal_tokens_route_lexical() {
        for q in [
            "src/main.rs panics",
            "qmd embed -f",
            "--no-verify hook",
            "parse_config fails",
            "parseConfig",
            "std::fs::read",
            "error[E0432] unresolved import",
            "ENOENT on open",
            "sha256 of the model",
            "\"lock contention\"",
            "Traceback in the worker",
            "bump to v0.27",
            "config.yaml",
        ] {
            assert!(is_literal(q), "{q}");
        }
    }

    #[test]
    fn plain_questions_are_conceptual() {
        for q in [
            "why did the login keep failing after the token refresh",
            "authorization failures",
            "How do I make the index faster?",
            "what did we decide about the cache",
            "collection:brain lock contention",
            "The end.",
        ] {
            assert!(!is_literal(q), "{q}");
        }
    }
}
