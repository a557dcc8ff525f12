//! Where a briefing's sections come from: the recency walks (`type:` + `project:`), the
//! registry's `contradicts` links, the search of the open task or the prompt, the current
//! session's own requests — found as hits first, read as items after (their text cut by tokens,
//! whose table loads meanwhile on another thread).

use std::collections::HashSet;

use brain_doc::Hit;
use brain_rank::{Engine, Filters};
use brain_store::Config;
use jiff::Zoned;

use super::{
    ALWAYS, CONFLICTS, DECISION_TYPES, DECISIONS, FAILED, FAILED_TYPES, ITEM_TOKENS, Moment,
    RELATED, Request, SESSIONS, TASK_TYPES, TASKS, THIS_SESSION, WALK, compact, plain_words,
    shorten,
};
use crate::item::{Item, Section};
use crate::{ContextError, assemble, wm};

/// What the sections are read from.
pub(super) struct Gather<'a> {
    pub(super) engine: &'a Engine,
    pub(super) config: &'a Config,
    pub(super) projects: &'a [String],
    pub(super) now: &'a Zoned,
}

impl Gather<'_> {
    /// Every section's items, in the order they are filled and shown; a document is shown once
    /// (in the first section that has it).
    pub(super) fn sections(
        &self,
        req: &Request,
        moment: Moment,
        working: &[wm::Item],
    ) -> Result<Vec<(Section, Vec<Item>)>, ContextError> {
        // The hits first, the items (whose text is cut by tokens) after: the token table loads on
        // another thread meanwhile (see `brief`).
        let mut seen = HashSet::new();
        let mut once = |found: Vec<Found>, n: usize| -> Vec<Found> {
            found
                .into_iter()
                .filter(|f| seen.insert(format!("{}/{}", f.hit.collection, f.hit.path)))
                .take(n)
                .collect()
        };
        let mut lists: Vec<(Section, Vec<Found>)> = Vec::new();
        let mut now = Vec::new();
        if moment != Moment::Prompt {
            // What `brain context` always carries comes first: ME.md, MEMORY.md, pinned records.
            let _t = brain_doc::timings::span("brief.always");
            let always = crate::guaranteed(self.engine, self.config, self.now)?;
            let always = crate::assemble::guaranteed_first(always)
                .into_iter()
                .map(|h| Found::new(h, Section::Always))
                .collect();
            lists.push((Section::Always, once(always, ALWAYS)));
        }
        if moment == Moment::Prompt {
            let prompt = req.prompt.as_deref().unwrap_or("");
            lists.push((Section::Related, once(self.related(prompt)?, RELATED + 2)));
        } else {
            if moment == Moment::Compact
                && let Some(s) = req.session.as_deref()
            {
                now = self.this_session(s)?;
                now.truncate(THIS_SESSION);
            }
            // A record that contradicts another is shown as a contradiction, not as a decision.
            let conflicts = {
                let _t = brain_doc::timings::span("brief.conflicts");
                once(self.conflicts()?, CONFLICTS)
            };
            let decisions = {
                let _t = brain_doc::timings::span("brief.walks");
                self.keyed(&DECISION_TYPES, Section::Decision)?
            };
            lists.push((Section::Decision, once(decisions, DECISIONS)));
            let tasks = self.keyed(&TASK_TYPES, Section::Task)?;
            let open_task = open_task(working, &tasks);
            lists.push((Section::Task, once(tasks, TASKS)));
            lists.push((Section::Conflict, conflicts));
            let failed = self.keyed(&FAILED_TYPES, Section::Failed)?;
            lists.push((Section::Failed, once(failed, FAILED)));
            let sessions = self.sessions()?;
            let task = match open_task {
                Some(t) => t,
                // The last session's goal, unless its title is noise (`[image]`, `/clear`).
                None => sessions
                    .iter()
                    .map(|f| f.hit.title.as_str())
                    .find(|t| !brain_doc::title::is_noise(t))
                    .unwrap_or_default()
                    .to_string(),
            };
            let related = self.related(&task)?;
            lists.push((Section::Related, once(related, RELATED)));
            lists.push((Section::Session, once(sessions, SESSIONS)));
        }
        let _t = brain_doc::timings::span("brief.items");
        let mut out = Vec::new();
        if !now.is_empty() {
            out.push((Section::Now, now));
        }
        for (section, found) in lists {
            let mut items: Vec<Item> = found.into_iter().filter_map(|f| self.build(f)).collect();
            if section == Section::Always {
                items.extend(self.rules(req));
            }
            out.push((section, items));
        }
        Ok(out)
    }

    /// The rules files of the checkout the agent runs in (AGENTS.md, CLAUDE.md, GEMINI.md,
    /// .cursorrules, …: [`brain_store::project::rules`]) as the project's pinned preferences,
    /// cited by their path, read as they are now; the file the agent loads by itself left out.
    /// Fenced as untrusted (a cloned repository wrote them, not you) and with secrets redacted
    /// (an agent keeps its hook output in its transcript).
    fn rules(&self, req: &Request) -> Vec<Item> {
        let Some(dir) = req
            .project
            .as_deref()
            .map(std::path::Path::new)
            .filter(|p| p.is_absolute() && p.is_dir())
        else {
            return Vec::new();
        };
        let now = self.now.timestamp().as_second();
        brain_store::project::rules(dir, req.agent.as_deref())
            .into_iter()
            .map(|r| {
                let shown = brain_store::project_path(&r.path.display().to_string());
                let name = r.path.file_name().map(|n| n.to_string_lossy().into_owned());
                let modified = std::fs::metadata(&r.path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| jiff::Timestamp::try_from(t).ok());
                let age_days = modified.map_or(0, |t| ((now - t.as_second()) / 86_400).max(0));
                let text = brain_redact::redact(&r.text, &mut Default::default());
                Item {
                    section: Section::Always,
                    thread: None,
                    id: shown.clone(),
                    uri: shown,
                    line: 1,
                    title: format!("{} (this project's rules)", name.unwrap_or_default()),
                    date: modified.map(|t| t.to_string()).unwrap_or_default(),
                    age: brain_fmt::age::age_label(age_days),
                    age_days,
                    confidence: None,
                    untrusted: true,
                    cold: false,
                    contradicts: None,
                    score: 0.0,
                    whole: false,
                    tokens: 0,
                    text: shorten(&compact(&text), ITEM_TOKENS),
                    keys: Vec::new(),
                }
            })
            .collect()
    }

    fn filters(&self, types: &[&str]) -> Filters {
        Filters {
            projects: self.projects.to_vec(),
            types: types.iter().map(|t| t.to_string()).collect(),
            ..Filters::default()
        }
    }

    fn walk(&self, filters: &Filters, n: usize) -> Result<Vec<Hit>, ContextError> {
        Ok(self
            .engine
            .ranker()?
            .latest(filters, n, self.now.timestamp())?)
    }

    fn item(&self, h: &Hit, section: Section) -> Option<Item> {
        let mut i = assemble::item(self.config, h, section, assemble::ITEM_MAX_TOKENS, &[])?;
        i.text = shorten(&compact(&i.text), ITEM_TOKENS);
        i.score = 0.0;
        Some(i)
    }

    /// The project's current records of `types`, newest first, one per key; each with its key as
    /// its thread and the date it became true.
    fn keyed(&self, types: &[&str], section: Section) -> Result<Vec<Found>, ContextError> {
        let mut keys = HashSet::new();
        let mut out = Vec::new();
        for h in self.walk(&self.filters(types), WALK)? {
            let key = h.memory.as_ref().and_then(|m| m.key.clone());
            if let Some(k) = &key
                && !keys.insert(k.clone())
            {
                continue;
            }
            let mut f = Found::new(h, section);
            f.thread = key.map(|k| format!("key:{k}"));
            f.date = f.hit.memory.as_ref().and_then(|m| m.occurred_at.clone());
            out.push(f);
        }
        Ok(out)
    }

    /// A found record as an item (its file read, its text cut to [`ITEM_TOKENS`]); `None` when
    /// its document is not servable.
    fn build(&self, f: Found) -> Option<Item> {
        let mut i = if f.section == Section::Session {
            self.session_item(&f.hit)?
        } else {
            self.item(&f.hit, f.section)?
        };
        // A document with nothing but noise to be named by is no item (`[image]`, a bare id).
        if brain_doc::title::is_noise(&i.title) {
            return None;
        }
        if f.thread.is_some() {
            i.thread = f.thread;
        }
        if let Some(d) = f.date {
            i.date = d;
        }
        if f.contradicts.is_some() {
            i.contradicts = f.contradicts;
        }
        Some(i)
    }

    /// Records of this project that say they contradict another, with the line that says it.
    fn conflicts(&self) -> Result<Vec<Found>, ContextError> {
        let Some(reg) = brain_store::Registry::open_existing(self.engine.home())? else {
            return Ok(Vec::new());
        };
        // Most homes have none: the graph is loaded only when one is said.
        if reg.links_of_kind("contradicts")?.is_empty() {
            return Ok(Vec::new());
        }
        let graph = brain_graph::Graph::load(&reg)?;
        let ranker = self.engine.ranker()?;
        let mut out = Vec::new();
        for e in graph.contradictions() {
            let Some(h) = ranker.document(&e.doc, self.now.timestamp())? else {
                continue;
            };
            let mine = h
                .project
                .as_ref()
                .is_some_and(|p| self.projects.contains(p));
            if !(self.projects.is_empty() || mine) {
                continue;
            }
            let other = [&e.from, &e.to]
                .into_iter()
                .find_map(|n| match n {
                    brain_graph::Node::Doc(d) if *d != e.doc => Some(d.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "another record".into());
            let mut f = Found::new(h, Section::Conflict);
            f.contradicts = Some(other);
            out.push(f);
        }
        Ok(out)
    }

    /// The best matches of `task` (none for an empty task), in the search's order whatever their
    /// age (a three-month-old decision is the point of a memory): the project's own and what
    /// belongs to no project (a note, a reference); another project's only when it names an
    /// entity the task names, labelled with its project. The project's own matches that the
    /// search of every project ranked past its list follow.
    fn related(&self, task: &str) -> Result<Vec<Found>, ContextError> {
        let task = task.trim();
        if task.is_empty() {
            return Ok(Vec::new());
        }
        let text = plain_words(task);
        let everywhere = self.search(&text, &[])?;
        if self.projects.is_empty() {
            return Ok(everywhere
                .into_iter()
                .map(|h| Found::new(h, Section::Related))
                .collect());
        }
        let entities = brain_graph::Entities::cached(self.engine.home());
        let named: Vec<usize> = brain_graph::named_in(&entities, &text)
            .into_iter()
            .map(|n| n.entity)
            .collect();
        let mut out: Vec<Found> = Vec::new();
        for h in everywhere {
            let other = h.project.clone().unwrap_or_default();
            if other.is_empty() || self.projects.contains(&other) {
                out.push(Found::new(h, Section::Related));
                continue;
            }
            if named.is_empty() {
                continue;
            }
            let said = format!("{} {}", h.title, h.snippet);
            if brain_graph::named_in(&entities, &said)
                .iter()
                .any(|n| named.contains(&n.entity))
            {
                let mut f = Found::new(h, Section::Related);
                f.thread = Some(format!("another project: {other}"));
                out.push(f);
            }
        }
        for h in self.search(&text, self.projects)? {
            if !out
                .iter()
                .any(|f| f.hit.collection == h.collection && f.hit.path == h.path)
            {
                out.push(Found::new(h, Section::Related));
            }
        }
        Ok(out)
    }

    /// A lexical search of `text` within `projects` (every project when empty).
    fn search(&self, text: &str, projects: &[String]) -> Result<Vec<Hit>, ContextError> {
        let Ok(b) = self.engine.request(self.now).text(text) else {
            return Ok(Vec::new());
        };
        let req = b
            .scope(&[], projects, &[])
            .mode(brain_rank::route::Mode::Lex)
            .limit(RELATED * 4, 1)
            .build();
        match self.engine.search(&req, self.now) {
            Ok(r) => Ok(r.hits),
            Err(e) if brain_doc::Classified::code(&e) == brain_doc::ErrorCode::NoResults => {
                Ok(Vec::new())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The project's last sessions, newest first: each shown by its distilled artifact (goal, what
    /// happened, what was rejected) when there is one, else by its opening lines.
    fn sessions(&self) -> Result<Vec<Found>, ContextError> {
        let filters = Filters {
            projects: self.projects.to_vec(),
            ..Filters::default()
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for h in self.walk(&filters, WALK)? {
            let Some(session) = h.session_id.clone() else {
                continue;
            };
            // A record is no session; nor is a transcript with nothing asked in it (its title the
            // bare "Session <id>", nothing to show it by).
            let empty = h.title.starts_with("Session ") && brain_doc::title::is_noise(&h.title);
            if h.memory.as_ref().is_some_and(|m| m.kind.is_some()) || empty || !seen.insert(session)
            {
                continue;
            }
            out.push(Found::new(h, Section::Session));
            if out.len() == SESSIONS {
                break;
            }
        }
        Ok(out)
    }

    /// Session hit `h` as an item: a distilled artifact by what happened and what was rejected,
    /// a session by what the user asked (its first requests).
    fn session_item(&self, h: &Hit) -> Option<Item> {
        let file = brain_store::walk::servable(self.config, &h.collection, &h.path).ok()?;
        let raw = std::fs::read(&file).ok()?;
        let raw = brain_doc::bytes::text(&raw).0;
        let facts = brain_doc::file::FileFacts::read(&h.path, &raw, 0);
        let mut i = self.item(h, Section::Session)?;
        let lines: Vec<String> =
            if facts.frontmatter.get("distilled").and_then(|v| v.as_bool()) == Some(true) {
                crate::sections::of(facts.body, &["What Happened", "What Was Rejected"])
                    .into_iter()
                    .map(|(name, body)| format!("{name}: {}", body.trim()))
                    .collect()
            } else {
                // Each request by its first real line (not `[image]`, not an IDE wrapper).
                crate::sections::user_turns(facts.body)
                    .into_iter()
                    .filter_map(|(_, t)| {
                        let real = t.lines().map(str::trim).find(|l| {
                            !brain_doc::title::is_housekeeping(l)
                                && l.chars().any(char::is_alphanumeric)
                        })?;
                        Some(format!("asked: {real}"))
                    })
                    .take(3)
                    .collect()
            };
        if !lines.is_empty() {
            i.text = shorten(&lines.join("\n"), ITEM_TOKENS);
        }
        Some(i)
    }

    /// The current session's own requests, latest first (what a compaction summarizes away).
    fn this_session(&self, session: &str) -> Result<Vec<Item>, ContextError> {
        let ranker = self.engine.ranker()?;
        let ids = ranker
            .searcher()
            .session_documents(session)
            .map_err(brain_rank::RankError::from)?;
        let mut out = Vec::new();
        for id in ids {
            let Some((collection, path)) = id.split_once('/') else {
                continue;
            };
            let Ok(file) = brain_store::walk::servable(self.config, collection, path) else {
                continue;
            };
            let Ok(raw) = std::fs::read(&file) else {
                continue;
            };
            let raw = brain_doc::bytes::text(&raw).0;
            let facts = brain_doc::file::FileFacts::read(path, &raw, 0);
            let first = facts.body_line;
            let title = brain_doc::title::shown(&facts.title, facts.body);
            let age_days = brain_doc::file::parse_date(&facts.date)
                .map(|t| (self.now.timestamp().as_second() - t) / 86_400)
                .unwrap_or(0)
                .max(0);
            for (line, text) in crate::sections::user_turns(facts.body).into_iter().rev() {
                out.push(Item {
                    section: Section::Now,
                    thread: None,
                    id: format!("{id}#{line}"),
                    uri: format!("brain://{id}"),
                    line: first + line as u64 - 1,
                    title: title.clone(),
                    date: facts.date.clone(),
                    age: brain_fmt::age::age_label(age_days),
                    age_days,
                    confidence: None,
                    untrusted: self.config.is_low_trust(collection),
                    cold: false,
                    contradicts: None,
                    score: 0.0,
                    tokens: 0,
                    text: shorten(&text, ITEM_TOKENS),
                    keys: Vec::new(),
                    whole: false,
                });
            }
        }
        Ok(out)
    }
}

/// The open task a briefing looks for related records of: the working-memory notes, else the
/// newest open task record (its title and first line), at most [`TASK_WORDS`] words.
fn open_task(working: &[wm::Item], tasks: &[Found]) -> Option<String> {
    let text: Vec<&str> = if working.is_empty() {
        tasks
            .iter()
            .take(1)
            .flat_map(|t| [t.hit.title.as_str(), t.hit.snippet.as_str()])
            .collect()
    } else {
        working.iter().map(|w| w.text.as_str()).collect()
    };
    let words: Vec<&str> = text
        .iter()
        .flat_map(|t| t.split_whitespace())
        .take(TASK_WORDS)
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Most words of an open task searched: its gist (a long note adds terms, and time, not focus).
pub const TASK_WORDS: usize = 16;

/// A record found for a section, before it is read as an item.
struct Found {
    hit: Hit,
    section: Section,
    thread: Option<String>,
    /// The date shown (when it became true), when not the hit's.
    date: Option<String>,
    contradicts: Option<String>,
}

impl Found {
    fn new(hit: Hit, section: Section) -> Found {
        Found {
            hit,
            section,
            thread: None,
            date: None,
            contradicts: None,
        }
    }
}
