//! Checks of the data: lexical index vs registry vs disk, state DB, telemetry file, model, vector
//! store, locks.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;

use brain_doc::Classified;
use brain_store::{Config, Home};

use super::Check;
use crate::OpsError;
use brain_store::{FileEntry, Registry};

/// Ids named in details, per kind.
pub(super) const FEW: usize = 5;

fn few(label: &str, ids: &[&String]) -> Vec<String> {
    ids.iter()
        .take(FEW)
        .map(|id| format!("{label}: {id}"))
        .collect()
}

pub fn lexical_index(home: &Home, files: Option<&[FileEntry]>) -> Check {
    let aside = brain_lex::LexIndex::aside_dir(home);
    if aside.is_dir() && !crate::locks::held(&home.lock_file("lexindex")) {
        let mb = walkdir_bytes(&aside) as f64 / 1e6;
        return Check::fail(
            "lexical_index",
            format!(
                "a rebuild was stopped before its end: {} ({mb:.1} MB) is left, and every query says a rebuild is under way",
                aside.display()
            ),
            "lexindex --all (removes it; `lexindex --all --rebuild` to rebuild from scratch)",
        );
    }
    let lex = match brain_lex::LexIndex::open(home) {
        Ok(l) => l,
        Err(e) => return Check::fail("lexical_index", e.to_string(), e.fix()),
    };
    let rebuild = "lexindex --all --rebuild";
    let ids = match brain_lex::search::Searcher::new(&lex).and_then(|s| s.document_ids()) {
        Ok(ids) => ids,
        Err(e) => {
            return Check::fail("lexical_index", "the lexical index does not open", rebuild)
                .with(vec![e.to_string()]);
        }
    };
    let Some(files) = files else {
        return Check::pass(
            "lexical_index",
            format!(
                "opens: {} documents (no registry to compare with)",
                ids.len()
            ),
        );
    };
    let index: BTreeSet<&String> = ids.iter().collect();
    let registry: BTreeSet<&String> = files
        .iter()
        .filter(|f| f.passages > 0)
        .map(|f| &f.id)
        .collect();
    let only_index: Vec<&String> = index.difference(&registry).copied().collect();
    let only_registry: Vec<&String> = registry.difference(&index).copied().collect();
    if only_index.is_empty() && only_registry.is_empty() {
        return Check::pass(
            "lexical_index",
            format!("opens: {} documents, the same as the registry", ids.len()),
        );
    }
    let mut details = few("in the index, not the registry", &only_index);
    details.extend(few("in the registry, not the index", &only_registry));
    Check::fail(
        "lexical_index",
        format!(
            "index and registry disagree: {} documents only in the index, {} only in the registry",
            only_index.len(),
            only_registry.len()
        ),
        rebuild,
    )
    .with(details)
}

/// Bytes of every file under `dir`.
fn walkdir_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => total += e.metadata().map_or(0, |m| m.len()),
                Err(_) => {}
            }
        }
    }
    total
}

/// `1 file`, `3 files`.
pub(super) fn n(count: u64, what: &str) -> String {
    if count == 1 {
        format!("1 {what}")
    } else {
        format!("{count} {what}s")
    }
}

/// Disk vs registry; skipped when either side cannot be trusted (a broken brain.yaml or an
/// unreadable registry is reported by its own check, not as a flood of drift here).
pub fn corpus_sync(config: Option<&Config>, files: Option<&[FileEntry]>) -> Check {
    let (Some(config), Some(files)) = (config, files) else {
        return Check::skip(
            "corpus_sync",
            "not compared: brain.yaml or state.sqlite cannot be read",
            "fix the failing config or state_db check first",
        );
    };
    let drift = crate::freshness::drift(config, files);
    let total = |f: fn(&crate::freshness::Drift) -> u64| drift.values().map(f).sum::<u64>();
    let (on_disk, new, changed, gone) = (
        total(|d| d.files_on_disk),
        total(|d| d.not_indexed),
        total(|d| d.changed),
        total(|d| d.missing_files),
    );
    let unconverted = total(|d| d.unconverted);
    let details: Vec<String> = drift
        .iter()
        .flat_map(|(c, d)| d.examples.iter().map(move |e| format!("{c}: {e}")))
        .collect();
    if new + changed + gone == 0 {
        let mut summary = format!("{} on disk, all indexed as they are", n(on_disk, "file"));
        if unconverted > 0 {
            // Named, not failed: re-indexing cannot change them; a new version of the file can.
            summary = format!(
                "{summary}, except {} doc2md could not convert (named below; each is tried again when its file changes)",
                n(unconverted, "document")
            );
        }
        return Check::pass("corpus_sync", summary).with(details);
    }
    Check::fail(
        "corpus_sync",
        format!(
            "{} on disk not indexed, {changed} changed since indexed, {} whose file is gone",
            n(new, "file"),
            n(gone, "indexed document")
        ),
        if new + changed > 0 {
            "brain doctor --fix (runs lexindex --all)"
        } else {
            "lexindex --all (once the files named are meant to be gone)"
        },
    )
    .with(details)
}

