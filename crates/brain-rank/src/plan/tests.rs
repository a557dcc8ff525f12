//! The planner's cases: each stage, and whole plans.

use super::*;

fn now() -> Zoned {
    "2026-04-10T12:00:00+00:00[UTC]".parse().expect("now")
}

fn plan_of(text: &str, mode: Mode, vectors: bool) -> Plan {
    let now = now();
    let req = SearchRequest::builder(&now, &Strategy::default())
        .text(text)
        .expect("request")
        .mode(mode)
        .build();
    plan(
        &req,
        &now,
        &|| vectors,
        &Known::default,
        &Strategy::default(),
    )
    .expect("plan")
}

fn kinds(p: &Plan) -> Vec<&'static str> {
    p.lists.iter().map(|l| l.kind.name()).collect()
}

#[test]
fn a_literal_query_is_lexical_even_with_vectors() {
    let p = plan_of("\"error[E0432]\" parse_config", Mode::Auto, true);
    assert_eq!((p.mode, kinds(&p)), (Mode::Lex, vec!["lex"]));
    assert_eq!(p.lists[0].weight, 2.0);
}

#[test]
fn a_conceptual_query_is_hybrid_with_vectors_and_lexical_without() {
    let p = plan_of("why does the build keep failing", Mode::Auto, true);
    assert_eq!((p.mode, kinds(&p)), (Mode::Hybrid, vec!["lex", "vec"]));
    assert!(p.lists.iter().all(|l| l.weight == 2.0));
    let p = plan_of("why does the build keep failing", Mode::Auto, false);
    assert_eq!((p.mode, kinds(&p)), (Mode::Lex, vec!["lex"]));
}

#[test]
fn the_vector_list_weighs_by_what_the_query_names() {
    let vec_list = |p: &Plan| p.lists.iter().find(|l| l.kind == SearchKind::Vec).cloned();
    // Plain paraphrase: both halves weigh alike.
    let p = plan_of("why does the build keep failing", Mode::Hybrid, true);
    let v = vec_list(&p).expect("vec");
    assert_eq!((v.weight, v.share), (2.0, 1.0));
    assert!(p.describe()[1].ends_with("(weight 2 = 2 × 1 paraphrase)"));
    // A name inside the sentence: the embedding keeps half.
    let p = plan_of("what did Alice say about the build", Mode::Auto, true);
    let v = vec_list(&p).expect("vec");
    assert_eq!((p.mode, v.weight, v.share), (Mode::Hybrid, 1.0, 0.5));
    assert!(
        p.describe()[1].ends_with("(weight 1 = 2 × 0.5 named: Alice)"),
        "{:?}",
        p.describe()
    );
    // Asked for hybrid on a literal query: half as well; the lexical list is untouched.
    let p = plan_of("parse_config fails", Mode::Hybrid, true);
    assert_eq!(vec_list(&p).map(|v| v.share), Some(0.5));
    assert_eq!(p.lists[0].weight, 2.0);
    // A query document's lines keep their weights.
    let now = now();
    let req = SearchRequest::builder(&now, &Strategy::default())
        .text("lex: Alice build\nvec: what did Alice say")
        .expect("doc")
        .mode(Mode::Hybrid)
        .build();
    let p = plan(&req, &now, &|| true, &Known::default, &Strategy::default()).expect("plan");
    assert!(p.lists.iter().all(|l| l.share == 1.0 && l.route.is_none()));
}

#[test]
fn a_temporal_phrase_becomes_a_soft_window_and_only_filler_walks_by_recency() {
    let p = plan_of("tantivy lock last week", Mode::Auto, false);
    // Soft: no hard filter, a second lexical list searches the widened window.
    assert!(p.filters.since.is_none() && p.filters.until.is_none());
    assert_eq!(p.lists[0].text, "tantivy lock");
    assert_eq!(p.lists[0].query.as_ref().map(|q| q.terms.len()), Some(2));
    assert_eq!(kinds(&p), ["lex", "lex"]);
    let window = p.lists[1].query.as_ref().expect("window query");
    assert!(window.filters.since.is_some() && window.filters.until.is_some());
    assert!(p.when.is_some());
    assert!(p.warnings[0].starts_with("read `last week` as time"));
    let p = plan_of("what did I do yesterday", Mode::Auto, true);
    assert_eq!(
        (p.mode, p.describe()),
        (Mode::Recent, vec!["recent: newest first".to_string()])
    );
    // An ordering alone adds no window list.
    let p = plan_of("the latest release notes", Mode::Auto, false);
    assert_eq!(kinds(&p), ["lex"]);
    assert_eq!(p.lists[0].text, "release notes");
}

