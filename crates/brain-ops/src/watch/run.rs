//! A batch: the stages of each target that changed, the sessions' decisions, and embeddings in
//! the background.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use brain_store::Home;

use super::{Batch, Options, Target, Targets, now_rfc3339};
use crate::import::Imported;

/// Runs batches: the stages, the extraction's pass, and embeddings in the background.
pub(super) struct Runner<'a> {
    pub(super) home: &'a Home,
    pub(super) opts: &'a Options,
    pub(super) locate: &'a dyn Fn(&str) -> Option<PathBuf>,
    pub(super) embedding: Option<Child>,
    pub(super) browser_ran: BTreeMap<usize, Instant>,
}

impl Runner<'_> {
    /// A browser's History is read at most once per `browser_every`.
    pub(super) fn due(&self, t: Target) -> bool {
        match t {
            Target::Browser(i) => self
                .browser_ran
                .get(&i)
                .is_none_or(|at| at.elapsed() >= self.opts.browser_every),
            _ => true,
        }
    }

    pub(super) fn batch(&mut self, targets: &Targets, due: &[(Target, usize)]) -> Batch {
        let started = Instant::now();
        let mut batch = Batch {
            ts: now_rfc3339(),
            targets: due.iter().map(|(t, _)| targets.name(*t)).collect(),
            changed: due.iter().map(|(_, n)| n).sum(),
            indexed: 0,
            secs: 0.0,
            failed: Vec::new(),
            warnings: Vec::new(),
        };
        let mut sessions = false;
        for (t, _) in due {
            let source = match *t {
                Target::Agent(i) => {
                    sessions = true;
                    targets.agents.get(i)
                }
                Target::Browser(i) => {
                    self.browser_ran.insert(i, Instant::now());
                    targets.browsers.get(i)
                }
                Target::Collections => {
                    match self.collections() {
                        Ok(n) => batch.indexed += n,
                        Err(e) => batch.failed.push(format!("collections: {e}")),
                    }
                    continue;
                }
            };
            let Some(source) = source else { continue };
            let done: Imported = crate::import::import_source(self.home, source, self.locate);
            batch.indexed += done.added + done.updated;
            if done.code != 0 {
                batch
                    .failed
                    .push(format!("{}: {}", source.name, done.outcome));
            }
        }
        if sessions {
            let memory = crate::import::memory(self.home);
            if memory.code != 0 {
                batch
                    .warnings
                    .push(format!("decisions: {}", memory.outcome));
            }
        }
        self.embed();
        batch.secs = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        batch
    }

    /// `lexindex --all`: the collections as they are on disk. Waits a little for a run holding
    /// the index; past that the target stays dirty.
    fn collections(&self) -> Result<u64, String> {
        let lexindex = (self.locate)("lexindex").ok_or("lexindex not found")?;
        let out = Command::new(lexindex)
            .args(["--all", "--json", "-q", "--wait", "10"])
            .env("BRAIN_HOME", self.home.root())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            let err = brain_doc::bytes::lossy(&out.stderr);
            return Err(format!(
                "lexindex exited {}: {}",
                out.status.code().unwrap_or(99),
                err.lines().last().unwrap_or_default()
            ));
        }
        let v: serde_json::Value = brain_doc::bytes::lossy(&out.stdout)
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_default();
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        Ok(n("added") + n("updated") + n("removed"))
    }

    /// `vecindex --all --budget` at the lowest priority, in the background, one at a time; only
    /// when a model is installed.
    fn embed(&mut self) {
        let Some(budget) = self.opts.embed_budget else {
            return;
        };
        if let Some(child) = &mut self.embedding {
            if matches!(child.try_wait(), Ok(None)) {
                return;
            }
            self.embedding = None;
        }
        if !crate::import::model_installed(self.home) {
            return;
        }
        let Some(vecindex) = (self.locate)("vecindex") else {
            return;
        };
        let mut cmd = Command::new("nice");
        cmd.args(["-n", "19"])
            .arg(vecindex)
            .args(["--all", "-q", "--budget"])
            .arg(budget.as_secs().max(1).to_string())
            .env("BRAIN_HOME", self.home.root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.embedding = cmd.spawn().ok();
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        // The embedding run is safe to stop (its writes are atomic); it is not left behind.
        if let Some(mut c) = self.embedding.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