/// Purges stopped before their end ([`brain_store::purged`]): some of the record's text may still
/// be in the index files, the vector store or the usage log until a writer finishes them.
pub fn purges(home: &Home) -> Check {
    let purged = match brain_store::purged::Purged::load(home) {
        Ok(p) => p,
        Err(e) => {
            return Check::fail(
                "purges",
                "the record of purges does not read: purged sessions could come back",
                format!(
                    "restore {} from a backup, or repair its JSON",
                    brain_store::display_path(&home.state_file(brain_store::purged::FILE))
                ),
            )
            .with(vec![e.to_string()]);
        }
    };
    let pending = purged.pending();
    if pending.is_empty() {
        return Check::pass(
            "purges",
            format!(
                "{} purged, none left half-done",
                n(purged.records.len() as u64, "record")
            ),
        );
    }
    Check::fail(
        "purges",
        format!(
            "{} stopped before every trace was removed",
            n(pending.len() as u64, "purge")
        ),
        "run `lexindex --all` (any writer's run finishes them), or `brain forget --purge --yes <id>`",
    )
    .with(
        pending
            .iter()
            .take(FEW)
            .map(|p| format!("{} (asked {})", p.id.as_deref().unwrap_or("?"), p.at))
            .collect(),
    )
}

pub fn state_db(home: &Home, registry: Result<Option<Registry>, OpsError>) -> Check {
    let path = home.state_db();
    let fix = format!(
        "move {} away and run `lexindex --all --rebuild` (the registry is rebuilt from the corpus)",
        path.display()
    );
    let r = match registry {
        Ok(Some(r)) => r,
        Ok(None) if brain_lex::LexIndex::dir(home).join("meta.json").exists() => {
            return Check::fail(
                "state_db",
                format!("{} is missing but a lexical index exists", path.display()),
                "lexindex --all --rebuild",
            );
        }
        Ok(None) => {
            return Check::skip(
                "state_db",
                "no state.sqlite yet (nothing indexed)",
                "lexindex --all",
            );
        }
        Err(e) => {
            return Check::fail("state_db", "state.sqlite does not open", fix)
                .with(vec![e.to_string()]);
        }
    };
    match r.integrity() {
        Ok(lines) if lines == ["ok"] => Check::pass("state_db", "state.sqlite: integrity_check ok"),
        Ok(lines) => Check::fail("state_db", "state.sqlite fails integrity_check", fix)
            .with(lines.into_iter().take(FEW).collect()),
        Err(e) => {
            Check::fail("state_db", "state.sqlite cannot be checked", fix).with(vec![e.to_string()])
        }
    }
}

pub fn telemetry(home: &Home) -> Check {
    let path = home.usage_log();
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(_) => return Check::pass("telemetry", "no usage.jsonl yet"),
    };
    let mut problems = Vec::new();
    let mut details = Vec::new();
    let mut fixes = Vec::new();
    let mode = meta.permissions().mode() & 0o7777;
    if mode != 0o600 {
        problems.push(format!(
            "mode {mode:04o}, expected 0600 (queries and notes must not be world-readable)"
        ));
        fixes.push(format!("chmod 600 {}", path.display()));
    }
    let rows = match crate::usage::check(home) {
        Ok((rows, bad)) => {
            if !bad.is_empty() {
                fixes.push(format!(
                    "delete the bad lines from {} (e.g. `sed -i 'Nd'`)",
                    path.display()
                ));
                problems.push(
                    format!("{} not a telemetry row", n(bad.len() as u64, "line"))
                        .replace("lines not", "lines are not")
                        .replace("line not", "line is not"),
                );
                details.extend(bad.into_iter().take(FEW));
            }
            rows
        }
        Err(e) => {
            problems.push(format!("unreadable: {e}"));
            0
        }
    };
    if problems.is_empty() {
        Check::pass(
            "telemetry",
            format!("usage.jsonl: {rows} rows parse, mode 0600"),
        )
    } else {
        Check::fail(
            "telemetry",
            format!("usage.jsonl: {}", problems.join("; ")),
            fixes.join("; "),
        )
        .with(details)
    }
}