#[test]
fn question_scaffolding_leaves_the_lexical_query_not_the_vector_one() {
    let p = plan_of("what did we decide about the cache layer", Mode::Auto, true);
    assert_eq!(p.lists[0].text, "the cache layer");
    assert_eq!(p.lists[1].text, "what did we decide about the cache layer");
    // The lexical query remembers how long the question was: "which database do we use" is no
    // query of a few words, though "database use" is left of it.
    let p = plan_of("which database do we use", Mode::Auto, false);
    let q = p.lists[0].query.as_ref().expect("lexical query");
    assert_eq!((q.terms.len(), q.asked), (2, 5));
    let p = plan_of("what did we decide about the cache layer", Mode::Lex, true);
    assert_eq!(p.lists[0].text, "what did we decide about the cache layer");
}

#[test]
fn a_forced_mode_keeps_its_words_and_drops_what_it_cannot_run() {
    let p = plan_of("tantivy lock last week", Mode::Lex, true);
    assert!(p.filters.since.is_none());
    assert_eq!(p.lists[0].text, "tantivy lock last week");
    let p = plan_of("lex: a\nvec: b", Mode::Lex, true);
    assert_eq!(kinds(&p), ["lex"]);
    assert_eq!(p.warnings, ["1 sub-query skipped in lex mode"]);
}

#[test]
fn a_document_without_vectors_skips_its_vector_lines_in_auto() {
    let p = plan_of("lex: a\nvec: b\nhyde: c", Mode::Auto, false);
    assert_eq!(kinds(&p), ["lex"]);
    assert!(p.warnings[0].starts_with("vector sub-queries skipped"));
    let p = plan_of("vec: only vectors", Mode::Auto, false);
    assert_eq!(p.mode, Mode::Vec);
    let p = plan_of("lex: a\nvec: b", Mode::Auto, true);
    assert_eq!(
        p.lists.iter().map(|l| l.weight).collect::<Vec<_>>(),
        [2.0, 1.0]
    );
}

/// Stage 2 alone, as a table: (query, mode asked, vectors) → (mode, lex line, vec line).
#[test]
fn route_plain_table() {
    let now = now();
    let rows: [(&str, Mode, bool, Mode, &str, &str); 8] = [
        (
            "parse_config fails",
            Mode::Auto,
            true,
            Mode::Lex,
            "parse_config fails",
            "parse_config fails",
        ),
        (
            "why does the build fail",
            Mode::Auto,
            true,
            Mode::Hybrid,
            "the build fail",
            "why does the build fail",
        ),
        (
            "why does the build fail",
            Mode::Auto,
            false,
            Mode::Lex,
            "the build fail",
            "why does the build fail",
        ),
        (
            "what did we decide about caching last week",
            Mode::Auto,
            true,
            Mode::Hybrid,
            "caching",
            "what did we decide about caching",
        ),
        (
            "what did I do yesterday",
            Mode::Auto,
            true,
            Mode::Recent,
            "",
            "",
        ),
        ("project:billing", Mode::Auto, true, Mode::Recent, "", ""),
        (
            "tantivy last week",
            Mode::Lex,
            true,
            Mode::Lex,
            "tantivy last week",
            "tantivy last week",
        ),
        (
            r#""deploy last week" notes"#,
            Mode::Auto,
            false,
            Mode::Lex,
            r#""deploy last week" notes"#,
            "notes deploy last week",
        ),
    ];
    for (text, asked, vectors, mode, lex, vec) in rows {
        let req = SearchRequest::builder(&now, &Strategy::default())
            .text(text)
            .expect("request")
            .mode(asked)
            .build();
        let plain = req.plain.as_ref().expect("plain");
        let r = route_plain(plain, &req, &now, &|| vectors, &mut Vec::new()).expect("route");
        let line = |k: SearchKind| {
            r.lines
                .iter()
                .find(|l| l.kind == k)
                .map_or("", |l| l.text.as_str())
                .to_string()
        };
        assert_eq!(
            (r.mode, line(SearchKind::Lex), line(SearchKind::Vec)),
            (mode, lex.to_string(), vec.to_string()),
            "{text}"
        );
    }
    // Filters alone in a mode that ranks text: nothing to rank.
    let req = SearchRequest::builder(&now, &Strategy::default())
        .text("project:billing")
        .expect("request")
        .mode(Mode::Lex)
        .build();
    let plain = req.plain.as_ref().expect("plain");
    assert!(route_plain(plain, &req, &now, &|| true, &mut Vec::new()).is_err());
}

#[test]
fn the_vector_check_is_not_made_for_a_literal_query() {
    let now = now();
    let req = SearchRequest::builder(&now, &Strategy::default())
        .text("parse_config.rs")
        .expect("request")
        .build();
    let asked = std::cell::Cell::new(false);
    let p = plan(
        &req,
        &now,
        &|| {
            asked.set(true);
            true
        },
        &Known::default,
        &Strategy::default(),
    )
    .expect("plan");
    assert_eq!(p.mode, Mode::Lex);
    assert!(!asked.get());
}
