//! The spool: update requests the engine could not take (it was down, slow or unreachable), kept on
//! disk in order and sent before anything new. Each file is one request body, written atomically
//! (a kill leaves a whole file or none) and deleted only after the engine acknowledged it. Every
//! request is idempotent (ids are stable, an add replaces, a delete of a missing id is a no-op),
//! so a file sent twice — a kill between the acknowledgement and the delete — changes nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::TeamError;

static SEQ: AtomicU64 = AtomicU64::new(0);

/// The spool of one engine index, in `dir`.
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    pub fn new(dir: PathBuf) -> Spool {
        Spool { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keep `body` for later; it is sent after every file spooled before it.
    pub fn put(&self, body: &[u8]) -> Result<PathBuf, TeamError> {
        let io = |source| TeamError::Io {
            path: self.dir.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = format!(
            "{nanos:024}-{:010}-{:06}.json",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let path = self.dir.join(name);
        brain_doc::atomic::write(&path, body).map_err(|source| TeamError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// The files waiting, oldest first (temporary files of a killed write are not among them).
    pub fn pending(&self) -> Result<Vec<PathBuf>, TeamError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(TeamError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.as_bytes().first().is_some_and(u8::is_ascii_digit))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Send every waiting file with `send`, oldest first, deleting each once sent; stops at the
    /// first failure (which is returned with the count sent before it).
    pub fn drain(
        &self,
        send: &mut dyn FnMut(&[u8]) -> Result<(), TeamError>,
    ) -> (usize, Result<(), TeamError>) {
        let files = match self.pending() {
            Ok(f) => f,
            Err(e) => return (0, Err(e)),
        };
        let mut sent = 0;
        for f in files {
            let body = match std::fs::read(&f) {
                Ok(b) => b,
                Err(source) => return (sent, Err(TeamError::Io { path: f, source })),
            };
            if let Err(e) = send(&body) {
                return (sent, Err(e));
            }
            if let Err(source) = std::fs::remove_file(&f) {
                return (sent, Err(TeamError::Io { path: f, source }));
            }
            sent += 1;
        }
        (sent, Ok(()))
    }
}

/// A spooled request's commands in order (Solr's JSON update commands repeat a key, so a map
/// would lose all but the last): `("add", {"doc": …})`, `("delete", …)`.
#[derive(Debug, Default)]
pub struct Commands(pub Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Commands {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Commands, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Commands;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of update commands")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Commands, A::Error> {
                let mut all = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, serde_json::Value>()? {
                    all.push((k, v));
                }
                Ok(Commands(all))
            }
        }
        d.deserialize_map(Visit)
    }
}

impl Commands {
    /// The commands of a request body; `None` when it is not one (a damaged file).
    pub fn parse(body: &[u8]) -> Option<Commands> {
        let c: Commands = serde_json::from_slice(body).ok()?;
        c.0.iter()
            .all(|(k, _)| matches!(k.as_str(), "add" | "delete" | "commit" | "optimize"))
            .then_some(c)
    }

    /// The document whose passage an `add` command carries.
    fn added_doc(value: &serde_json::Value) -> Option<&str> {
        value["doc"]["doc_id"].as_str()
    }

    /// The documents the request's adds carry, each once, in order.
    pub fn added_docs(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (k, v) in &self.0 {
            if k == "add"
                && let Some(id) = Self::added_doc(v)
                && !out.iter().any(|o| o == id)
            {
                out.push(id.to_string());
            }
        }
        out
    }

    /// The body again, in the same order.
    pub fn body(&self) -> Vec<u8> {
        let mut out = Vec::from(&b"{"[..]);
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // A String and a Value always serialize.
            out.extend(serde_json::to_vec(k).unwrap_or_default());
            out.push(b':');
            out.extend(serde_json::to_vec(v).unwrap_or_default());
        }
        out.push(b'}');
        out
    }
}

/// What [`Spool::scrub`] took out.
#[derive(Debug, Default, PartialEq)]
pub struct Scrubbed {
    /// Passages of the document taken out of requests that still go.
    pub adds: usize,
    /// Files removed: nothing else was in them, or they did not read and named the document.
    pub files: usize,
}

impl Spool {
    /// Take every passage of `doc_id` out of what waits here, and out of requests set aside
    /// (`refused/`), before anything is sent: a purged document's text never reaches the engine
    /// after its purge, and no copy of it stays on disk. A file that does not read and holds the
    /// id anywhere is removed whole (it could not be sent anyway).
    pub fn scrub(&self, doc_id: &str) -> Result<Scrubbed, TeamError> {
        let mut done = Scrubbed::default();
        let quoted = serde_json::to_string(doc_id).unwrap_or_default();
        let mut files = self.pending()?;
        files.extend(Spool::new(self.dir.join("refused")).pending()?);
        for f in files {
            let io = |source| TeamError::Io {
                path: f.clone(),
                source,
            };
            let body = match std::fs::read(&f) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io(e)),
            };
            if memchr::memmem::find(&body, quoted.as_bytes()).is_none() {
                continue;
            }
            let Some(mut c) = Commands::parse(&body) else {
                std::fs::remove_file(&f).map_err(io)?;
                done.files += 1;
                continue;
            };
            let before = c.0.len();
            c.0.retain(|(k, v)| !(k == "add" && Commands::added_doc(v) == Some(doc_id)));
            if c.0.len() == before {
                continue;
            }
            done.adds += before - c.0.len();
            if c.0.is_empty() {
                std::fs::remove_file(&f).map_err(io)?;
                done.files += 1;
            } else {
                brain_doc::atomic::write(&f, &c.body()).map_err(io)?;
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_purged_document_leaves_every_spooled_request() {
        let dir = tempfile::tempdir().expect("test setup");
        let s = Spool::new(dir.path().join("spool"));
        let add = |id: &str, text: &str| {
            format!(r#""add":{{"doc":{{"id":"{id}!0","doc_id":"{id}","text":"{text}"}}}}"#)
        };
        let mixed = format!(
            r#"{{"delete":["x!0"],{},{},{}}}"#,
            add("notes/a.md", "keep"),
            add("notes/secret.md", "zorblax one"),
            add("notes/secret.md", "zorblax two")
        );
        s.put(mixed.as_bytes()).expect("put");
        s.put(format!("{{{}}}", add("notes/secret.md", "zorblax alone")).as_bytes())
            .expect("put");
        s.put(br#"{"add":{"doc":{"doc_id":"notes/secret.md","text":"zorbl"#)
            .expect("put a damaged one");
        s.put(br#"{"delete":{"query":"doc_id:\"notes/secret.md\""}}"#)
            .expect("put the purge's delete");
        let refused = Spool::new(s.dir().join("refused"));
        refused
            .put(format!("{{{}}}", add("notes/secret.md", "zorblax refused")).as_bytes())
            .expect("put");
        let done = s.scrub("notes/secret.md").expect("scrub");
        assert_eq!(done, Scrubbed { adds: 4, files: 3 });
        let left: Vec<String> = s
            .pending()
            .expect("pending")
            .iter()
            .chain(refused.pending().expect("pending").iter())
            .map(|f| std::fs::read_to_string(f).expect("read"))
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(left.iter().all(|b| !b.contains("zorbl")), "{left:?}");
        let kept = Commands::parse(left[0].as_bytes()).expect("still a request");
        assert_eq!(kept.added_docs(), vec!["notes/a.md".to_string()]);
        assert_eq!(kept.0[0].0, "delete", "order kept");
        assert!(
            left[1].contains("delete"),
            "the delete itself stays: {left:?}"
        );
    }

    #[test]
    fn commands_keep_repeated_keys_in_order_and_refuse_what_is_not_a_request() {
        let c = Commands::parse(
            br#"{"add":{"doc":{"doc_id":"a"}},"delete":["1"],"add":{"doc":{"doc_id":"b"}}}"#,
        )
        .expect("parses");
        assert_eq!(c.added_docs(), vec!["a".to_string(), "b".into()]);
        assert_eq!(Commands::parse(&c.body()).expect("again").0, c.0);
        for bad in [&b"[1,2]"[..], b"{\"rm\":1}", b"{\"add\":", b"", b"null"] {
            assert!(
                Commands::parse(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn files_drain_in_order_and_stop_at_a_failure() {
        let dir = tempfile::tempdir().expect("test setup");
        let s = Spool::new(dir.path().join("spool"));
        for i in 0..5 {
            s.put(format!("{i}").as_bytes()).expect("test setup");
        }
        std::fs::write(s.dir().join("x.json.tmp"), "half").expect("write a test file");
        let mut seen = Vec::new();
        let (n, r) = s.drain(&mut |b| {
            if b == b"3" {
                return Err(TeamError::Config("down".into()));
            }
            seen.push(String::from_utf8(b.to_vec()).expect("test setup"));
            Ok(())
        });
        assert_eq!(
            (n, seen),
            (3, vec!["0".to_string(), "1".into(), "2".into()])
        );
        assert!(r.is_err());
        assert_eq!(s.pending().expect("test setup").len(), 2);
        let (n, r) = s.drain(&mut |_| Ok(()));
        assert_eq!(n, 2);
        assert!(r.is_ok());
        assert!(s.pending().expect("test setup").is_empty());
    }
}
