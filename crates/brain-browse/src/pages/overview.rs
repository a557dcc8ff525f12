//! `/`: the same facts as `brain status` (collections with counts and freshness, tiers, the
//! embedding and distillation backlogs) and the last `brain doctor` verdict, with what the index
//! holds by kind, memory type and agent, and the newest documents.

use serde::Serialize;

use super::{PageError, PageResult, age, doc_href, local_time, ok, role_of, thousands};
use crate::app::App;
use crate::url;

#[derive(Serialize)]
struct Collection {
    name: String,
    role: String,
    docs: u64,
    docs_text: String,
    last_indexed: String,
    age: String,
    need_embeddings: u64,
    href: String,
}

#[derive(Serialize)]
struct Facet {
    name: String,
    count: String,
    href: String,
}

#[derive(Serialize)]
struct Recent {
    title: String,
    href: String,
    collection: String,
    date: String,
}

#[derive(Serialize)]
struct Ctx {
    nav: &'static str,
    home: String,
    docs: String,
    collections: Vec<Collection>,
    kinds: Vec<Facet>,
    types: Vec<Facet>,
    agents: Vec<Facet>,
    tiers: brain_store::access::TierCounts,
    need_embeddings: u64,
    distill_pending: u64,
    last_update: String,
    attention: Vec<String>,
    doctor: Option<brain_ops::doctor::LastDoctor>,
    entities: usize,
    recent: Vec<Recent>,
    model: String,
}

pub(super) fn page(app: &mut App) -> PageResult {
    let home = app.home().clone();
    let status = brain_ops::status(&home).map_err(|e| PageError::internal(e.to_string()))?;
    let now = brain_rank::clock::now();
    let config = app.config();
    let doctor = brain_ops::doctor::last(&home);
    let attention = attention(&home, &status, doctor.as_ref());
    let mut facet = |name: &str| -> Vec<Facet> {
        let Ok(engine) = app.handles.engine() else {
            return Vec::new();
        };
        let Ok(ranker) = engine.ranker() else {
            return Vec::new();
        };
        let field = if name == "type" { "type" } else { name };
        ranker
            .searcher()
            .facet_counts(field)
            .ok()
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .map(|(v, n)| Facet {
                href: url::with_query("/search", &[("q", &format!("{name}:{v}"))]),
                name: v,
                count: thousands(n),
            })
            .collect()
    };
    let (kinds, types, agents) = (facet("kind"), facet("type"), facet("agent"));
    // The entities the Entities page lists (defined ones and the projects of sessions).
    let entities = app
        .graph()
        .ok()
        .flatten()
        .map_or(0, |g| g.entities.list.len());

    let recent = recent_docs(&home, &config);
    let collections = status
        .collections
        .iter()
        .map(|c| {
            let last = c.last_indexed.clone().unwrap_or_default();
            Collection {
                name: c.name.clone(),
                role: c.role.clone(),
                docs: c.docs,
                docs_text: thousands(c.docs),
                age: age(&last, &now),
                last_indexed: local_time(&last),
                need_embeddings: c.need_embeddings,
                href: url::with_query("/search", &[("collection", &c.name)]),
            }
        })
        .collect();
    let ctx = Ctx {
        nav: "overview",
        home: status.home.clone(),
        docs: thousands(status.docs),
        collections,
        kinds,
        types,
        agents,
        tiers: status.tiers,
        need_embeddings: status.need_embeddings,
        distill_pending: status.distill_pending,
        last_update: status
            .last_update
            .as_deref()
            .map(|t| format!("{} ({})", local_time(t), age(t, &now)))
            .unwrap_or_else(|| "never".into()),
        attention,
        doctor,
        entities,
        recent,
        model: status.model.id.clone(),
    };
    ok(app, "overview.html", &ctx)
}

/// What needs attention, each line as safe inline HTML (a command in backticks shown as code).
fn attention(
    home: &brain_store::Home,
    status: &brain_ops::Status,
    doctor: Option<&brain_ops::doctor::LastDoctor>,
) -> Vec<String> {
    let mut attention = Vec::new();
    if let Some(e) = &status.config_error {
        attention.push(format!("brain.yaml does not parse: {e}"));
    }
    if !status.lexical_index {
        attention.push("nothing is indexed yet: run `lexindex --all`".into());
    } else if let Some(why) = brain_lex::LexIndex::outdated(home) {
        attention.push(why);
    }
    if status.need_embeddings > 0 && status.vector_store {
        attention.push(format!(
            "{} documents need embeddings (`vecindex`)",
            thousands(status.need_embeddings)
        ));
    }
    if status.distill_pending > 0 {
        attention.push(format!(
            "{} sessions wait for distillation",
            thousands(status.distill_pending)
        ));
    }
    if let Some(d) = doctor.filter(|d| !d.ok) {
        attention.push(format!(
            "the last `brain doctor` failed: {}",
            d.failures.join(", ")
        ));
    }
    attention
        .iter()
        .map(|a| crate::markdown::inline(a))
        .collect()
}

/// The ten newest documents by date.
fn recent_docs(home: &brain_store::Home, config: &brain_store::Config) -> Vec<Recent> {
    let Ok(Some(reg)) = brain_store::Registry::open_existing(home) else {
        return Vec::new();
    };
    let now = brain_store::clock::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    reg.newest(10, &now)
        .unwrap_or_default()
        .into_iter()
        .map(|e| Recent {
            href: doc_href(&e.id, &role_of(config, &e.collection)),
            title: if e.title.is_empty() {
                e.path.clone()
            } else {
                e.title.clone()
            },
            collection: e.collection,
            date: local_time(&e.date),
        })
        .collect()
}
