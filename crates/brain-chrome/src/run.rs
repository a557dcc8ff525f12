//! One run: for each profile, snapshot its History, decide which days to emit (all, `--since`, or the
//! days that gained visits since the state's last visit id), stream the visits in time order through
//! the policy into days, and emit each finished day as a doc record or a markdown file.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use brain_store::{Lock, display_path};
use jiff::civil::Date;
use jiff::tz::TimeZone;

use crate::clock::Clock;
use crate::days::Day;
use crate::engines::engine;
use crate::error::ChromeError;
use crate::policy::{Policy, SearchCut, VisitCut};
use crate::profiles::Profile;
use crate::read::{self, Extras, Visit};
use crate::snapshot::{Snapshot, classify};
use crate::state::{ProfileState, State};
use crate::stats::Stats;
use crate::{render, schema, urls};

/// The core type of a page transition for automatic sub-frame loads (ads, embeds).
/// Source: Chromium ui/base/page_transition_types.h, `PAGE_TRANSITION_AUTO_SUBFRAME = 3`, core mask 0xFF.
const AUTO_SUBFRAME: i64 = 3;

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The profiles to read.
    pub profiles: Vec<Profile>,
    /// What to keep.
    pub policy: Policy,
    /// The zone days are cut in.
    pub tz: TimeZone,
    /// Only days on or after this date.
    pub since: Option<Date>,
    /// The state file (None: `--no-state`, every selected day is emitted and nothing is remembered).
    pub state: Option<PathBuf>,
    /// The lock held while the state is read and written.
    pub lock: PathBuf,
    /// A folder for persistent per-profile snapshots (used only while the state lock is held), or
    /// None for a fresh temp copy every run.
    pub snapshots: Option<PathBuf>,
    /// Write `DIR/<date>.md` (or `DIR/<profile-slug>/<date>.md` for several profiles) instead of NDJSON.
    pub out_dir: Option<PathBuf>,
}

