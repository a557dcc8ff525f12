//! The briefing (issue 40, seed 002's "memory before the first prompt"): a context block for *this
//! project and this moment*, made when an agent's session starts (the SessionStart hooks), when a
//! prompt is submitted (opt-in, a smaller budget), and by `brain brief` / MCP `brief` for a person.
//!
//! What it holds, each item cited (`brain://…:line`, age, confidence, the trust fence):
//!
//! | section | what | read how |
//! |---|---|---|
//! | working memory | the short-lived notes, as in every block | [`crate::wm`] |
//! | This session | at `compact`: the current session's own requests, which a compaction loses first | the session's documents, their user turns |
//! | Current decisions and facts | the project's current records of type decision, fact, preference (superseded ones are hidden by the index), one per key, with the date each was decided | the recency walk, `type:` + `project:` |
//! | Open tasks | the project's current `type: task` records | the same |
//! | Open contradictions | records that say they `contradicts` another, in this project | registry links |
//! | Tried and failed | the project's rejected approaches and failed commands | the recency walk, `type: rejected, failed` |
//! | Related | the best matches of the open task (working memory, open tasks, else the last session's goal) or of the prompt; old ones keep their place | the search |
//! | Recent sessions | the last sessions of the project: goal, what happened, what was rejected (the distilled artifact when there is one) | the recency walk |
//!
//! It is bounded like every block (cl100k_base, never over the budget: items go in turn, one of each
//! section per round in the order above, each cut to [`ITEM_TOKENS`]), deterministic (the same home
//! and clock give the same bytes), lexical only (no model is loaded), and it spends no turn of
//! working memory. Failing open is the hook's business (`brain hook run`), not this module's: here
//! an error is an error.

use brain_rank::Engine;
use brain_store::Config;
use jiff::Zoned;

use crate::fit::Fit;
use crate::item::{Item, Section};
pub use crate::sections::shorten;
use crate::{Block, ContextError, wm};

mod gather;
use gather::Gather;

/// Default budget of a session's briefing: about 6 KB of text, well under the 10,000 characters an
/// agent's hook output is cut at (claude-mem's issue #1899). Our choice (2026-11-26).
pub const DEFAULT_BUDGET: usize = 1_500;

/// Default budget of the per-prompt recall (`UserPromptSubmit`): a few records, every prompt.
pub const PROMPT_BUDGET: usize = 400;

/// Most tokens one item's text takes in a briefing (a record's first lines; the citation says
/// where the rest is).
pub const ITEM_TOKENS: usize = 120;

/// Most items of a section considered (the budget decides how many are shown).
const ALWAYS: usize = 8;
const DECISIONS: usize = 8;
const TASKS: usize = 3;
const CONFLICTS: usize = 3;
const FAILED: usize = 5;
const RELATED: usize = 3;
const SESSIONS: usize = 3;
const THIS_SESSION: usize = 6;

/// Records read per recency walk before keeping one per key.
const WALK: usize = 40;

/// The record types of each section (lower case, as the index keeps `type`).
pub const DECISION_TYPES: [&str; 3] = ["decision", "fact", "preference"];
pub const TASK_TYPES: [&str; 1] = ["task"];
pub const FAILED_TYPES: [&str; 2] = ["rejected", "failed"];

/// The moment a briefing is for: an agent's SessionStart `source`, or a submitted prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Moment {
    Startup,
    Resume,
    Clear,
    /// After a compaction: what it is likely to have lost comes first.
    Compact,
    /// A prompt was submitted: recall for it, within the smaller budget.
    Prompt,
}

impl Moment {
    /// A SessionStart `source` (`startup`, `resume`, `clear`, `compact`); anything else is a
    /// startup (an agent that adds a source must not lose its briefing).
    pub fn of_source(s: &str) -> Moment {
        match s {
            "resume" => Moment::Resume,
            "clear" => Moment::Clear,
            "compact" => Moment::Compact,
            _ => Moment::Startup,
        }
    }
}

