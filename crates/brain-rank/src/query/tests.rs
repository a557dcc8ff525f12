//! The query language's cases.

use super::*;

fn now() -> Zoned {
    "2026-04-10T12:00:00+00:00[UTC]".parse().expect("zoned")
}

fn parse(s: &str) -> Query {
    Query::parse(s, &now()).expect("parse")
}

#[test]
fn repeats_count_once_and_a_flood_of_words_is_cut_not_searched() {
    let q = parse("Lock lock LOCK \"a b\" \"A B\" -draft -DRAFT writer");
    assert_eq!(q.terms, ["Lock", "writer"]);
    assert_eq!((q.phrases.len(), q.exclude.len(), q.dropped), (1, 1, 0));
    let flood: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let q = parse(&flood.join(" "));
    assert_eq!((q.terms.len(), q.dropped), (MAX_TERMS, 10_000 - MAX_TERMS));
    assert_eq!(q.terms[0], "w0");
    let too_long = "x ".repeat(MAX_QUERY_BYTES);
    assert_eq!(
        Query::parse(&too_long, &now()),
        Err(QueryError::TooLong {
            bytes: 2 * MAX_QUERY_BYTES
        })
    );
}

/// `n.days()` panics past jiff's range: these were exit 101 in ask, rank, recent, stats and MCP.
#[test]
fn out_of_range_relative_times_are_bad_times_not_panics() {
    for spec in [
        "9999999d",
        "99999y",
        "999999999w",
        "99999999999999999999h",
        "9999999mo",
    ] {
        assert_eq!(
            parse_time(spec, &now(), Edge::Start),
            Err(QueryError::BadTime(spec.into())),
            "{spec}"
        );
        assert!(Query::parse(&format!("x since:{spec}"), &now()).is_err());
    }
    assert!(parse_time("30d", &now(), Edge::Start).is_ok());
}

