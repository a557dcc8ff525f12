//! Working memory (issue #23, seed 002): short-lived notes an agent keeps across turns — "the test
//! to rerun after the migration", "Ana reviews the PR by Friday" — carried first in every context
//! block until they expire.
//!
//! * An item lives for `ttl` turns (default [`DEFAULT_TTL`], at most [`MAX_TTL`]): every context
//!   assembly (`brain context`, MCP `context`) and every stop-hook turn
//!   (`brain wm tick`) takes one away; at zero it is gone. Pinned items never expire; at most
//!   [`MAX_PINNED`] are pinned.
//! * A deadline marks an item `due soon` within [`DUE_SOON_HOURS`] and `overdue` after it.
//! * `promote` makes one a permanent fact (an inbox record, searchable at once) and removes it.
//! * Stored in `state/wm.json` (0600 like the whole home), written atomically under the `wm`
//!   lock; a file that does not read is moved aside (`wm.json.bad-<time>`) and named, never a
//!   failed command. A secret is refused, as in the inbox.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use brain_store::{Home, Lock};

/// Turns an item lives by default (seed 002).
pub const DEFAULT_TTL: u8 = 5;
/// Most turns an item may be given.
pub const MAX_TTL: u8 = 10;
/// Most items pinned at once (seed 002).
pub const MAX_PINNED: usize = 3;
/// Most items held (our choice: working memory is a handful of notes, not a store).
pub const MAX_ITEMS: usize = 50;
/// Longest item text, in bytes.
pub const MAX_TEXT_BYTES: usize = 2_000;
pub use brain_fmt::block::note::{DUE_SOON_HOURS, Note as Item};

/// The file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct File {
    schema: u32,
    next_id: u32,
    items: Vec<Item>,
}