/// What to brief for.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The project as a working directory (`/home/me/work/api`, `~/work/api`) or a name (`api`);
    /// `None`: every project.
    pub project: Option<String>,
    pub moment: Option<Moment>,
    /// The agent's session id (at `compact`: whose requests to carry).
    pub session: Option<String>,
    /// The submitted prompt ([`Moment::Prompt`]).
    pub prompt: Option<String>,
    /// The agent asking (`claude`, `codex`, `gemini`): the rules file it loads by itself is not
    /// briefed to it again ([`brain_store::project::RULES_FILES`]).
    pub agent: Option<String>,
    pub budget: usize,
}

/// The longest folder path a project is looked up for (Linux's `PATH_MAX`).
pub const MAX_PROJECT_PATH: usize = 4096;

/// The projects of the index `project` stands for ([`brain_rank::entity::resolve_projects`]). A
/// folder of this machine is its repository's project — with the repository's worktrees and
/// subfolders — or, in none, itself: never a parent that is not its repository (issue 59: a new
/// folder was briefed as `/tmp`). A folder not on this machine (`--project` with another
/// machine's path) is the nearest of its parents the index knows (never the home or the root).
/// The projects of the same folder name (a note saying `project: api`) come too.
pub fn projects(engine: &Engine, project: &str) -> Vec<String> {
    // Each step up re-reads the path, so the walk costs its depth times its length: past the
    // system's path limit it is no folder a session runs in (issue 58: 100,000 components took over
    // two minutes), and names no project.
    if project.len() > MAX_PROJECT_PATH {
        return Vec::new();
    }
    let known = engine.projects();
    let path = std::path::Path::new(project);
    let here = path.is_absolute() && path.is_dir();
    let (shown, name) = if here {
        let shown = brain_store::project_of(project);
        let name = std::path::Path::new(&shown)
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_string);
        (shown, name)
    } else {
        let (at, shown) = nearest_known(path, &known);
        (
            shown,
            at.file_name().and_then(|n| n.to_str()).map(str::to_string),
        )
    };
    let mut values = vec![shown];
    values.extend(name);
    // The index's projects were read once above; resolving against them reads nothing again.
    brain_rank::entity::resolve_projects(&values, &known, &engine.merged_projects())
}

/// The nearest of `path`'s parents (itself first) that `known` holds as a project, shown as
/// records name it; `path` itself when none is.
fn nearest_known<'a>(path: &'a std::path::Path, known: &[String]) -> (&'a std::path::Path, String) {
    let mut dir = Some(path);
    while let Some(d) = dir {
        let shown = brain_store::project_path(&d.display().to_string());
        // The home and the root are no project's folder: a session once started there must
        // not claim every folder under them.
        if known.contains(&shown) && shown != "~" && shown != "/" {
            return (d, shown);
        }
        dir = d.parent().filter(|p| !p.as_os_str().is_empty() && *p != d);
    }
    (path, brain_store::project_path(&path.display().to_string()))
}

/// The briefing for `req` at `now`.
pub fn brief(engine: &Engine, req: &Request, now: &Zoned) -> Result<Block, ContextError> {
    crate::check_budget(req.budget)?;
    let moment = req.moment.unwrap_or(Moment::Startup);
    let projects = req
        .project
        .as_deref()
        .map(|p| projects(engine, p))
        .unwrap_or_default();
    let task = title(req, moment, &projects);
    let store = wm::Store::open(engine.home())?;
    let working = if moment == Moment::Prompt {
        Vec::new()
    } else {
        store.items()
    };
    let defaults;
    let config = match engine.config() {
        Some(c) => c,
        None => {
            defaults = Config::defaults(engine.home());
            &defaults
        }
    };
    let g = Gather {
        engine,
        config,
        projects: &projects,
        now,
    };
    let lists = g.sections(req, moment, &working)?;
    let mut fit = Fit::new(&task, req.budget, working, now.timestamp().as_second())?;
    {
        let _t = brain_doc::timings::span("brief.fill");
        fill(lists, &mut fit);
    }
    let mut warnings = store.warnings.clone();
    if req.project.is_some() && projects.is_empty() {
        warnings.push("no project of the index matches; briefing from every project".into());
    }
    Ok(Block::of(&task, req.budget, fit.finish(), warnings))
}

