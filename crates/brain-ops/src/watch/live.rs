//! The watching itself: the OS's watcher (or a polling one), the folders watched, and the
//! changes waiting for a batch — coalesced until they settle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use super::run::Runner;
use super::{Batch, Note, Options, Target, Targets, WatchError};

type Root = (PathBuf, RecursiveMode, Target);

/// The most queued events taken in one go (then the loop looks at the clock again).
const MAX_DRAIN: usize = 100_000;

type Events = mpsc::Receiver<notify::Result<notify::Event>>;

/// The OS's watcher, or a polling one.
pub(super) fn watcher(
    poll: Option<Duration>,
) -> Result<(Box<dyn Watcher + Send>, Events, String), WatchError> {
    let (tx, rx) = mpsc::channel();
    // Links are not followed: a link to `/` or a loop inside a notes folder must not put the
    // whole disk under watch (collections do not follow them either, unless asked).
    let config = notify::Config::default().with_follow_symlinks(false);
    let err = |e: notify::Error| WatchError::Notify(e.to_string());
    let w: Box<dyn Watcher + Send> = match poll {
        Some(every) => {
            Box::new(notify::PollWatcher::new(tx, config.with_poll_interval(every)).map_err(err)?)
        }
        None => Box::new(notify::RecommendedWatcher::new(tx, config).map_err(err)?),
    };
    let how = match poll {
        Some(d) => format!("polling every {:.1} s", d.as_secs_f64()),
        None => "events".into(),
    };
    Ok((w, rx, how))
}

/// What is watched and what waits for a batch.
pub(super) struct Live<'a> {
    find: &'a dyn Fn() -> Targets,
    opts: &'a Options,
    w: Box<dyn Watcher + Send>,
    rx: Events,
    /// `events`, or `polling every N s`.
    pub(super) how: String,
    pub(super) targets: Targets,
    roots: Vec<Root>,
    pub(super) watched: BTreeSet<PathBuf>,
    /// Targets changed since their last batch, with the count of paths.
    dirty: BTreeMap<Target, usize>,
    /// The first change waiting, and the last one.
    first: Option<Instant>,
    last: Instant,
    rescanned: Instant,
    refreshed: Instant,
}

