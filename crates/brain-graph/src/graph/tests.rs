//! The graph's cases: resolution, names, walks.

use super::*;
use brain_store::EntityDef;

fn doc(id: &str) -> (String, DocEntry) {
    let (c, p) = id.split_once('/').unwrap_or(("x", id));
    (
        id.to_string(),
        DocEntry {
            id: id.into(),
            collection: c.into(),
            path: p.into(),
            file: format!("/{id}"),
            mtime_ns: 0,
            size: 0,
            sha256: String::new(),
            title: p.into(),
            date: "2026-03-01T00:00:00Z".into(),
            passages: 1,
            lex_indexed_at: 0,
        },
    )
}

fn link(from: &str, kind: &str, target: &str) -> LinkRow {
    LinkRow {
        doc_id: from.into(),
        kind: kind.into(),
        target: target.into(),
        line: 1,
    }
}

/// A record's `id:` is a name a relation and `brain related` may use; a name two records
/// claim resolves to neither (ambiguous), and a name link is never an edge.
#[test]
fn records_resolve_by_their_own_name_unless_two_claim_it() {
    let docs: BTreeMap<String, DocEntry> = ["n/a.md", "n/b.md", "n/c.md", "n/d.md"]
        .into_iter()
        .map(doc)
        .collect();
    let links = vec![
        link("n/a.md", brain_store::NAME, "dec-1"),
        link("n/b.md", "refines", "DEC-1"),
        link("n/c.md", brain_store::NAME, "twice"),
        link("n/d.md", brain_store::NAME, "twice"),
    ];
    let g = Graph::build(Entities::default(), docs, links);
    assert_eq!(g.edges.len(), 1);
    assert_eq!(g.edges[0].to, Node::Doc("n/a.md".into()));
    assert_eq!(g.start("dec-1"), Ok(Node::Doc("n/a.md".into())));
    assert!(matches!(g.start("twice"), Err(Target::Ambiguous(v)) if v.len() == 2));
}

fn graph() -> Graph {
    let docs: BTreeMap<String, DocEntry> = [
        "notes/a.md",
        "notes/sub/b.md",
        "notes/c.md",
        "notes/decisions/db-choice.md",
        "life/areas/people/sarah/summary.md",
    ]
    .into_iter()
    .map(doc)
    .collect();
    let defs = vec![EntityDef {
        doc_id: "life/areas/people/sarah/summary.md".into(),
        entity: "life/areas/people/sarah".into(),
        kind: "person".into(),
        name: "Sarah Chen".into(),
        aliases: vec!["@schen".into()],
        archived: false,
    }];
    let links = vec![
        link("notes/a.md", "supports", "sub/b.md"),
        link("notes/sub/b.md", "contradicts", "../c"),
        link("notes/c.md", "contradicts", "notes/sub/b.md"),
        link("notes/c.md", "related", "db-choice"),
        link("notes/a.md", "entity", "Sarah Chen"),
        link("notes/c.md", "handle", "@schen"),
        link("notes/a.md", "related", "nowhere"),
        link(
            "life/areas/people/sarah/summary.md",
            "related",
            "notes/decisions/db-choice.md",
        ),
    ];
    Graph::build(Entities::build(defs, &links), docs, links)
}

#[test]
fn targets_resolve_by_id_path_relative_path_name_and_file_name() {
    let g = graph();
    let e: Vec<(String, String, String)> = g
        .edges
        .iter()
        .map(|e| (g.label(&e.from), e.kind.clone(), g.label(&e.to)))
        .collect();
    assert!(e.contains(&(
        "notes/a.md".into(),
        "supports".into(),
        "notes/sub/b.md".into()
    )));
    assert!(e.contains(&(
        "notes/sub/b.md".into(),
        "contradicts".into(),
        "notes/c.md".into()
    )));
    assert!(e.contains(&(
        "notes/c.md".into(),
        "related".into(),
        "notes/decisions/db-choice.md".into()
    )));
    assert!(e.contains(&(
        "notes/a.md".into(),
        "mentions".into(),
        "Sarah Chen (person)".into()
    )));
    assert!(e.contains(&(
        "Sarah Chen (person)".into(),
        "related".into(),
        "notes/decisions/db-choice.md".into()
    )));
    assert_eq!(g.dangling.len(), 1);
    assert_eq!(g.contradictions().len(), 1);
}

#[test]
fn related_walks_both_ways_by_depth_and_kind() {
    let g = graph();
    let start = g.start("notes/a.md").expect("start");
    let d1: Vec<(usize, String, String)> = g
        .related(&start, &[], 1)
        .iter()
        .map(|r| (r.depth, r.reads(), g.label(&r.node)))
        .collect();
    assert_eq!(
        d1,
        [
            (1, "mentions".into(), "Sarah Chen (person)".into()),
            (1, "supports".into(), "notes/sub/b.md".into())
        ]
    );
    let d2 = g.related(&start, &[], 2);
    assert_eq!(d2.len(), 4, "{d2:?}");
    let c = g.start("notes/c.md").expect("c");
    let contra: Vec<String> = g
        .related(&c, &["contradicts".into()], 3)
        .iter()
        .map(|r| format!("{} {}", r.reads(), g.label(&r.node)))
        .collect();
    assert_eq!(contra, ["contradicted by notes/sub/b.md"]);
    assert!(matches!(g.start("nobody"), Err(Target::Dangling)));
    assert_eq!(g.start("@schen"), Ok(Node::Entity(0)));
    assert_eq!(join("a/b", "../../../x"), None);
}
