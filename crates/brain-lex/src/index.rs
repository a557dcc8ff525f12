//! Opening the lexical index: `$BRAIN_HOME/index/lex/`, with the analyzers registered.

use std::path::{Path, PathBuf};

use brain_doc::ErrorCode;
use brain_store::Home;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument};

use crate::schema::{self, Fields, SCHEMA_VERSION};
use crate::tokenize;

/// Name of the file beside the index segments holding [`SCHEMA_VERSION`].
const VERSION_FILE: &str = "SCHEMA_VERSION";

/// Writer memory budget. tantivy's minimum is 15 MB per thread; 50 MB keeps `lexindex` well under the
/// machine's budget while a full build of the 10k-file bench corpus still flushes only a few segments
/// (measured 2026-11-22, see docs/lexindex.md).
pub const WRITER_MEMORY: usize = 50_000_000;
/// Writer memory budget of a bulk run (`lexindex --all`): fewer, larger segments mean fewer term
/// dictionaries built and merged. On the 10k-file bench corpus (2026-11-23): 50 MB → 200 MB took the
/// full build from 22.8 to 15.7 s wall (38.1 → 26.8 s CPU) for a peak RSS of 358 MB instead of 228;
/// 800 MB gained nothing more (15.2 s, 539 MB). tantivy grows its arenas as documents come, so a
/// small bulk run does not take the whole budget.
pub const BULK_WRITER_MEMORY: usize = 200_000_000;

/// A segment of at most this many passages is small. A run that is not a bulk walk (the stop hook's
/// stdin run, `brain inbox`'s one file) writes one or two small segments; each segment adds its own
/// term-dictionary work to every query (on the bench corpus, 79 tiny segments took a warm lexical
/// query from 1.9 to 3.1 ms p50, 2026-11-26), so such a run merges the small segments once
/// [`SMALL_SEGMENTS_BEFORE_MERGE`] of them exist, and never a larger one: its merge stays small
/// whatever the index holds (a stdin run once stalled 33 s behind a large merge). `lexindex --all`
/// merges with tantivy's default policy.
pub const SMALL_SEGMENT_PASSAGES: u32 = 2_000;
/// A new index (a first build, a rebuild) of at least this many passages is published in one
/// segment ([`LexIndex::merge_into_one`]). Below it, queries are fast in any shape and the merge
/// would be a large share of a small build (SciFact: 5,203 passages in 2 segments, 0.14 s of a
/// 0.5 s build).
pub const NEW_INDEX_ONE_SEGMENT: u64 = 50_000;
/// Small segments that make a run that is not a bulk walk merge them ([`SMALL_SEGMENT_PASSAGES`]).
pub const SMALL_SEGMENTS_BEFORE_MERGE: usize = 8;

/// The merge policy of a run that is not a bulk walk: every small segment in one merge once there
/// are [`SMALL_SEGMENTS_BEFORE_MERGE`] ([`SMALL_SEGMENT_PASSAGES`]). tantivy's log policy does it
/// when its only level is the small one: a segment above the size is left out, every one below
/// the layer size is of one level.
pub fn small_segments_policy() -> tantivy::indexer::LogMergePolicy {
    let mut p = tantivy::indexer::LogMergePolicy::default();
    p.set_max_docs_before_merge(SMALL_SEGMENT_PASSAGES as usize);
    p.set_min_layer_size(SMALL_SEGMENT_PASSAGES);
    p.set_min_num_segments(SMALL_SEGMENTS_BEFORE_MERGE);
    p
}