impl<'a> Live<'a> {
    /// Watch what `find` gives; at the OS's watch limit, poll instead (and say so). Every target
    /// waits for the first batch: the start catches up with what changed while nobody watched.
    pub(super) fn start(
        find: &'a dyn Fn() -> Targets,
        opts: &'a Options,
        note: &dyn Fn(&Note),
    ) -> Result<Live<'a>, WatchError> {
        let targets = find();
        let roots = targets.roots();
        if roots.is_empty() {
            return Err(WatchError::Nothing);
        }
        let polling = opts.poll.unwrap_or(Duration::from_secs(2));
        // No OS events at all (inotify instances used up, a kernel without them): poll.
        let (mut w, mut rx, mut how) = match watcher(opts.poll) {
            Ok(x) => x,
            Err(e) if opts.poll.is_none() => {
                note(&Note::Fallback {
                    reason: format!("the OS's file events are not available: {e}"),
                });
                watcher(Some(polling))?
            }
            Err(e) => return Err(e),
        };
        let mut watched = BTreeSet::new();
        if let Some(reason) = rewatch(w.as_mut(), &roots, &mut watched) {
            note(&Note::Fallback { reason });
            (w, rx, how) = watcher(Some(polling))?;
            watched.clear();
            rewatch(w.as_mut(), &roots, &mut watched);
        }
        let now = Instant::now();
        Ok(Live {
            find,
            opts,
            w,
            rx,
            how,
            dirty: targets.all().into_iter().map(|t| (t, 0)).collect(),
            targets,
            roots,
            watched,
            first: Some(now),
            last: now.checked_sub(opts.settle).unwrap_or(now),
            rescanned: now,
            refreshed: now,
        })
    }

    /// Wait for the next batch: the targets due, once their changes settled (no event for
    /// `settle`, or `max_wait` after the first — four times that when only collections wait).
    pub(super) fn next(
        &mut self,
        run: &Runner<'_>,
        note: &dyn Fn(&Note),
    ) -> Result<Vec<(Target, usize)>, WatchError> {
        loop {
            let due: Vec<(Target, usize)> = self
                .dirty
                .iter()
                .filter(|(t, _)| run.due(**t))
                .map(|(t, n)| (*t, *n))
                .collect();
            // A growing transcript runs within `max_wait` whatever still comes; files in
            // collections wait four times as long for quiet, so a checkout of thousands of files
            // (4 s for 10,000 on this 2-core VM) is one batch.
            let cap = if due.iter().all(|(t, _)| *t == Target::Collections) {
                self.opts.max_wait * 4
            } else {
                self.opts.max_wait
            };
            let settled = self.last.elapsed() >= self.opts.settle
                || self.first.is_some_and(|f| f.elapsed() >= cap);
            if !due.is_empty() && settled {
                return Ok(due);
            }
            // Nothing due (or a browser waiting for its turn): sleep until the next look.
            let wait = if due.is_empty() {
                self.opts.rescan.min(self.opts.refresh)
            } else {
                self.opts.settle.saturating_sub(self.last.elapsed())
            };
            self.receive(wait.max(Duration::from_millis(10)), note)?;
            self.maintain();
        }
    }

    /// The batch for `due` ran: they wait no more, unless they failed (the index locked by a
    /// bulk run, say: they run again next time).
    pub(super) fn finished(&mut self, due: &[(Target, usize)], batch: &Batch) {
        for (t, _) in due {
            self.dirty.remove(t);
            let name = self.targets.name(*t);
            if batch.failed.iter().any(|f| f.starts_with(&name)) {
                self.dirty.entry(*t).or_default();
            }
        }
        self.first = (!self.dirty.is_empty()).then(Instant::now);
    }

    /// The events that came within `wait` — the first waited for, then every one already queued
    /// (a read storm in a watched folder is thousands of opens a second: they are taken in one
    /// go, not one loop each) — noted in `dirty`.
    fn receive(&mut self, wait: Duration, note: &dyn Fn(&Note)) -> Result<(), WatchError> {
        let first = match self.rx.recv_timeout(wait) {
            Ok(e) => e,
            Err(mpsc::RecvTimeoutError::Timeout) => return Ok(()),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(WatchError::Notify("the event channel closed".into()));
            }
        };
        let mut changed: Vec<Target> = Vec::new();
        let queued = std::iter::from_fn(|| self.rx.try_recv().ok()).take(MAX_DRAIN);
        for event in std::iter::once(first).chain(queued) {
            match event {
                // Reads (the stages' own opens and closes) change nothing.
                Ok(e) if matches!(e.kind, notify::EventKind::Access(_)) => {}
                Ok(e) => {
                    changed.extend(e.paths.iter().filter_map(|p| self.targets.classify(p)));
                    if e.need_rescan() {
                        // The OS dropped events (its queue overflowed): every target runs.
                        changed.extend(self.targets.all());
                    }
                }
                Err(e) => note(&Note::Warning {
                    message: format!("file events: {e}"),
                }),
            }
        }
        self.mark(&changed);
        Ok(())
    }

    fn mark(&mut self, changed: &[Target]) {
        for t in changed {
            *self.dirty.entry(*t).or_default() += 1;
        }
        if !changed.is_empty() {
            self.last = Instant::now();
            self.first.get_or_insert(self.last);
        }
    }

    /// Every `refresh`, the targets found again (an agent installed, a collection added: every
    /// target runs, since their numbering may have moved); every `rescan`, roots removed
    /// forgotten and roots (re)created watched, their targets run.
    fn maintain(&mut self) {
        if self.refreshed.elapsed() >= self.opts.refresh {
            self.refreshed = Instant::now();
            let now = (self.find)();
            let roots = now.roots();
            if roots != self.roots {
                for (path, _, _) in &self.roots {
                    if !roots.iter().any(|(p, _, _)| p == path) && self.watched.remove(path) {
                        let _ = self.w.unwatch(path);
                    }
                }
                (self.targets, self.roots) = (now, roots);
                let all: Vec<Target> = self.targets.all().into_iter().collect();
                self.dirty.clear();
                rewatch(self.w.as_mut(), &self.roots, &mut self.watched);
                self.mark(&all);
            }
        }
        if self.rescanned.elapsed() >= self.opts.rescan {
            self.rescanned = Instant::now();
            let again = rescan(self.w.as_mut(), &self.roots, &mut self.watched);
            self.mark(&again);
        }
    }
}