pub fn model(home: &Home) -> Check {
    let fetch = brain_vec::FETCH_FIX;
    if !crate::vectors::configured(home) {
        return Check::skip(
            "model",
            "vectors not configured: lexical search only",
            format!("{fetch}, then `vecindex --all`"),
        );
    }
    let m = crate::vectors::model(home, true);
    // The fix names the model in force when the catalog knows it.
    let named =
        m.id.strip_prefix("local:")
            .and_then(brain_vec::catalog::find)
            .map(|c| format!("run `brain model fetch {}`", c.name));
    let fetch = named.as_deref().unwrap_or(fetch);
    if let Some(e) = &m.error {
        return Check::fail(
            "model",
            "the embedder ($BRAIN_EMBEDDER or brain.yaml's embedder section) does not parse",
            "fix $BRAIN_EMBEDDER or brain.yaml's embedder section (docs/vectors.md)",
        )
        .with(vec![e.clone()]);
    }
    match (m.present, m.hash_ok()) {
        (None, _) => Check::skip(
            "model",
            format!("{} at {}: a server, not checked here", m.id, m.location),
            "",
        ),
        (Some(false), _) => Check::fail(
            "model",
            format!("model files missing in {}", m.location),
            fetch,
        )
        .with(vec![
            "needs config.json, tokenizer.json, model.safetensors".into(),
        ]),
        (Some(true), Some(false)) => Check::fail(
            "model",
            format!("model.safetensors is not the pinned weights of {}", m.id),
            format!("{fetch}: re-installs the pinned weights"),
        )
        .with(vec![
            format!("sha256 {}", m.sha256.unwrap_or_default()),
            format!("expected {}", m.expected_sha256.unwrap_or_default()),
        ]),
        (Some(true), Some(true)) => Check::pass(
            "model",
            format!("{}: files present, sha256 matches the pin", m.id),
        ),
        (Some(true), None) => Check::pass(
            "model",
            format!("{}: files present (no pinned hash for this model)", m.id),
        ),
    }
}

pub fn vector_store(home: &Home) -> Check {
    let dir = crate::vectors::store_dir(home);
    if !dir.join("manifest.json").exists() {
        return Check::skip("vector_store", "no vector store", "vecindex --all");
    }
    match brain_vec::store::Store::open(&dir) {
        Ok(s) => {
            let check = Check::pass(
                "vector_store",
                format!(
                    "{} documents, {} chunks ({})",
                    s.manifest.docs,
                    s.manifest.chunks,
                    s.manifest.fingerprint.id()
                ),
            );
            // A model switch under way (brain_vec::switch) is news, not a fault.
            match crate::vectors::switch(home, &crate::vectors::model(home, false)) {
                Some(w) => check.with(vec![format!(
                    "switching to {}: {} documents embedded beside the store so far; searches use {} until every document is (vecindex --all)",
                    w.to, w.done, w.from
                )]),
                None => check,
            }
        }
        Err(e) => Check::fail(
            "vector_store",
            "the vector store does not open",
            "vecindex --all (writes a new generation)",
        )
        .with(vec![e.to_string()]),
    }
}

pub fn locks(home: &Home) -> Check {
    let all = crate::locks::scan(home);
    let stale: Vec<String> = all
        .iter()
        .filter(|l| l.stale)
        .map(|l| format!("{}: pid {} is gone", l.path, l.pid.unwrap_or(0)))
        .collect();
    if stale.is_empty() {
        let held = all.iter().filter(|l| l.held).count();
        return Check::pass(
            "locks",
            format!(
                "{}, none stale ({held} held now)",
                n(all.len() as u64, "lock file")
            ),
        );
    }
    Check::fail(
        "locks",
        format!("{}: a writer died mid-run", n(stale.len() as u64, "stale lock file")),
        "re-run what died (`lexindex --all`, `vecindex --all`, …) to repair its output, then delete the lock file",
    )
    .with(stale)
}

/// What the memory graph adds to the memory check (issue #23): records that say they contradict
/// each other (`relations: {contradicts: …}`), typed relations whose target is no record or entity,
/// and names several entities go by (a query naming one is not expanded; `brain entity` asks which).
struct GraphFindings {
    details: Vec<String>,
    contradictions: usize,
}

