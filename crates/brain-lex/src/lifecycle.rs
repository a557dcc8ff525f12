//! Supersession, decided across records at the end of every indexing run that wrote something
//! (seed 001's no-deletion rule: a record that is no longer current is marked, never removed).
//!
//! A record stops being current ([`crate::schema::SUPERSEDED`], the instant; and
//! [`crate::schema::SUPERSEDED_BY`], the successor's id):
//! * at the `occurred_at` of the next *active* record with the same `key` (ordered by `occurred_at`,
//!   then the date, then the id: the newest is current);
//! * at the `occurred_at` of an active record that lists it in `supersedes` (by id,
//!   `collection/path`, or by its own name, frontmatter `id:`), never before its own;
//! * at its own `occurred_at` when its frontmatter says `status: superseded`.
//!
//! The candidates are every record that takes part ([`crate::schema::LINKED`]), every record marked
//! superseded now (its successor may be gone), and every record a `supersedes` names. Those whose
//! state changed are written again from their stored fields ([`crate::document::restore`]): no file
//! is read, and the text is the one indexed.

use std::collections::{BTreeMap, HashMap};

use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, IndexWriter, Searcher, TantivyDocument, Term};

use crate::document::restore;
use crate::schema::{FOREVER, Fields};

/// One record as the lifecycle sees it.
#[derive(Debug, Clone)]
struct Rec {
    id: String,
    key: Option<String>,
    /// `occurred_at`, else the date (Unix seconds; 0 when neither).
    occurred: i64,
    status: String,
    supersedes: Vec<String>,
    /// As indexed now.
    superseded: i64,
    by: Option<String>,
}

/// Every record that takes part in supersession (see the module docs), by id.
fn candidates(
    searcher: &Searcher,
    f: &Fields,
    names: &dyn Fn() -> HashMap<String, String>,
) -> tantivy::Result<BTreeMap<String, Rec>> {
    let first = |q: Box<dyn Query>| -> Box<dyn Query> {
        Box::new(BooleanQuery::new(vec![
            (Occur::Must, q),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.passage, 0),
                    IndexRecordOption::Basic,
                )),
            ),
        ]))
    };
    let linked: Box<dyn Query> = Box::new(TermQuery::new(
        Term::from_field_u64(f.linked, 1),
        IndexRecordOption::Basic,
    ));
    let marked: Box<dyn Query> = Box::new(RangeQuery::new(
        std::ops::Bound::Unbounded,
        std::ops::Bound::Excluded(Term::from_field_date_for_search(
            f.superseded,
            crate::schema::instant(FOREVER),
        )),
    ));
    let any = BooleanQuery::new(vec![(Occur::Should, linked), (Occur::Should, marked)]);
    let mut recs: BTreeMap<String, Rec> = BTreeMap::new();
    for addr in searcher.search(&*first(Box::new(any)), &DocSetCollector)? {
        let r = read(searcher, f, addr)?;
        recs.insert(r.id.clone(), r);
    }
    let by_id = |id: &str| -> tantivy::Result<Option<DocAddress>> {
        let q = first(Box::new(TermQuery::new(
            Term::from_field_text(f.id, id),
            IndexRecordOption::Basic,
        )));
        Ok(searcher.search(&*q, &DocSetCollector)?.into_iter().next())
    };
    // The records a `supersedes` names, wherever they are: by id, else by a record's own name
    // (frontmatter `id:`; the names are asked for only when a target is not an id).
    let targets: Vec<String> = recs
        .values()
        .flat_map(|r| r.supersedes.iter().cloned())
        .filter(|t| !recs.contains_key(t))
        .collect();
    let mut known: Option<HashMap<String, String>> = None;
    let mut renamed: HashMap<String, String> = HashMap::new();
    for t in targets {
        let mut hit = by_id(&t)?;
        if hit.is_none()
            && let Some(id) = known
                .get_or_insert_with(names)
                .get(&t.trim().to_lowercase())
        {
            renamed.insert(t.clone(), id.clone());
            if !recs.contains_key(id) {
                hit = by_id(id)?;
            }
        }
        if let Some(addr) = hit {
            let r = read(searcher, f, addr)?;
            recs.insert(r.id.clone(), r);
        }
    }
    for r in recs.values_mut() {
        for t in &mut r.supersedes {
            if let Some(id) = renamed.get(t.as_str()) {
                *t = id.clone();
            }
        }
    }
    Ok(recs)
}

/// Bring every candidate's supersession in line; the number of records written again. The caller
/// commits.
pub(crate) fn settle(
    searcher: &Searcher,
    fields: &Fields,
    writer: &mut IndexWriter<TantivyDocument>,
    names: &dyn Fn() -> HashMap<String, String>,
) -> tantivy::Result<usize> {
    let f = fields;
    let recs = candidates(searcher, f, names)?;
    let next = decide(&recs);
    let mut written = 0;
    for (id, r) in &recs {
        let (when, by) = next.get(id).cloned().unwrap_or((FOREVER, None));
        if when == r.superseded && by == r.by {
            continue;
        }
        let q = TermQuery::new(Term::from_field_text(f.id, id), IndexRecordOption::Basic);
        let mut passages: Vec<DocAddress> =
            searcher.search(&q, &DocSetCollector)?.into_iter().collect();
        passages.sort();
        let docs = passages
            .into_iter()
            .map(|a| searcher.doc::<TantivyDocument>(a))
            .collect::<tantivy::Result<Vec<_>>>()?;
        writer.delete_term(Term::from_field_text(f.id, id));
        for d in &docs {
            writer.add_document(restore(d, f, when, by.as_deref()))?;
        }
        written += 1;
    }
    Ok(written)
}