#[test]
fn words_phrases_negations_and_filters_are_told_apart() {
    let q =
        parse(r#"tantivy "lock contention" -draft -"old plan" project:brain c:inbox agent:claude"#);
    assert_eq!(q.terms, vec!["tantivy"]);
    assert_eq!(q.phrases, vec!["lock contention"]);
    assert_eq!(q.exclude, vec!["draft", "old plan"]);
    assert_eq!(q.filters.projects, vec!["brain"]);
    assert_eq!(q.filters.collections, vec!["inbox"]);
    assert_eq!(q.filters.agents, vec!["claude"]);
}

#[test]
fn command_line_flags_and_colons_stay_literal() {
    let q = parse(r#"qmd embed -f --force std::fs http://x.y \-draft"#);
    assert_eq!(
        q.terms,
        vec![
            "qmd",
            "embed",
            "-f",
            "--force",
            "std::fs",
            "http://x.y",
            "-draft"
        ]
    );
    assert!(q.exclude.is_empty());
}

#[test]
fn relative_and_absolute_times() {
    let q = parse("x since:7d until:2026-04-09");
    assert_eq!(
        q.filters.since,
        Some("2026-04-03T12:00:00Z".parse().expect("ts"))
    );
    assert_eq!(
        q.filters.until,
        Some("2026-04-09T23:59:59.999999999Z".parse().expect("ts"))
    );
    let t = parse_time("24h", &now(), Edge::Start).expect("24h");
    assert_eq!(t, "2026-04-09T12:00:00Z".parse::<Timestamp>().expect("ts"));
    let t = parse_time("yesterday", &now(), Edge::Start).expect("yesterday");
    assert_eq!(t, "2026-04-09T00:00:00Z".parse::<Timestamp>().expect("ts"));
    let t = parse_time("2026-01-02T03:04:05Z", &now(), Edge::End).expect("rfc3339");
    assert_eq!(t, "2026-01-02T03:04:05Z".parse::<Timestamp>().expect("ts"));
    let t = parse_time("2026-01-02", &now(), Edge::End).expect("a day's end");
    assert_eq!(
        t,
        "2026-01-02T23:59:59.999999999Z"
            .parse::<Timestamp>()
            .expect("ts")
    );
    // The ends of the calendar are dates too (issue 37: 9999-12-31 was "unreadable").
    for edge in [Edge::Start, Edge::End] {
        assert_eq!(parse_time("9999-12-31", &now(), edge), Ok(Timestamp::MAX));
    }
    assert!(parse_time("0001-01-01", &now(), Edge::Start).is_ok());
    // Minutes are a unit people use (issue 38); months stay `mo`.
    let t = parse_time("10m", &now(), Edge::Start).expect("10m");
    assert_eq!(t, "2026-04-10T11:50:00Z".parse::<Timestamp>().expect("ts"));
    let t = parse_time("90min", &now(), Edge::Start).expect("90min");
    assert_eq!(t, "2026-04-10T10:30:00Z".parse::<Timestamp>().expect("ts"));
    assert!(
        parse_time("3mo", &now(), Edge::Start)
            .is_ok_and(|t| t < "2026-02-01T00:00:00Z".parse().expect("ts"))
    );
}

#[test]
fn bad_queries_are_rejected_with_a_reason() {
    let n = now();
    assert_eq!(Query::parse("   ", &n), Err(QueryError::Empty));
    assert_eq!(Query::parse("-draft", &n), Err(QueryError::OnlyNegations));
    assert!(matches!(
        Query::parse(r#"say "hello"#, &n),
        Err(QueryError::UnterminatedQuote(_))
    ));
    assert!(matches!(
        Query::parse("x since:lately", &n),
        Err(QueryError::BadTime(_))
    ));
    assert!(matches!(
        Query::parse("x project:", &n),
        Err(QueryError::EmptyFilter { .. })
    ));
}

/// The zero-hit relaxation is a cut of the tokens: a table of (query, relaxed text, terms).
#[test]
fn relaxing_searches_phrases_as_words_and_drops_exclusions_without_lexing_again() {
    let n = now();
    for (text, relaxed, terms) in [
        (
            r#""lock contention" writer"#,
            "lock contention writer",
            vec!["lock", "contention", "writer"],
        ),
        (r#"tantivy -draft -"old plan""#, "tantivy", vec!["tantivy"]),
        // A command-line flag is a word, not an exclusion: it stays (the hand lexer dropped it).
        (
            r#""exact words" --force -f"#,
            "exact words --force -f",
            vec!["exact", "words", "--force", "-f"],
        ),
        (
            r#""a phrase" project:brain"#,
            "a phrase project:brain",
            vec!["a", "phrase"],
        ),
    ] {
        let p = Plain::parse(text, &n).expect("parse");
        let (r, _) = p.relaxed(&n).expect("relaxed");
        assert_eq!(
            (r.text.as_str(), r.query.terms.clone()),
            (relaxed, terms.iter().map(|t| t.to_string()).collect()),
            "{text}"
        );
        assert!(r.query.phrases.is_empty() && r.query.exclude.is_empty());
        for l in &r.lexemes {
            assert!(
                !r.text[l.span.clone()].is_empty(),
                "{text}: spans index the new text"
            );
        }
    }
    assert!(
        Plain::parse("plain words", &n)
            .expect("p")
            .relaxed(&n)
            .is_none()
    );
    assert!(
        Plain::parse(r#""x" -y"#, &n)
            .expect("p")
            .relaxed(&n)
            .is_some()
    );
    assert!(
        Plain::parse("-only -excluded project:x", &n)
            .expect("p")
            .relaxed(&n)
            .is_none()
    );
}

/// Cutting words out keeps a token unless every word of it is cut: a time phrase inside a
/// quoted phrase leaves the phrase whole (re-lexing the rest made it an unterminated quote).
#[test]
fn a_cut_takes_whole_tokens_only() {
    let n = now();
    let cut = |text: &str, words: &[&str]| {
        let p = Plain::parse(text, &n).expect("parse");
        let spans: Vec<_> = word_spans(text)
            .into_iter()
            .filter(|s| words.contains(&&text[s.clone()]))
            .collect();
        p.without(&spans, &n).expect("cut")
    };
    let r = cut("tantivy lock last week", &["last", "week"]);
    assert_eq!((r.text.as_str(), r.query.terms.len()), ("tantivy lock", 2));
    let r = cut(r#""deploy last week" notes last"#, &["last", "week\""]);
    assert_eq!(r.text, r#""deploy last week" notes"#);
    assert_eq!(r.query.phrases, ["deploy last week"]);
    let r = cut("a -bad c since:7d", &["c"]);
    assert_eq!(
        (r.text.as_str(), r.query.exclude.len()),
        ("a -bad since:7d", 1)
    );
    assert!(r.query.filters.since.is_some());
}

#[test]
fn filter_values_may_be_quoted() {
    let q = parse(r#"x project:"my app""#);
    assert_eq!(q.filters.projects, vec!["my app"]);
}