/// The block's `task` attribute: what the briefing is for.
fn title(req: &Request, moment: Moment, projects: &[String]) -> String {
    let what = match moment {
        Moment::Prompt => "recall",
        Moment::Compact => "briefing after compaction",
        _ => "briefing",
    };
    match projects.first().or(req.project.as_ref()) {
        Some(p) => format!("{what}: project {p}"),
        None => what.to_string(),
    }
}

/// Share of the budget the guaranteed records (ME.md, MEMORY.md, pinned) may take before the
/// sections have theirs: they come first, but a long memory file must not starve the project's
/// decisions. Our choice (2026-11-27).
const ALWAYS_SHARE: f64 = 0.5;

/// Fill `fit`: the guaranteed records first (within [`ALWAYS_SHARE`] of the budget), then the
/// sections' items in turn — the first of each, then the second of each — so no section starves
/// the others; the block renders them grouped by section, in the order given.
fn fill(lists: Vec<(Section, Vec<Item>)>, fit: &mut Fit) {
    let mut queues: Vec<std::collections::VecDeque<Item>> = Vec::new();
    for (section, items) in lists {
        if section == Section::Always {
            let floor = (fit.left() as f64 * (1.0 - ALWAYS_SHARE)) as usize;
            for mut i in items {
                if fit
                    .left()
                    .saturating_sub(Fit::price(&mut i) + fit.heading_cost(i.section))
                    < floor
                {
                    fit.left_out.over_budget += 1;
                    continue;
                }
                fit.take_or_count(i);
            }
        } else {
            queues.push(items.into());
        }
    }
    loop {
        let mut any = false;
        for q in queues.iter_mut() {
            if let Some(item) = q.pop_front() {
                any = true;
                fit.take_or_count(item);
            }
        }
        if !any {
            break;
        }
    }
}

/// Most bytes of a task or prompt searched: its beginning says what it is about (a pasted log
/// past it adds nothing a search can use).
pub const MAX_TASK_BYTES: usize = 2_000;

/// `text` as words only, at most [`MAX_TASK_BYTES`]: a prompt is prose, never the query language —
/// its quotes, leading `-` and `name:value` pairs are not phrases, exclusions or filters.
pub fn plain_words(text: &str) -> String {
    let mut end = text.len().min(MAX_TASK_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end]
        .split(|c: char| c.is_whitespace() || c == '"' || c == ':' || c.is_control())
        .map(|w| w.trim_start_matches(['-', '+']))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` as a briefing item shows it: a record's own headings become bold lines (they would read
/// as sections of the briefing) and blank lines outside code go (room for what is said); code is
/// kept as it is.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (raw, line, class) in brain_doc::blocks::Lines::new(text) {
        match class {
            brain_doc::blocks::Class::Blank => continue,
            // `[image]` and its kind say nothing in a briefing.
            brain_doc::blocks::Class::Text if brain_doc::title::is_placeholder(line) => continue,
            brain_doc::blocks::Class::Heading { text, .. } => {
                out.push_str(&format!("**{}**\n", text.trim()));
            }
            _ => {
                out.push_str(line);
                if raw.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_headings_and_blank_lines_do_not_break_the_briefing() {
        let text = "## Conversation\n\n**User**: hi\n\n```sh\n\n# not a heading\n```\n";
        assert_eq!(
            compact(text),
            "**Conversation**\n**User**: hi\n```sh\n\n# not a heading\n```"
        );
    }

    #[test]
    fn placeholders_say_nothing_in_a_briefing() {
        let text = "**User**: the timeline shows both groups\n[image]\n[Image #2]\n- [x] done\n[docs](https://x.example/a)";
        assert_eq!(
            compact(text),
            "**User**: the timeline shows both groups\n- [x] done\n[docs](https://x.example/a)"
        );
    }

    #[test]
    fn prompts_are_words_not_query_syntax() {
        assert_eq!(
            plain_words("collection:nope \"quoted -x +y\nz"),
            "collection nope quoted x y z"
        );
        let long = "é".repeat(3000);
        assert!(plain_words(&long).len() <= MAX_TASK_BYTES);
    }
}