/// What the doctor reports of the records' lifecycle: keys held by several records (the newest
/// current, the others superseded — worth a look when they contradict each other), `supersedes`
/// naming a record the index does not hold, and records that contradict each other:
/// * **cycles** — active records that supersede each other (directly or through others): every
///   one of them is hidden, so the memory has no current answer;
/// * **backwards** — an active record superseding one that happened after it (an older statement
///   replacing a newer one: usually a wrong id or a wrong date);
/// * **near keys** — active records whose keys differ only in case, spaces or punctuation
///   (`db.engine`, `DB Engine`): two subjects that are probably one, each with its own "current".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LifecycleReport {
    /// `(key, [(id, current?)])`, newest last.
    pub shared_keys: Vec<(String, Vec<(String, bool)>)>,
    /// `(id, target it names)`.
    pub dangling: Vec<(String, String)>,
    /// Each cycle's ids, sorted; cycles sorted.
    pub cycles: Vec<Vec<String>>,
    /// `(id, target that happened after it)`.
    pub backwards: Vec<(String, String)>,
    /// `[(key as written, id)]` per group of keys that are one once normalized ([`key_norm`]).
    pub near_keys: Vec<Vec<(String, String)>>,
}

/// A key compared loosely: lower case, letters and digits only.
pub fn key_norm(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Record names (frontmatter `id:`) as a map from the name, lower case, to the one record that
/// bears it; a name two records claim names neither. `pairs` are `(record id, name)`.
pub fn unique_names(pairs: impl IntoIterator<Item = (String, String)>) -> HashMap<String, String> {
    let mut by: HashMap<String, Vec<String>> = HashMap::new();
    for (doc, name) in pairs {
        let v = by.entry(name.trim().to_lowercase()).or_default();
        if !v.contains(&doc) {
            v.push(doc);
        }
    }
    by.into_iter()
        .filter_map(|(name, mut docs)| (docs.len() == 1).then(|| (name, docs.remove(0))))
        .collect()
}

/// The [`LifecycleReport`] of the index `lex`; `names` resolves `supersedes: <name>` ([`unique_names`]).
pub fn report(
    lex: &crate::LexIndex,
    names: &HashMap<String, String>,
) -> Result<LifecycleReport, crate::LexError> {
    let searcher = lex.reader()?.searcher();
    let recs = candidates(&searcher, lex.fields(), &|| names.clone()).map_err(|source| {
        crate::LexError::Tantivy {
            path: lex.path().to_path_buf(),
            source,
        }
    })?;
    let mut by_key: BTreeMap<&str, Vec<&Rec>> = BTreeMap::new();
    for r in recs.values().filter(|r| r.status == "active") {
        if let Some(k) = &r.key {
            by_key.entry(k).or_default().push(r);
        }
    }
    let mut out = LifecycleReport::default();
    for (key, mut group) in by_key.into_iter().filter(|(_, g)| g.len() > 1) {
        group.sort_by(|a, b| a.occurred.cmp(&b.occurred).then_with(|| a.id.cmp(&b.id)));
        let n = group.len();
        out.shared_keys.push((
            key.to_string(),
            group
                .iter()
                .enumerate()
                .map(|(i, r)| (r.id.clone(), i + 1 == n))
                .collect(),
        ));
    }
    for r in recs.values() {
        for t in &r.supersedes {
            if !recs.contains_key(t) {
                out.dangling.push((r.id.clone(), t.clone()));
            }
        }
    }
    contradictions(&recs, &mut out);
    Ok(out)
}

/// The contradictions of [`LifecycleReport`] among `recs`.
fn contradictions(recs: &BTreeMap<String, Rec>, out: &mut LifecycleReport) {
    let active = |r: &Rec| r.status == "active";
    // Edges of "supersedes" between active records of the index.
    let edges: BTreeMap<&str, Vec<&str>> = recs
        .values()
        .filter(|r| active(r))
        .map(|r| {
            let to = r
                .supersedes
                .iter()
                .filter(|t| **t != r.id && recs.get(*t).is_some_and(active))
                .map(String::as_str)
                .collect();
            (r.id.as_str(), to)
        })
        .collect();
    let reaches = |from: &str, to: &str| {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if seen.insert(v) {
                stack.extend(edges.get(v).into_iter().flatten().copied());
            }
        }
        false
    };
    let mut cycles: std::collections::BTreeSet<Vec<String>> = Default::default();
    for (s, tos) in &edges {
        for t in tos {
            if reaches(t, s) {
                // The cycle through s: every node reachable from s that reaches s back.
                let mut members: Vec<String> = edges
                    .keys()
                    .filter(|v| reaches(s, v) && reaches(v, s))
                    .map(|v| v.to_string())
                    .collect();
                members.sort();
                cycles.insert(members);
            }
        }
    }
    out.cycles = cycles.into_iter().collect();
    for s in recs.values().filter(|r| active(r)) {
        for t in &s.supersedes {
            if let Some(target) = recs.get(t)
                && target.id != s.id
                && target.occurred > s.occurred
            {
                out.backwards.push((s.id.clone(), target.id.clone()));
            }
        }
    }
    let mut by_norm: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for r in recs.values().filter(|r| active(r)) {
        if let Some(k) = &r.key {
            by_norm
                .entry(key_norm(k))
                .or_default()
                .push((k.clone(), r.id.clone()));
        }
    }
    out.near_keys = by_norm
        .into_values()
        .filter(|g| g.iter().any(|(k, _)| *k != g[0].0))
        .collect();
}