/// Run: emit the selected days of every profile to `out` (NDJSON) or `opts.out_dir`, report odd rows
/// and per-profile failures through `warn`, and return the counts. With several profiles, a profile
/// that fails is reported and skipped; the run fails only if every profile failed.
pub fn run(opts: &Options, out: &mut dyn Write, warn: &dyn Fn(&str)) -> Result<Stats, ChromeError> {
    let _lock = match &opts.state {
        Some(_) => Some(Lock::try_acquire(&opts.lock)?),
        None => None,
    };
    let mut state = match &opts.state {
        Some(p) => State::load(p)?,
        None => State::default(),
    };
    if let (Some(dir), Some(_)) = (&opts.snapshots, &_lock) {
        prune_snapshots(dir, warn);
    }
    let mut stats = Stats::default();
    let mut first_err = None;
    let several = opts.profiles.len() > 1;
    for profile in &opts.profiles {
        // A page torn by a browser writing while we copied shows up as corruption when read: take
        // the snapshot again (its output was staged, its counts are restored).
        let mut attempt = 0;
        let outcome = loop {
            attempt += 1;
            let before = stats.clone();
            match profile_run(opts, profile, &mut state, several, out, warn, &mut stats) {
                Err(ChromeError::Copy(brain_store::sqlite_copy::CopyError::Corrupt { .. }))
                    if attempt < crate::snapshot::ATTEMPTS =>
                {
                    stats = before;
                    crate::snapshot::backoff(attempt);
                }
                other => break other,
            }
        };
        match outcome {
            Ok(()) => stats.profiles += 1,
            Err(e) if !several || e.is_broken_pipe() => return Err(e),
            Err(e) => {
                warn(&format!("skipping {}: {e}", display_path(&profile.history)));
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err.filter(|_| stats.profiles == 0) {
        return Err(e);
    }
    out.flush().map_err(ChromeError::Output)?;
    if let Some(p) = &opts.state {
        state.save(p)?;
    }
    Ok(stats)
}

/// Snapshot folders not refreshed for this long belong to profiles no run reads any more (a
/// removed profile, a `--history` given once): they hold a full copy of a browser history each.
const SNAPSHOT_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

/// Delete the persistent snapshots whose copy is older than [`SNAPSHOT_MAX_AGE`] (run under the
/// lock, so no other run is using one).
fn prune_snapshots(dir: &std::path::Path, warn: &dyn Fn(&str)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let copied = std::fs::metadata(path.join("History"))
            .or_else(|_| std::fs::metadata(&path))
            .and_then(|m| m.modified());
        let stale = copied
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > SNAPSHOT_MAX_AGE);
        if stale
            && path.is_dir()
            && let Err(err) = std::fs::remove_dir_all(&path)
        {
            warn(&format!(
                "{}: pruning an old snapshot: {err}",
                path.display()
            ));
        }
    }
}

fn profile_run(
    opts: &Options,
    profile: &Profile,
    state: &mut State,
    several: bool,
    out: &mut dyn Write,
    warn: &dyn Fn(&str),
    stats: &mut Stats,
) -> Result<(), ChromeError> {
    let path = profile.history.as_path();
    let shown = display_path(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let reuse = match (&opts.snapshots, &opts.state) {
        (Some(dir), Some(_)) => {
            let key = brain_doc::sha256_hex(shown.as_bytes());
            Some(dir.join(format!("{}-{}", profile.slug(), &key[..8])))
        }
        _ => None,
    };
    let snap = Snapshot::open(path, reuse.as_deref())?;
    let schema = schema::detect(&snap.conn, path)?;
    let parts: Vec<String> = snap.parts.iter().map(|p| display_path(p)).collect();
    let max_id: Option<i64> = snap
        .conn
        .query_row("SELECT max(id) FROM visits", [], |r| r.get(0))
        .map_err(|e| classify(path, &e))?;
    let mut clock = Clock::new(opts.tz.clone());
    let since_us = opts.since.and_then(|d| clock.bounds(d)).map(|(lo, _)| lo);
    let last = state
        .profiles
        .get(&shown)
        .map(|p| p.last_visit_id)
        .filter(|&l| max_id.is_some_and(|m| m >= l));
    let ranges = match last {
        Some(l) => changed_ranges(&snap.conn, path, &mut clock, l, opts.since)?,
        None => vec![(since_us.unwrap_or(i64::MIN), i64::MAX)],
    };
    let dir = opts.out_dir.as_ref().map(|d| {
        if several {
            d.join(profile.slug())
        } else {
            d.clone()
        }
    });
    let mut days = Days {
        profile,
        shown: &shown,
        parts: &parts,
        version: schema.version,
        staged: match &dir {
            Some(_) => None,
            None => Some(std::io::BufWriter::new(
                tempfile::tempfile().map_err(ChromeError::Output)?,
            )),
        },
        dir,
    };
    let odd = std::cell::Cell::new(0u64);
    let said = |id: i64, reason: String| {
        odd.set(odd.get() + 1);
        warn(&format!("{shown}: visit {id}: {reason}"));
    };
    let read = Reading {
        snap: &snap,
        path,
        schema: &schema,
        policy: &opts.policy,
        shown: &shown,
        warn,
        said: &said,
    };
    let mut verdicts = Verdicts::new();
    for range in ranges {
        read.range(range, &mut clock, &mut days, &mut verdicts, stats)?;
    }
    read::unplaceable(&snap.conn, path, last, said)?;
    stats.odd += odd.get();
    days.flush_to(out)?;
    if let Some(m) = max_id {
        let entry = ProfileState {
            browser: profile.browser.id().into(),
            profile: profile.name.clone(),
            last_visit_id: m,
        };
        state.profiles.insert(shown, entry);
    }
    Ok(())
}

/// Where a profile's days go: files of `dir`, or NDJSON staged in an anonymous temp file (0600,
/// gone with the process) and copied to the output only when the whole profile was read: a run
/// that fails midway (a torn page) prints no partial days.
struct Days<'a> {
    profile: &'a Profile,
    shown: &'a str,
    parts: &'a [String],
    version: Option<i64>,
    dir: Option<PathBuf>,
    staged: Option<std::io::BufWriter<std::fs::File>>,
}

impl Days<'_> {
    /// One day's document (an empty day is none).
    fn emit(&mut self, day: &Day, clock: &Clock, stats: &mut Stats) -> Result<(), ChromeError> {
        if day.is_empty() {
            return Ok(());
        }
        let doc = render::doc(
            self.profile,
            day,
            clock,
            self.shown,
            self.parts,
            self.version,
        );
        stats.days += 1;
        match &self.dir {
            Some(d) => {
                let file = d.join(format!("{}.md", day.date));
                brain_doc::atomic::write(&file, doc.to_markdown().as_bytes())
                    .map_err(|source| ChromeError::Write { path: file, source })
            }
            None => {
                let Some(w) = self.staged.as_mut() else {
                    return Ok(());
                };
                serde_json::to_writer(&mut *w, &doc).map_err(|e| ChromeError::Output(e.into()))?;
                w.write_all(b"\n").map_err(ChromeError::Output)
            }
        }
    }

    /// The staged NDJSON, copied to `out` (nothing for days written as files).
    fn flush_to(self, out: &mut dyn Write) -> Result<(), ChromeError> {
        use std::io::{Seek, SeekFrom};
        let Some(w) = self.staged else {
            return Ok(());
        };
        let mut f = w
            .into_inner()
            .map_err(|e| ChromeError::Output(e.into_error()))?;
        f.seek(SeekFrom::Start(0)).map_err(ChromeError::Output)?;
        std::io::copy(&mut f, out).map_err(ChromeError::Output)?;
        Ok(())
    }
}

/// What reading one profile's visits needs.
struct Reading<'a> {
    snap: &'a Snapshot,
    path: &'a Path,
    schema: &'a schema::Schema,
    policy: &'a Policy,
    shown: &'a str,
    warn: &'a dyn Fn(&str),
    /// A visit that cannot be read: its id and why (counted as odd).
    said: &'a dyn Fn(i64, String),
}

