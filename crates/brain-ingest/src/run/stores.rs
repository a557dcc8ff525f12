//! The stores of many sessions a run reads (Cursor's and OpenCode's databases, OpenCode's old
//! tree, Aider's chat histories): each read whole unless `--new` finds its files unchanged, each
//! conversation written unless an earlier store holds it.

use std::path::Path;

use super::{Pass, RunError};
use crate::discover::Store;
use crate::many::Read;
use crate::session::Agent;
use crate::state;

/// The agent of a store, and what it holds.
fn read_store(
    store: &Store,
    known: crate::cursor::ide::Known<'_>,
) -> (Agent, Result<Read, String>) {
    match store {
        Store::CursorIde {
            globals,
            workspaces,
        } => {
            let mut ws = crate::cursor::ide::Workspaces::default();
            let mut all = Read::default();
            for w in workspaces {
                match crate::cursor::ide::read_workspace(w, &mut ws) {
                    Ok(r) => merge(&mut all, in_file(w, r)),
                    Err(e) => all.unreadable.push(at(w, e)),
                }
            }
            for g in globals {
                match crate::cursor::ide::read_global(g, &ws, known).map(|r| in_file(g, r)) {
                    Ok(r) => {
                        // The global database's composer wins over an old inline copy.
                        let ids: std::collections::HashSet<&String> = r
                            .conversations
                            .iter()
                            .map(|c| &c.id)
                            .chain(&r.unchanged)
                            .collect();
                        all.conversations.retain(|c| !ids.contains(&c.id));
                        merge(&mut all, r);
                    }
                    // The workspaces' conversations are still read.
                    Err(e) => all.unreadable.push(at(g, e)),
                }
            }
            (Agent::Cursor, Ok(all))
        }
        Store::CursorAgent(db) => {
            let mut r = Read::default();
            let out = crate::cursor::cli::read(db, &mut r.issues).map(|c| {
                match c {
                    Some(c) => r.conversations.push(c),
                    None => r.empty += 1,
                }
                r
            });
            (Agent::Cursor, out.map_err(|e| at(db, e)))
        }
        Store::OpenCodeDb(db) => (
            Agent::OpenCode,
            crate::opencode::read_db(db).map_err(|e| at(db, e)),
        ),
        Store::OpenCodeTree(root) => (Agent::OpenCode, Ok(crate::opencode::read_tree(root))),
        Store::Aider(p) => (Agent::Aider, crate::aider::read(p)),
    }
}

/// `e` said of `path` (once: a snapshot's own errors already name it).
fn at(path: &std::path::Path, e: String) -> String {
    let p = path.display().to_string();
    if e.starts_with(&p) {
        e
    } else {
        format!("{p}: {e}")
    }
}

/// `r`'s issues and unreadable parts said of the database they are in.
fn in_file(path: &std::path::Path, mut r: Read) -> Read {
    r.issues = r.issues.into_iter().map(|i| at(path, i)).collect();
    r.unreadable = r.unreadable.into_iter().map(|i| at(path, i)).collect();
    r
}

fn merge(all: &mut Read, r: Read) {
    all.conversations.extend(r.conversations);
    all.empty += r.empty;
    all.issues.extend(r.issues);
    all.unchanged.extend(r.unchanged);
    all.unreadable.extend(r.unreadable);
}

impl Pass<'_, '_> {
    /// Read one store (unless `--new` finds its files unchanged), write each conversation that is
    /// new or changed; `held` gets the ids of every conversation it holds. Whether the state
    /// changed.
    pub(super) fn store(&mut self, store: &Store) -> Result<bool, RunError> {
        let key = store.key();
        let stats = state::stat_paths(&store.files());
        if self.opts.only_new
            && let Some(st) = self.state.as_ref()
            && st.entry(&key).is_some_and(|e| e.files == stats)
        {
            self.held.extend(st.ids_under(&key));
            return Ok(false);
        }
        let known = |id: &str, fingerprint: &str| {
            self.opts.only_new
                && self
                    .state
                    .as_ref()
                    .and_then(|st| st.entry(&format!("{key}#{id}")))
                    .is_some_and(|e| e.fingerprint == fingerprint)
        };
        let (agent, read) = read_store(store, &known);
        let read = match read {
            Ok(r) => r,
            Err(e) => {
                self.sum.unreadable += 1;
                (self.warn)(e);
                return Ok(false);
            }
        };
        self.sum.bytes += stats.iter().map(|s| s.2).sum::<u64>();
        self.count_read(agent, &read);
        let mut dirty = false;
        let file = std::path::PathBuf::from(&key);
        for c in &read.conversations {
            dirty |= self.conversation(agent, &key, &file, c)?;
        }
        // A store read in part is read again next time, not skipped as unchanged.
        if let Some(st) = self.state.as_mut().filter(|_| read.unreadable.is_empty()) {
            st.record_key(
                key.clone(),
                state::Entry {
                    files: stats,
                    fingerprint: String::new(),
                    id: String::new(),
                },
            );
            dirty = true;
        }
        Ok(dirty)
    }

    /// What a store read said besides its conversations: empty ones (sessions that yield
    /// nothing, as an empty transcript), malformed records, unreadable parts, unchanged ones.
    fn count_read(&mut self, agent: Agent, read: &Read) {
        let (warn, sum) = (self.warn, &mut self.sum);
        sum.sessions += read.empty;
        sum.empty += read.empty;
        for i in &read.issues {
            sum.malformed_lines += 1;
            warn(i.clone());
        }
        for e in &read.unreadable {
            sum.unreadable += 1;
            warn(e.clone());
        }
        for id in &read.unchanged {
            sum.sessions += 1;
            sum.unchanged += 1;
            self.held.insert(agent.doc_id(None, Some(id), ""));
        }
    }

    /// One conversation of the store at `key`: written unless an earlier store holds it or `--new`
    /// finds it unchanged. Whether the state changed.
    fn conversation(
        &mut self,
        agent: Agent,
        key: &str,
        file: &Path,
        c: &crate::many::Conversation,
    ) -> Result<bool, RunError> {
        self.sum.sessions += 1;
        let ckey = format!("{key}#{}", c.id);
        let id = agent.doc_id(None, Some(&c.id), "");
        if !self.held.insert(id) {
            // An earlier store of the run has it (stores are read databases first).
            self.sum.held_elsewhere += 1;
            return Ok(false);
        }
        let same = self.opts.only_new
            && self
                .state
                .as_ref()
                .and_then(|st| st.entry(&ckey))
                .is_some_and(|e| e.fingerprint == c.fingerprint);
        if same {
            self.sum.unchanged += 1;
            return Ok(false);
        }
        let Some(doc) = crate::many::to_doc(agent, file, c, self.opts.redact) else {
            self.sum.do_not_index += 1;
            return Ok(false);
        };
        self.emit(&doc)?;
        let Some(st) = self.state.as_mut() else {
            return Ok(false);
        };
        st.record_key(
            ckey,
            state::Entry {
                files: Vec::new(),
                fingerprint: c.fingerprint.clone(),
                id: doc.id.clone(),
            },
        );
        Ok(true)
    }
}