/// Why the lexical index could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LexError {
    #[error("no lexical index at {path}")]
    Missing { path: PathBuf },
    #[error(
        "no lexical index at {path} yet: its first build is under way, or was interrupted (the partial build is kept aside in lex.next)"
    )]
    Building { path: PathBuf },
    #[error(
        "the lexical index at {path} has schema {found}, this build reads schema {SCHEMA_VERSION}"
    )]
    WrongVersion { path: PathBuf, found: String },
    #[error("lexical index at {path}: {source}")]
    Tantivy {
        path: PathBuf,
        source: tantivy::TantivyError,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for LexError {
    /// The exit-code class: a missing or outdated index is `index_missing` (65), the rest internal.
    fn code(&self) -> ErrorCode {
        match self {
            LexError::Missing { .. }
            | LexError::Building { .. }
            | LexError::WrongVersion { .. } => ErrorCode::IndexMissing,
            LexError::Tantivy { .. } | LexError::Io { .. } => ErrorCode::Internal,
        }
    }

    /// What the user should run.
    fn fix(&self) -> String {
        let fix: &str = {
            match self {
                LexError::Missing { .. } => "run `lexindex --all` to build it",
                LexError::Building { .. } => {
                    "wait for the running `lexindex --all` to finish (or, if none is running, run it again)"
                }
                LexError::WrongVersion { .. } => "run `lexindex --all --rebuild` to rebuild it",
                LexError::Tantivy { .. } | LexError::Io { .. } => "",
            }
        };
        fix.into()
    }
}

/// Times a reader starts again when a publish removed the files it was opening ([`LexIndex::reader`]).
const READER_RETRIES: u64 = 5;

/// The opened lexical index with its field handles.
pub struct LexIndex {
    index: Index,
    fields: Fields,
    dir: PathBuf,
}

impl LexIndex {
    /// Where the index of `home` lives.
    pub fn dir(home: &Home) -> PathBuf {
        home.index().join("lex")
    }

    /// Open the existing index for reading (and writing). A missing index is [`LexError::Missing`].
    pub fn open(home: &Home) -> Result<LexIndex, LexError> {
        match Self::open_dir(&Self::dir(home)) {
            Err(LexError::Missing { path }) if Self::building(home) => {
                Err(LexError::Building { path })
            }
            other => other,
        }
    }

    /// Open the index in `dir`.
    pub fn open_dir(dir: &Path) -> Result<LexIndex, LexError> {
        if !dir.join("meta.json").exists() {
            return Err(LexError::Missing {
                path: dir.to_path_buf(),
            });
        }
        let found = std::fs::read_to_string(dir.join(VERSION_FILE)).unwrap_or_default();
        if found.trim() != SCHEMA_VERSION.to_string() {
            return Err(LexError::WrongVersion {
                path: dir.to_path_buf(),
                found: found.trim().to_string(),
            });
        }
        let tantivy = |source| LexError::Tantivy {
            path: dir.to_path_buf(),
            source,
        };
        let index = match brain_doc::atomic::read_only() {
            true => crate::read_only::ReadOnlyDir::open(dir)
                .and_then(Index::open)
                .map_err(tantivy)?,
            false => Index::open_in_dir(dir).map_err(tantivy)?,
        };
        let fields = schema::fields_of(&index.schema()).ok_or_else(|| LexError::WrongVersion {
            path: dir.to_path_buf(),
            found: found.trim().to_string(),
        })?;
        tokenize::register(&index);
        Ok(LexIndex {
            index,
            fields,
            dir: dir.to_path_buf(),
        })
    }

    /// The folder a new index is built in, beside the live one, until [`LexIndex::publish`] swaps
    /// it in: readers never see a half-built index, and a killed build leaves the old one intact.
    pub fn aside_dir(home: &Home) -> PathBuf {
        home.index().join("lex.next")
    }

    /// Whether an index build is under way or was interrupted (a `lex.next` folder exists): what
    /// readers say instead of "no results" while the first index is being built.
    pub fn building(home: &Home) -> bool {
        Self::aside_dir(home).is_dir()
    }

    /// Open the index of `home`; when there is none, or `rebuild`, create an empty one aside
    /// ([`LexIndex::aside_dir`], any leftover of a killed build removed first) for the caller to
    /// fill and [`LexIndex::publish`]. The caller holds the `lexindex` lock.
    ///
    /// A `lex.next` left by a killed rebuild beside a live index is removed when the live index
    /// opens: the caller holds the lock, so no build is under way, and readers would otherwise say
    /// one is for ever.
    pub fn open_or_create(home: &Home, rebuild: bool) -> Result<LexIndex, LexError> {
        if !rebuild {
            match Self::open(home) {
                Err(LexError::Missing { .. } | LexError::Building { .. }) => {}
                Ok(live) => {
                    let leftover = Self::aside_dir(home);
                    if leftover.is_dir() {
                        std::fs::remove_dir_all(&leftover).map_err(|source| LexError::Io {
                            path: leftover.clone(),
                            source,
                        })?;
                    }
                    return Ok(live);
                }
                other => return other,
            }
        }
        let dir = Self::aside_dir(home);
        let io = |source| LexError::Io {
            path: dir.clone(),
            source,
        };
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io)?;
        }
        std::fs::create_dir_all(&dir).map_err(io)?;
        let (schema, fields) = schema::build();
        let index = Index::create_in_dir(&dir, schema).map_err(|source| LexError::Tantivy {
            path: dir.clone(),
            source,
        })?;
        brain_doc::atomic::write(
            &dir.join(VERSION_FILE),
            format!("{SCHEMA_VERSION}\n").as_bytes(),
        )
        .map_err(io)?;
        tokenize::register(&index);
        Ok(LexIndex { index, fields, dir })
    }

    /// The schema version of `home`'s index when it is not the one this build reads (an index
    /// written by an older brain): a full run rebuilds it ([`LexIndex::open_or_create`] with
    /// `rebuild`).
    pub fn outdated(home: &Home) -> Option<String> {
        match Self::open(home) {
            Err(LexError::WrongVersion { found, .. }) => Some(found),
            _ => None,
        }
    }

    /// Whether this index was built aside and still has to be [`LexIndex::publish`]ed.
    pub fn is_aside(&self, home: &Home) -> bool {
        self.dir == Self::aside_dir(home)
    }

    /// Make the index built aside the live one, in one step: the two folders are exchanged
    /// atomically (`renameat2(RENAME_EXCHANGE)`; where the file system cannot, two renames), so a
    /// reader opens either the old index or the new, whole. The old one is then deleted (readers
    /// holding it keep their open files). Call after the last commit.
    pub fn publish(&mut self, home: &Home) -> Result<(), LexError> {
        let live = Self::dir(home);
        let next = Self::aside_dir(home);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| LexError::Io { path, source }
        };
        if live.exists() {
            let exchanged = rustix::fs::renameat_with(
                rustix::fs::CWD,
                &next,
                rustix::fs::CWD,
                &live,
                rustix::fs::RenameFlags::EXCHANGE,
            );
            if exchanged.is_err() {
                let old = home.index().join("lex.old");
                let _ = std::fs::remove_dir_all(&old);
                std::fs::rename(&live, &old).map_err(io(&live))?;
                std::fs::rename(&next, &live).map_err(io(&next))?;
                std::fs::rename(&old, &next).map_err(io(&old))?;
            }
            std::fs::remove_dir_all(&next).map_err(io(&next))?;
        } else {
            std::fs::rename(&next, &live).map_err(io(&next))?;
        }
        if let Ok(d) = std::fs::File::open(home.index()) {
            let _ = d.sync_all();
        }
        self.dir = live;
        Ok(())
    }

    /// The tantivy index (analyzers registered).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The field handles.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The index folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// A reader on the last commit (manual reload: one process, one query, no background thread).
    ///
    /// A reader reads `meta.json`, then opens the segment files it lists, by path. When a rebuild
    /// publishes ([`LexIndex::publish`]) between the two, the files it names are gone from the
    /// folder (the new index is there): the reader starts again on the new `meta.json` — a few
    /// times, since a run of publishes is possible — instead of failing the query.
    pub fn reader(&self) -> Result<IndexReader, LexError> {
        let mut tries = 0;
        loop {
            match self
                .index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()
            {
                Err(tantivy::TantivyError::OpenReadError(
                    tantivy::directory::error::OpenReadError::FileDoesNotExist(_),
                )) if tries < READER_RETRIES => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(5 * tries));
                }
                other => {
                    return other.map_err(|source| LexError::Tantivy {
                        path: self.dir.clone(),
                        source,
                    });
                }
            }
        }
    }

    /// Merge every segment into one when there are several and they hold at least `passages`
    /// passages; whether it merged. A bulk build leaves one segment per writer thread and flush,
    /// and every segment runs its own top-k pass for every query: on the 100,000-file bench corpus
    /// (1.12 M passages, 9 segments) one segment took a fresh lexical ask from 24.0 to 12.0 ms CPU,
    /// on the 10,000-file one (110,204 passages, 2 segments) from 8.0 to 7.0, and the briefing of
    /// bench/brief.sh (6 segments) from 26.0 to 22.0 (p50, paired, 2026-11-27), for ~13 s, ~1 s
    /// and ~3 s of CPU once. Callers hold the `lexindex` lock.
    pub fn merge_into_one(&self, passages: u64, threads: usize) -> Result<bool, LexError> {
        let tantivy = |source| LexError::Tantivy {
            path: self.dir.clone(),
            source,
        };
        let metas = self.index.searchable_segment_metas().map_err(tantivy)?;
        let held: u64 = metas.iter().map(|m| u64::from(m.num_docs())).sum();
        if metas.len() < 2 || held < passages {
            return Ok(false);
        }
        let ids: Vec<_> = metas.iter().map(|m| m.id()).collect();
        let mut w = self.writer(threads, BULK_WRITER_MEMORY)?;
        w.merge(&ids).wait().map_err(tantivy)?;
        w.wait_merging_threads().map_err(tantivy)?;
        Ok(true)
    }

    /// A writer with `threads` indexing threads sharing a `memory` budget ([`WRITER_MEMORY`], or
    /// [`BULK_WRITER_MEMORY`] for a bulk run). Callers hold the `lexindex` lock.
    pub fn writer(
        &self,
        threads: usize,
        memory: usize,
    ) -> Result<IndexWriter<TantivyDocument>, LexError> {
        let tantivy = |source| LexError::Tantivy {
            path: self.dir.clone(),
            source,
        };
        let writer = self
            .index
            .writer_with_num_threads(threads.max(1), memory)
            .map_err(tantivy)?;
        // Files of a run killed mid-commit (a `.del` written, meta.json not yet): the next commit
        // reaches the same opstamp and would fail on them with FileAlreadyExists (issue 37, a purge
        // killed while it committed). What meta.json does not name is no one's: collect it first.
        writer.garbage_collect_files().wait().map_err(tantivy)?;
        Ok(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::Classified;

    #[test]
    fn a_missing_index_is_exit_65_with_a_fix() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = LexIndex::open(&Home::at(dir.path()))
            .err()
            .expect("missing");
        assert!(matches!(err, LexError::Missing { .. }));
        assert_eq!(err.code().exit_code(), 65);
        assert!(err.fix().contains("lexindex --all"));
    }

    #[test]
    fn created_index_reopens_with_analyzers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut created = LexIndex::open_or_create(&home, false).expect("create");
        assert!(created.is_aside(&home), "a new index is built aside");
        assert!(matches!(
            LexIndex::open(&home),
            Err(LexError::Building { .. })
        ));
        created.publish(&home).expect("publish");
        assert!(!LexIndex::building(&home));
        let lex = LexIndex::open(&home).expect("open");
        assert!(
            lex.index()
                .tokenizers()
                .get(tokenize::IDENT_TOKENIZER)
                .is_some()
        );
        assert!(
            lex.index()
                .tokenizers()
                .get(tokenize::TEXT_TOKENIZER)
                .is_some()
        );
    }
}