/// Why a working-memory command failed.
#[derive(Debug, thiserror::Error)]
pub enum WmError {
    #[error("{0}")]
    Bad(String),
    #[error("{0}: working memory never stores it")]
    Secret(String),
    #[error("no working-memory item {0} (brain wm list shows them)")]
    NoItem(u32),
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
    #[error(transparent)]
    Inbox(#[from] brain_inbox::InboxError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for WmError {
    fn code(&self) -> brain_doc::ErrorCode {
        use brain_doc::ErrorCode;
        match self {
            WmError::Bad(_) | WmError::NoItem(_) => ErrorCode::BadQuery,
            WmError::Secret(_) => ErrorCode::Refused,
            WmError::Lock(e) => e.code(),
            WmError::Inbox(e) => e.code(),
            WmError::Io { .. } => ErrorCode::Internal,
        }
    }
}

/// `state/wm.json`.
pub fn path(home: &Home) -> PathBuf {
    home.state_file("wm.json")
}

/// The store, read and written under its lock.
pub struct Store {
    home: Home,
    file: File,
    _lock: Option<Lock>,
    /// Said when the file did not read and was moved aside.
    pub warnings: Vec<String>,
}

impl Store {
    /// Take the lock and read the file (a file that does not read is moved aside and named).
    /// In a read-only process ([`brain_doc::atomic::read_only`]) the file is only read: no lock
    /// taken (a lock writes its holder's note), nothing moved aside, nothing saved.
    pub fn open(home: &Home) -> Result<Store, WmError> {
        let ro = brain_doc::atomic::read_only();
        let lock = if ro {
            None
        } else {
            Some(Lock::acquire_within(
                &home.lock_file("wm"),
                std::time::Duration::from_secs(5),
            )?)
        };
        let p = path(home);
        let mut warnings = Vec::new();
        let file = match std::fs::read(&p) {
            Ok(bytes) => match serde_json::from_slice::<File>(&bytes) {
                Ok(f) => f,
                Err(e) if ro => {
                    warnings.push(format!("{} did not read ({e}): left as it is", p.display()));
                    File::default()
                }
                Err(e) => {
                    let aside = p
                        .with_extension(format!("json.bad-{}", jiff::Timestamp::now().as_second()));
                    let _ = std::fs::rename(&p, &aside);
                    warnings.push(format!(
                        "{} did not read ({e}): moved to {}; starting empty",
                        p.display(),
                        aside.display()
                    ));
                    File::default()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => File::default(),
            Err(source) => return Err(WmError::Io { path: p, source }),
        };
        Ok(Store {
            home: home.clone(),
            file,
            _lock: lock,
            warnings,
        })
    }

    /// The items, pinned first, then by id.
    pub fn items(&self) -> Vec<Item> {
        let mut v = self.file.items.clone();
        v.sort_by_key(|i| (!i.pinned, i.id));
        v
    }

    fn save(&mut self) -> Result<(), WmError> {
        self.file.schema = 1;
        let p = path(&self.home);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).map_err(|source| WmError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let bytes =
            serde_json::to_vec_pretty(&self.file).map_err(|e| WmError::Bad(e.to_string()))?;
        brain_doc::atomic::write(&p, &bytes).map_err(|source| WmError::Io { path: p, source })
    }

    /// Add a note; its id.
    pub fn add(
        &mut self,
        text: &str,
        ttl: Option<u8>,
        pinned: bool,
        deadline: Option<String>,
        tags: Vec<String>,
        now: &jiff::Timestamp,
    ) -> Result<u32, WmError> {
        // The one sanitizer of every capture (the inbox's): no terminal escape, control, zero-width
        // or bidi character is stored or printed back.
        let text = brain_inbox::sanitize::clean_text(text);
        let text = text.as_str();
        let tags: Vec<String> = tags
            .iter()
            .map(|t| brain_inbox::sanitize::clean_text(t))
            .filter(|t| !t.is_empty())
            .collect();
        if text.is_empty() {
            return Err(WmError::Bad("the note is empty".into()));
        }
        if text.len() > MAX_TEXT_BYTES {
            return Err(WmError::Bad(format!(
                "the note is {} bytes; working memory holds notes of at most {MAX_TEXT_BYTES} (use brain inbox for more)",
                text.len()
            )));
        }
        // The inbox's guard: secrets, `<private>` spans and the do-not-index marker are refused.
        let everything = format!(
            "{text}\n{}\n{}",
            tags.join("\n"),
            deadline.as_deref().unwrap_or("")
        );
        if let Some(r) = brain_inbox::guard::refusal(&everything) {
            return Err(WmError::Secret(r.to_string()));
        }
        let ttl = ttl.unwrap_or(DEFAULT_TTL);
        if !(1..=MAX_TTL).contains(&ttl) {
            return Err(WmError::Bad(format!(
                "--ttl {ttl}: give 1 to {MAX_TTL} turns"
            )));
        }
        if self.file.items.len() >= MAX_ITEMS {
            return Err(WmError::Bad(format!(
                "working memory holds {MAX_ITEMS} notes already: remove or promote one first"
            )));
        }
        if pinned {
            self.check_pin_room()?;
        }
        let deadline = deadline
            .map(|d| {
                brain_doc::file::parse_date(&d)
                    .and_then(|s| jiff::Timestamp::from_second(s).ok())
                    .map(|t| t.to_string())
                    .ok_or_else(|| {
                        WmError::Bad(format!(
                            "--deadline {d:?}: give a date (2026-06-02) or an RFC 3339 time"
                        ))
                    })
            })
            .transpose()?;
        let tags = tags
            .into_iter()
            .map(|t| t.trim().trim_start_matches('#').to_lowercase())
            .filter(|t| !t.is_empty())
            .collect();
        self.file.next_id = self.file.next_id.max(1);
        let id = self.file.next_id;
        self.file.next_id += 1;
        self.file.items.push(Item {
            id,
            text: text.to_string(),
            tags,
            pinned,
            ttl,
            created: now.to_string(),
            deadline,
        });
        self.save()?;
        Ok(id)
    }

    fn check_pin_room(&self) -> Result<(), WmError> {
        if self.file.items.iter().filter(|i| i.pinned).count() >= MAX_PINNED {
            return Err(WmError::Bad(format!(
                "{MAX_PINNED} notes are pinned already (seed 002's most): unpin one first"
            )));
        }
        Ok(())
    }

    fn find(&mut self, id: u32) -> Result<&mut Item, WmError> {
        self.file
            .items
            .iter_mut()
            .find(|i| i.id == id)
            .ok_or(WmError::NoItem(id))
    }

    /// Pin or unpin `id`.
    pub fn pin(&mut self, id: u32, pinned: bool) -> Result<(), WmError> {
        if pinned && !self.find(id)?.pinned {
            self.check_pin_room()?;
        }
        self.find(id)?.pinned = pinned;
        self.save()
    }

    /// Remove `id`; the item removed.
    pub fn remove(&mut self, id: u32) -> Result<Item, WmError> {
        let at = self
            .file
            .items
            .iter()
            .position(|i| i.id == id)
            .ok_or(WmError::NoItem(id))?;
        let item = self.file.items.remove(at);
        self.save()?;
        Ok(item)
    }

    /// The item `id` (for promote, before it is removed).
    pub fn get(&self, id: u32) -> Result<Item, WmError> {
        self.file
            .items
            .iter()
            .find(|i| i.id == id)
            .cloned()
            .ok_or(WmError::NoItem(id))
    }

    /// One turn passes: every unpinned item loses one; those at zero are gone (returned).
    pub fn tick(&mut self) -> Result<Vec<Item>, WmError> {
        if self.file.items.is_empty() {
            return Ok(Vec::new());
        }
        let mut gone = Vec::new();
        let mut kept = Vec::new();
        for mut i in std::mem::take(&mut self.file.items) {
            if !i.pinned {
                i.ttl = i.ttl.saturating_sub(1);
            }
            if !i.pinned && i.ttl == 0 {
                gone.push(i);
            } else {
                kept.push(i);
            }
        }
        self.file.items = kept;
        self.save()?;
        Ok(gone)
    }
}

/// Make note `id` a permanent fact: an inbox record (importance 4 — it proved worth keeping — and
/// `key` when given, so a later fact of the same key supersedes it), searchable at once; the note
/// leaves working memory only once the record is written.
pub fn promote(
    home: &Home,
    id: u32,
    key: Option<String>,
    surface: brain_store::telemetry::Surface,
    now: jiff::Zoned,
) -> Result<brain_inbox::Captured, WmError> {
    let mut store = Store::open(home)?;
    let item = store.get(id)?;
    let mut req = brain_inbox::Capture::new(item.text.clone(), now);
    req.kind = brain_inbox::EntryType::Fact;
    req.tags = item.tags.clone();
    req.surface = surface;
    req.record = brain_inbox::RecordFields {
        key,
        importance: Some(4),
        ..Default::default()
    };
    let captured = brain_inbox::capture(home, &req)?;
    store.remove(id)?;
    Ok(captured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_expire_after_their_turns_pinned_never_and_three_pins_at_most() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let now = jiff::Timestamp::from_second(1_780_000_000).expect("t");
        let mut s = Store::open(&home).expect("open");
        let a = s
            .add("rerun the lock test", Some(2), false, None, vec![], &now)
            .expect("a");
        let b = s
            .add("the freeze ends friday", None, true, None, vec![], &now)
            .expect("b");
        assert_eq!(s.tick().expect("tick").len(), 0);
        let gone = s.tick().expect("tick");
        assert_eq!(gone.iter().map(|i| i.id).collect::<Vec<_>>(), [a]);
        assert_eq!(s.items().iter().map(|i| i.id).collect::<Vec<_>>(), [b]);
        for n in 0..2 {
            s.add(&format!("pin {n}"), None, true, None, vec![], &now)
                .expect("pin");
        }
        assert!(matches!(
            s.add("a fourth pin", None, true, None, vec![], &now),
            Err(WmError::Bad(_))
        ));
        assert!(matches!(
            s.add("x", Some(11), false, None, vec![], &now),
            Err(WmError::Bad(_))
        ));
        assert!(matches!(
            s.add("x", Some(0), false, None, vec![], &now),
            Err(WmError::Bad(_))
        ));
        assert!(matches!(
            s.add(
                "key AKIAABCDEFGHIJKLMNOP here",
                None,
                false,
                None,
                vec![],
                &now
            ),
            Err(WmError::Secret(_))
        ));
        drop(s);
        // What was saved reads back; a torn file is moved aside, not a failure.
        let s = Store::open(&home).expect("reopen");
        assert_eq!(s.items().len(), 3);
        drop(s);
        std::fs::write(path(&home), b"{\"schema\": 1, \"items\": [").expect("torn");
        let s = Store::open(&home).expect("open torn");
        assert_eq!(s.items().len(), 0);
        assert_eq!(s.warnings.len(), 1);
    }

    #[test]
    fn deadlines_mark_due_soon_and_overdue() {
        let now = 1_780_000_000;
        let at = |secs: i64| Item {
            id: 1,
            text: "x".into(),
            tags: vec![],
            pinned: false,
            ttl: 5,
            created: String::new(),
            deadline: jiff::Timestamp::from_second(secs)
                .ok()
                .map(|t| t.to_string()),
        };
        assert_eq!(at(now + 3600).due(now), Some("due soon"));
        assert_eq!(at(now - 1).due(now), Some("overdue"));
        assert_eq!(at(now + 3 * 86_400).due(now), None);
        assert!(at(now + 3600).line(now).contains("due soon"));
    }
}