/// The state each record should have: `(instant it stopped being current, successor)`; records
/// not named stay current.
fn decide(recs: &BTreeMap<String, Rec>) -> HashMap<String, (i64, Option<String>)> {
    let mut out: HashMap<String, (i64, Option<String>)> = HashMap::new();
    let mut mark = |id: &str, when: i64, by: Option<&str>| {
        let e = out.entry(id.to_string()).or_insert((FOREVER, None));
        if when < e.0 {
            *e = (when, by.map(str::to_string));
        }
    };
    let active = |r: &Rec| r.status == "active";
    for r in recs.values().filter(|r| r.status == "superseded") {
        mark(&r.id, r.occurred, None);
    }
    let mut by_key: BTreeMap<&str, Vec<&Rec>> = BTreeMap::new();
    for r in recs.values().filter(|r| active(r)) {
        if let Some(k) = &r.key {
            by_key.entry(k).or_default().push(r);
        }
    }
    for group in by_key.values_mut() {
        group.sort_by(|a, b| a.occurred.cmp(&b.occurred).then_with(|| a.id.cmp(&b.id)));
        for pair in group.windows(2) {
            mark(&pair[0].id, pair[1].occurred, Some(&pair[1].id));
        }
    }
    for s in recs.values().filter(|r| active(r)) {
        for t in &s.supersedes {
            if let Some(target) = recs.get(t)
                && target.id != s.id
            {
                mark(&target.id, s.occurred.max(target.occurred), Some(&s.id));
            }
        }
    }
    out
}

fn read(searcher: &Searcher, f: &Fields, addr: DocAddress) -> tantivy::Result<Rec> {
    let d: TantivyDocument = searcher.doc(addr)?;
    let text = |field| {
        d.get_first(field)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let secs = |field| {
        d.get_first(field)
            .and_then(|v| v.as_datetime())
            .map(|t| t.into_timestamp_secs())
    };
    Ok(Rec {
        id: text(f.id).unwrap_or_default(),
        key: text(f.key),
        occurred: secs(f.occurred).or_else(|| secs(f.date)).unwrap_or(0),
        status: text(f.status).unwrap_or_else(|| "active".into()),
        supersedes: d
            .get_all(f.supersedes)
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        superseded: secs(f.superseded).unwrap_or(FOREVER),
        by: text(f.superseded_by),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, key: Option<&str>, occurred: i64, status: &str, sup: &[&str]) -> Rec {
        Rec {
            id: id.into(),
            key: key.map(str::to_string),
            occurred,
            status: status.into(),
            supersedes: sup.iter().map(|s| s.to_string()).collect(),
            superseded: FOREVER,
            by: None,
        }
    }

    fn decided(recs: Vec<Rec>) -> HashMap<String, (i64, Option<String>)> {
        decide(&recs.into_iter().map(|r| (r.id.clone(), r)).collect())
    }

    #[test]
    fn the_newest_active_record_of_a_key_is_current() {
        let d = decided(vec![
            rec("n/a", Some("db"), 100, "active", &[]),
            rec("n/c", Some("db"), 300, "active", &[]),
            rec("n/b", Some("db"), 200, "active", &[]),
            rec("n/x", Some("other"), 50, "active", &[]),
            // Archived records neither supersede nor are superseded by key.
            rec("n/z", Some("db"), 400, "archived", &[]),
        ]);
        assert_eq!(d["n/a"], (200, Some("n/b".into())));
        assert_eq!(d["n/b"], (300, Some("n/c".into())));
        assert!(!d.contains_key("n/c") && !d.contains_key("n/x") && !d.contains_key("n/z"));
    }

    #[test]
    fn supersedes_and_status_mark_records_too() {
        let d = decided(vec![
            rec("n/old", None, 100, "active", &[]),
            rec(
                "n/new",
                None,
                50,
                "active",
                &["n/old", "n/new", "n/missing"],
            ),
            rec("n/done", None, 70, "superseded", &[]),
        ]);
        // Never before the record itself; a record never supersedes itself.
        assert_eq!(d["n/old"], (100, Some("n/new".into())));
        assert!(!d.contains_key("n/new"));
        assert_eq!(d["n/done"], (70, None));
    }
}