impl Reading<'_> {
    /// The visits of one time range, day by day, judged by the policy; each finished day emitted.
    fn range(
        &self,
        range: (i64, i64),
        clock: &mut Clock,
        days: &mut Days<'_>,
        verdicts: &mut Verdicts,
        stats: &mut Stats,
    ) -> Result<(), ChromeError> {
        let Some(ids) = read::id_range(&self.snap.conn, self.path, range)? else {
            return Ok(());
        };
        let extras = read::extras(&self.snap.conn, self.path, self.schema, ids)?;
        let mut day: Option<Day> = None;
        read::visits(
            &self.snap.conn,
            self.path,
            self.schema,
            range,
            |v| {
                stats.visits_read += 1;
                let Some(date) = clock.day(v.time) else {
                    stats.odd += 1;
                    (self.warn)(&format!(
                        "{}: visit {}: impossible visit_time {} (not a time between 1990 and a year from now)",
                        self.shown, v.id, v.time
                    ));
                    return Ok(());
                };
                if day.as_ref().is_none_or(|d| d.date != date) {
                    if let Some(done) = day.take() {
                        days.emit(&done, clock, stats)?;
                    }
                    day = Some(Day::new(date));
                }
                if let Some(d) = day.as_mut() {
                    keep_visit(self.policy, &extras, verdicts, &v, d, stats);
                }
                Ok(())
            },
            |id, reason| (self.said)(id, reason),
        )?;
        if let Some(done) = day.take() {
            days.emit(&done, clock, stats)?;
        }
        Ok(())
    }
}

/// A kept URL row, as the policy left it.
struct Page {
    clean: String,
    host: String,
    domain: String,
    stripped: usize,
}

/// The policy's verdict per `urls.id`: URL and title belong to the URL row, and visits repeat URLs
/// (a real history has ~5 visits per URL), so each row is judged once.
type Verdicts = HashMap<i64, Result<Page, VisitCut>>;

fn judge_page(policy: &Policy, v: &Visit) -> Result<Page, VisitCut> {
    let parts = urls::parts(&v.url).ok_or(VisitCut::Internal)?;
    let (clean, stripped) = urls::strip_tracking(&v.url, &policy.strip_params);
    policy.judge_visit(&clean, &parts, &v.title)?;
    Ok(Page {
        clean: clean.into_owned(),
        host: parts.host.to_string(),
        domain: urls::display_domain(parts.host),
        stripped,
    })
}

/// Run one visit through the policy into `day`, with its searches and topics.
fn keep_visit(
    policy: &Policy,
    x: &Extras,
    verdicts: &mut Verdicts,
    v: &Visit,
    day: &mut Day,
    stats: &mut Stats,
) {
    if v.transition & 0xFF == AUTO_SUBFRAME {
        stats.subframe += 1;
        return;
    }
    let verdict = verdicts
        .entry(v.url_id)
        .or_insert_with(|| judge_page(policy, v));
    let page = match verdict {
        Ok(p) => p,
        Err(cut) => {
            stats.visit_cut(*cut);
            return;
        }
    };
    // A results page whose terms are injected or NSFW goes with its search: its title and URL carry
    // the same text.
    let mut searches = Vec::new();
    let terms = [x.search_by_url.get(&v.url_id), x.search_by_visit.get(&v.id)];
    for term in terms.into_iter().flatten() {
        match policy.judge_search(term) {
            Ok(t) => searches.push(t),
            Err(cut) => {
                stats.search_cut(cut);
                if matches!(cut, SearchCut::Injected | SearchCut::Nsfw) {
                    stats.junk_search_pages += 1;
                    return;
                }
            }
        }
    }
    stats.params_stripped += page.stripped as u64;
    stats.visits_kept += 1;
    day.visit(v.time, &page.domain, &v.title, &page.clean);
    for t in searches {
        if day.search(v.time, &engine(&page.host), &t) {
            stats.searches += 1;
        } else {
            stats.search_duplicate += 1;
        }
    }
    for cid in x.clusters_by_visit.get(&v.id).into_iter().flatten() {
        if let Some(t) = x.topics.get(cid) {
            day.topic(*cid, &t.label, &t.keywords);
        }
    }
}

/// The time ranges of the days holding visits with id > `last` (on or after `since`), consecutive
/// days merged.
fn changed_ranges(
    conn: &rusqlite::Connection,
    path: &Path,
    clock: &mut Clock,
    last: i64,
    since: Option<Date>,
) -> Result<Vec<(i64, i64)>, ChromeError> {
    let mut days = BTreeSet::new();
    let mut stmt = conn
        .prepare("SELECT visit_time FROM visits WHERE id > ?1")
        .map_err(|e| classify(path, &e))?;
    let mut rows = stmt.query([last]).map_err(|e| classify(path, &e))?;
    while let Some(r) = rows.next().map_err(|e| classify(path, &e))? {
        if let Some(d) = r.get::<_, i64>(0).ok().and_then(|t| clock.day(t)) {
            days.insert(d);
        }
    }
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for d in days.into_iter().filter(|d| since.is_none_or(|s| *d >= s)) {
        let Some((lo, hi)) = clock.bounds(d) else {
            continue;
        };
        match ranges.last_mut() {
            Some(r) if r.1 == lo => r.1 = hi,
            _ => ranges.push((lo, hi)),
        }
    }
    Ok(ranges)
}