fn graph_findings(home: &Home) -> GraphFindings {
    let mut out = GraphFindings {
        details: Vec::new(),
        contradictions: 0,
    };
    let Ok(Some(reg)) = brain_store::Registry::open_existing(home) else {
        return out;
    };
    let Ok(g) = brain_graph::Graph::load(&reg) else {
        return out;
    };
    for e in g.contradictions() {
        out.contradictions += 1;
        out.details.push(format!(
            "contradiction: {} contradicts {} (said at {}:{}; `brain related {} --kind contradicts`)",
            g.describe(&e.from).1,
            g.describe(&e.to).1,
            e.doc,
            e.line,
            g.describe(&e.from).1
        ));
    }
    for (row, target) in &g.dangling {
        let typed = brain_doc::links::RelationKind::parse(&row.kind).is_some_and(|k| {
            !matches!(
                k,
                brain_doc::links::RelationKind::Related
                    | brain_doc::links::RelationKind::Supersedes
            )
        });
        match target {
            brain_graph::Target::Ambiguous(ids) => out.details.push(format!(
                "{}:{}: `{}` names {} entities ({}): not resolved",
                row.doc_id,
                row.line,
                row.target,
                ids.len(),
                ids.join(", ")
            )),
            _ if typed => out.details.push(format!(
                "{}:{}: {} `{}`, which is no record or entity",
                row.doc_id, row.line, row.kind, row.target
            )),
            _ => {}
        }
    }
    for (name, ids) in g.entities.ambiguous() {
        out.details.push(format!(
            "the name `{name}` belongs to {} entities: {}",
            ids.len(),
            ids.join(", ")
        ));
    }
    out
}

/// Memory records (issue #22): keys held by several active records (the newest is current; the
/// others are superseded — listed, since two of them may contradict each other), records that
/// contradict each other (`brain_lex::lifecycle::LifecycleReport`: a supersedes cycle fails, since
/// every record in it is hidden; backwards succession and near-identical keys are listed), and
/// `supersedes` naming a record the index does not hold (fails: a replacement that replaces nothing).
pub fn memory(home: &Home) -> Check {
    let Ok(lex) = brain_lex::LexIndex::open(home) else {
        return Check::skip("memory", "no lexical index", "lexindex --all");
    };
    let names = brain_store::Registry::open_existing(home)
        .ok()
        .flatten()
        .and_then(|r| r.names().ok())
        .map(brain_lex::lifecycle::unique_names)
        .unwrap_or_default();
    let r = match brain_lex::lifecycle::report(&lex, &names) {
        Ok(r) => r,
        Err(e) => return Check::fail("memory", e.to_string(), "lexindex --all --rebuild"),
    };
    let mut details: Vec<String> = r
        .shared_keys
        .iter()
        .map(|(key, ids)| {
            let list: Vec<String> = ids
                .iter()
                .map(|(id, current)| {
                    format!("{id} ({})", if *current { "current" } else { "superseded" })
                })
                .collect();
            format!("key `{key}`: {}", list.join(", "))
        })
        .collect();
    details.extend(
        r.dangling
            .iter()
            .map(|(id, t)| format!("{id} supersedes `{t}`, which the index does not hold")),
    );
    details.extend(r.cycles.iter().map(|ids| {
        format!(
            "contradiction: {} supersede each other: all of them are hidden",
            ids.join(", ")
        )
    }));
    details.extend(
        r.backwards
            .iter()
            .map(|(id, t)| format!("contradiction: {id} supersedes {t}, which happened after it")),
    );
    details.extend(r.near_keys.iter().map(|group| {
        let list: Vec<String> = group.iter().map(|(k, id)| format!("`{k}` ({id})")).collect();
        format!(
            "contradiction: keys that differ only in spelling, each with its own current record: {}",
            list.join(", ")
        )
    }));
    let graph = graph_findings(home);
    details.extend(graph.details);
    let damage = super::logs::extraction_damage(home);
    if !damage.is_empty() {
        details.extend(damage.iter().cloned());
        return Check::fail(
            "memory",
            "the extraction's log or state is damaged (the records themselves are not)",
            "move the damaged file aside (`mv FILE FILE.damaged`): the next `brain extract` starts it anew",
        )
        .with(details);
    }
    if !r.cycles.is_empty() {
        return Check::fail(
            "memory",
            format!(
                "{} supersedes cycle{}: the records in it are all hidden",
                r.cycles.len(),
                if r.cycles.len() == 1 { "" } else { "s" }
            ),
            "remove the `supersedes` of the record that is current (brain get shows each)",
        )
        .with(details);
    }
    if !r.dangling.is_empty() {
        return Check::fail(
            "memory",
            format!("{} supersedes naming no record", r.dangling.len()),
            "name the record as collection/path (brain get shows it), or remove the entry",
        )
        .with(details);
    }
    let contradictions = r.backwards.len() + r.near_keys.len() + graph.contradictions;
    Check::pass(
        "memory",
        format!(
            "{} key{} held by several records (the newest is current); {contradictions} contradiction{} to look at",
            r.shared_keys.len(),
            if r.shared_keys.len() == 1 { "" } else { "s" },
            if contradictions == 1 { "" } else { "s" }
        ),
    )
    .with(details)
}