/// Watch every root that exists and is not watched yet; the first refusal that is the OS's
/// limit is returned (the caller polls instead).
fn rewatch(w: &mut dyn Watcher, roots: &[Root], watched: &mut BTreeSet<PathBuf>) -> Option<String> {
    for (path, mode, _) in roots {
        if watched.contains(path) || !path.exists() {
            continue;
        }
        match w.watch(path, *mode) {
            Ok(()) => {
                watched.insert(path.clone());
            }
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                return Some(format!(
                    "the OS's limit of file watches was reached at {} ({e}); raise fs.inotify.max_user_watches to use events",
                    path.display()
                ));
            }
            Err(_) => {}
        }
    }
    None
}

/// Roots removed since the last look are forgotten, roots (re)created are watched again; the
/// targets of both run (what changed in between is caught up).
fn rescan(w: &mut dyn Watcher, roots: &[Root], watched: &mut BTreeSet<PathBuf>) -> Vec<Target> {
    let mut out = Vec::new();
    for (path, _, t) in roots {
        if watched.contains(path) && !path.exists() {
            let _ = w.unwatch(path);
            watched.remove(path);
            out.push(*t);
        }
    }
    let before = watched.len();
    rewatch(w, roots, watched);
    if watched.len() != before {
        out.extend(
            roots
                .iter()
                .filter(|(p, _, _)| watched.contains(p))
                .map(|(_, _, t)| *t),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// An OS watcher that takes `room` watches, then answers as inotify does at its limit.
    struct Limited {
        room: usize,
        watched: Vec<PathBuf>,
    }

    impl Watcher for Limited {
        fn new<F: notify::EventHandler>(_: F, _: notify::Config) -> notify::Result<Self> {
            Ok(Limited {
                room: 0,
                watched: Vec::new(),
            })
        }
        fn watch(&mut self, path: &Path, _: RecursiveMode) -> notify::Result<()> {
            if self.watched.len() >= self.room {
                return Err(notify::Error::new(notify::ErrorKind::MaxFilesWatch));
            }
            self.watched.push(path.to_path_buf());
            Ok(())
        }
        fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
            self.watched.retain(|p| p != path);
            Ok(())
        }
        fn kind() -> notify::WatcherKind {
            notify::WatcherKind::NullWatcher
        }
    }

    #[test]
    fn the_watch_limit_is_said_and_what_fit_stays_watched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let roots: Vec<Root> = ["a", "b", "c"]
            .iter()
            .map(|n| {
                let p = dir.path().join(n);
                std::fs::create_dir_all(&p).expect("mkdir");
                (p, RecursiveMode::Recursive, Target::Collections)
            })
            .collect();
        let mut w = Limited {
            room: 2,
            watched: Vec::new(),
        };
        let mut watched = BTreeSet::new();
        let why = rewatch(&mut w, &roots, &mut watched).expect("the limit is reported");
        assert!(
            why.contains("limit of file watches") && why.contains("/c"),
            "{why}"
        );
        assert!(why.contains("fs.inotify.max_user_watches"), "{why}");
        assert_eq!(watched.len(), 2);
        // With room for all (as the polling watcher has), nothing is reported.
        let mut w = Limited {
            room: 10,
            watched: Vec::new(),
        };
        let mut watched = BTreeSet::new();
        assert_eq!(rewatch(&mut w, &roots, &mut watched), None);
        assert_eq!(watched.len(), 3);
        // A folder gone and one created: both targets run again, the new one watched.
        std::fs::remove_dir_all(&roots[0].0).expect("rm");
        let again = rescan(&mut w, &roots, &mut watched);
        assert_eq!(again, [Target::Collections]);
        assert!(!watched.contains(&roots[0].0));
    }
}
