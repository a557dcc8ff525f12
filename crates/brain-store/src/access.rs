//! Rehearsal (seeds 001 and 003): what a person or an agent actually reads stays close. Every read
//! of a record — `brain get`, `brain multi-get`, the MCP `get` and `multi_get` tools — is appended to
//! `logs/access.jsonl` (mode 0600, whole lines under an exclusive lock, rotated like the usage log).
//! Appearing in a result list is recorded apart (`listed`) and never boosts by default: a record
//! that ranks high gets listed, gets boosted, ranks higher — it would feed on itself.
//!
//! [`fold`] (the slow clock: `lexindex --all`, and `brain memory fold` on demand) adds the log to the
//! registry's `recall_counts` exactly once (each folded file's name is recorded in the same
//! transaction) and writes the table queries read, `index/rehearsal.bin`: no SQLite query per hit.
//!
//! Tiers (seed 001): **hot** when created or last read at most 7 days ago, **warm** 8–30, **cold**
//! beyond; a record read [`WARMING_READS`] times or more is one tier warmer than its age says (high
//! access resists decay). Cold records stay searchable.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::{Home, Registry, RegistryError};

/// How a record was met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read (opened): counts toward rehearsal.
    Read,
    /// Shown in a result list: tracked, no boost.
    Listed,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Listed => "listed",
        }
    }
}

/// Size at which `access.jsonl` rotates (like the usage log); a fold empties it long before.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Reads after which a record is one tier warmer than its age.
pub const WARMING_READS: u64 = 5;

/// `logs/access.jsonl`.
pub fn log_path(home: &Home) -> PathBuf {
    home.root().join("logs").join("access.jsonl")
}

/// `index/rehearsal.bin`.
pub fn table_path(home: &Home) -> PathBuf {
    home.index().join("rehearsal.bin")
}

/// Append one line per record id. Recording never breaks the action it records: callers ignore
/// the result.
pub fn record(home: &Home, ids: &[&str], access: Access, surface: &str) -> std::io::Result<()> {
    let rows: Vec<Map<String, Value>> = ids
        .iter()
        .filter(|id| !id.is_empty())
        .map(|id| {
            let mut row = Map::new();
            row.insert("id".into(), Value::from(*id));
            row.insert("access".into(), Value::from(access.name()));
            crate::telemetry::row(surface, "access", row)
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    crate::telemetry::append_rows_to(&log_path(home), MAX_BYTES, &rows)
}

/// Record that `hits` were listed (shown in a result list): tracked, no boost.
pub fn record_listed(home: &Home, hits: &[brain_doc::Hit], surface: &str) -> std::io::Result<()> {
    let ids: Vec<String> = hits
        .iter()
        .map(|h| format!("{}/{}", h.collection, h.path))
        .collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    record(home, &ids, Access::Listed, surface)
}

/// What a record's reads and listings add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub reads: u64,
    pub listed: u64,
    /// Unix seconds of the last read.
    pub last_read: Option<i64>,
}

/// What one fold did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FoldReport {
    /// Log lines added to the registry.
    pub lines: u64,
    /// Lines that did not read (skipped).
    pub malformed: u64,
    /// Records with counts in the table now.
    pub records: u64,
}

/// Why a fold failed.
#[derive(Debug, thiserror::Error)]
pub enum FoldError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for FoldError {
    /// The registry's own class; the access log or rehearsal table that cannot be read or written
    /// is internal (99).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            FoldError::Registry(e) => brain_doc::Classified::code(e),
            FoldError::Io { .. } => brain_doc::ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            FoldError::Registry(e) => brain_doc::Classified::fix(e),
            FoldError::Io { .. } => String::new(),
        }
    }
}

/// Fold the access log into the registry and rewrite the rehearsal table (see the module docs).
pub fn fold(home: &Home) -> Result<FoldReport, FoldError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FoldError::Io { path, source }
    };
    let log = log_path(home);
    let dir = log.parent().map(Path::to_path_buf).unwrap_or_default();
    // Take the log aside (writers that were waiting notice the rename and start a new file).
    if log.is_file() {
        let aside = dir.join(format!(
            "access.jsonl.fold-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::rename(&log, &aside).map_err(io(&log))?;
    }
    let mut pending: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("access.jsonl.fold-") || n == "access.jsonl.1")
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    pending.sort();
    let mut report = FoldReport::default();
    let registry = Registry::open(home)?;
    for file in &pending {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut counts: HashMap<String, Counts> = HashMap::new();
        if !registry.access_folded(&name)? {
            let (lines, malformed) = read_log(file, &mut counts).map_err(io(file))?;
            report.lines += lines;
            report.malformed += malformed;
            registry.add_access(&name, &counts)?;
        }
        std::fs::remove_file(file).map_err(io(file))?;
    }
    let all = registry.access_counts()?;
    report.records = all.len() as u64;
    write_table(&table_path(home), &all).map_err(io(&table_path(home)))?;
    Ok(report)
}

/// Forget `ids` for good (`brain forget --purge`): the log is folded first, so no line naming them
/// stays behind, then their counts leave the registry and the table is written again.
pub fn forget(home: &Home, ids: &[&str]) -> Result<(), FoldError> {
    fold(home)?;
    let registry = Registry::open(home)?;
    registry.forget_access(ids)?;
    rewrite_table(home, &registry)?;
    // The old pages leave the WAL too.
    registry.checkpoint();
    Ok(())
}

/// Write the rehearsal table again from the registry's counts.
pub fn rewrite_table(home: &Home, registry: &Registry) -> Result<(), FoldError> {
    let all = registry.access_counts()?;
    let path = table_path(home);
    write_table(&path, &all).map_err(|source| FoldError::Io { path, source })
}

/// Add the lines of one log file to `counts`: (lines read, lines that did not).
fn read_log(path: &Path, counts: &mut HashMap<String, Counts>) -> std::io::Result<(u64, u64)> {
    let (mut ok, mut bad) = (0, 0);
    let reader = std::io::BufReader::new(std::fs::File::open(path)?);
    for line in reader.split(b'\n') {
        let line = line?;
        let Ok(v) = serde_json::from_slice::<Value>(&line) else {
            bad += u64::from(!line.is_empty());
            continue;
        };
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let access = v.get("access").and_then(Value::as_str);
        let ts = v
            .get("ts")
            .and_then(Value::as_str)
            .and_then(brain_doc::file::parse_date);
        let (Some(id), Some(access)) = (id, access) else {
            bad += 1;
            continue;
        };
        let c = counts.entry(id.to_string()).or_default();
        match access {
            "read" => {
                c.reads += 1;
                c.last_read = c.last_read.max(ts);
            }
            "listed" => c.listed += 1,
            _ => {
                bad += 1;
                continue;
            }
        }
        ok += 1;
    }
    Ok((ok, bad))
}

/// Magic of the rehearsal table.
const MAGIC: &[u8; 8] = b"BRAINRH1";
/// Bytes per entry: tie key, reads, listed, last read.
const ENTRY: usize = 8 + 4 + 4 + 8;

/// Write the table: entries sorted by [`brain_doc::tie_key`] of the id, atomically.
fn write_table(path: &Path, all: &[(String, Counts)]) -> std::io::Result<()> {
    let mut rows: Vec<(u64, Counts)> = all
        .iter()
        .map(|(id, c)| (brain_doc::tie_key(id), *c))
        .collect();
    rows.sort_by_key(|(k, _)| *k);
    let mut bytes = Vec::with_capacity(MAGIC.len() + rows.len() * ENTRY);
    bytes.extend_from_slice(MAGIC);
    for (k, c) in rows {
        bytes.extend_from_slice(&k.to_le_bytes());
        bytes.extend_from_slice(&(c.reads.min(u64::from(u32::MAX)) as u32).to_le_bytes());
        bytes.extend_from_slice(&(c.listed.min(u64::from(u32::MAX)) as u32).to_le_bytes());
        bytes.extend_from_slice(&c.last_read.unwrap_or(i64::MIN).to_le_bytes());
    }
    brain_doc::atomic::write(path, &bytes)
}

/// The rehearsal table as queries read it: counts by document id, no SQLite.
#[derive(Debug, Clone, Default)]
pub struct Rehearsal {
    bytes: Vec<u8>,
}

impl Rehearsal {
    /// The table of `home`; empty when there is none, or it is not a table (a torn or foreign
    /// file is ignored, never trusted).
    pub fn load(home: &Home) -> Rehearsal {
        let mut bytes = Vec::new();
        let ok = std::fs::File::open(table_path(home))
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .is_ok();
        let well_formed = bytes.len() >= MAGIC.len()
            && &bytes[..MAGIC.len()] == MAGIC
            && (bytes.len() - MAGIC.len()).is_multiple_of(ENTRY);
        if !ok || !well_formed {
            return Rehearsal::default();
        }
        Rehearsal { bytes }
    }

    fn entries(&self) -> &[u8] {
        self.bytes.get(MAGIC.len()..).unwrap_or_default()
    }

    /// Records with counts.
    pub fn len(&self) -> usize {
        self.entries().len() / ENTRY
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The counts of document `id` (zero when never met).
    pub fn counts(&self, id: &str) -> Counts {
        let key = brain_doc::tie_key(id);
        let e = self.entries();
        let at = |i: usize| -> &[u8] { &e[i * ENTRY..(i + 1) * ENTRY] };
        let key_at = |i: usize| u64::from_le_bytes(at(i)[..8].try_into().unwrap_or([0; 8]));
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match key_at(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let r = at(mid);
                    let u32_at =
                        |o: usize| u32::from_le_bytes(r[o..o + 4].try_into().unwrap_or([0; 4]));
                    let last = i64::from_le_bytes(r[16..24].try_into().unwrap_or([0; 8]));
                    return Counts {
                        reads: u64::from(u32_at(8)),
                        listed: u64::from(u32_at(12)),
                        last_read: (last != i64::MIN).then_some(last),
                    };
                }
            }
        }
        Counts::default()
    }
}

/// Every indexed record of `home` with its tier at `now` (Unix seconds): one registry read, the
/// rehearsal table for reads. What `--tier`, `status`, `stats` and `brain memory tiers` count by.
pub fn tiers(home: &Home, now: i64) -> Result<Vec<(String, Tier)>, RegistryError> {
    let Some(registry) = Registry::open_existing(home)? else {
        return Ok(Vec::new());
    };
    let rehearsal = Rehearsal::load(home);
    Ok(registry
        .entries(None)?
        .into_iter()
        .map(|e| {
            let created = brain_doc::file::parse_date(&e.date);
            let tier = Tier::of(created, &rehearsal.counts(&e.id), now);
            (e.id, tier)
        })
        .collect())
}

pub use crate::tiers::TierCounts;

impl TierCounts {
    /// Count `tiers` ([`tiers`]).
    pub fn of(tiers: &[(String, Tier)]) -> TierCounts {
        let mut t = TierCounts::default();
        for (_, tier) in tiers {
            match tier {
                Tier::Hot => t.hot += 1,
                Tier::Warm => t.warm += 1,
                Tier::Cold => t.cold += 1,
            }
        }
        t
    }
}

/// What `--tier` keeps, as a search can apply it without a lookup per document: records whose
/// creation date falls in one of `windows` (their tier by age, [`Tier::created_window`]), except
/// `exclude` (reads moved them out), plus `include` (reads moved them in). Only records with reads
/// can differ from their age's tier, so both lists are short (those read, not the whole corpus).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TierFilter {
    /// `(first, last)` creation instants, Unix seconds, inclusive; `None` = unbounded.
    pub windows: Vec<(Option<i64>, Option<i64>)>,
    /// Ids in the tiers asked for by their reads, though not by their age; sorted.
    pub include: Vec<String>,
    /// Ids in a window asked for whose reads put them in another tier; sorted.
    pub exclude: Vec<String>,
}

/// The [`TierFilter`] of `tiers` at `now` (Unix seconds): one registry read of the records with
/// counts, whatever the size of the corpus.
pub fn tier_filter(home: &Home, tiers: &[Tier], now: i64) -> Result<TierFilter, RegistryError> {
    let mut f = TierFilter {
        windows: tiers.iter().map(|t| t.created_window(now)).collect(),
        ..TierFilter::default()
    };
    let Some(registry) = Registry::open_existing(home)? else {
        return Ok(f);
    };
    let counts: HashMap<String, Counts> = registry.access_counts()?.into_iter().collect();
    for (id, date) in registry.dates_of_counted()? {
        let Some(c) = counts.get(&id) else { continue };
        let created = brain_doc::file::parse_date(&date);
        let by_age = Tier::of(created, &Counts::default(), now);
        let actual = Tier::of(created, c, now);
        match (tiers.contains(&by_age), tiers.contains(&actual)) {
            (true, false) => f.exclude.push(id),
            (false, true) => f.include.push(id),
            _ => {}
        }
    }
    f.include.sort_unstable();
    f.exclude.sort_unstable();
    Ok(f)
}

/// A record's tier (seed 001).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Hot,
    Warm,
    Cold,
}

impl Tier {
    /// The tier of a record created at `created` (Unix seconds) with `counts`, at `now`.
    pub fn of(created: Option<i64>, counts: &Counts, now: i64) -> Tier {
        let last = created.max(counts.last_read).unwrap_or(now);
        let days = (now - last).max(0) / 86_400;
        let tier = match days {
            0..=7 => Tier::Hot,
            8..=30 => Tier::Warm,
            _ => Tier::Cold,
        };
        if counts.reads >= WARMING_READS {
            match tier {
                Tier::Cold => Tier::Warm,
                _ => Tier::Hot,
            }
        } else {
            tier
        }
    }

    /// The creation instants (Unix seconds, inclusive) whose records are in this tier at `now`
    /// when nothing was read: what [`Tier::of`] says by age alone (a test holds them together).
    pub fn created_window(self, now: i64) -> (Option<i64>, Option<i64>) {
        const DAY: i64 = 86_400;
        match self {
            Tier::Hot => (Some(now - 8 * DAY + 1), None),
            Tier::Warm => (Some(now - 31 * DAY + 1), Some(now - 8 * DAY)),
            Tier::Cold => (None, Some(now - 31 * DAY)),
        }
    }

    /// `hot`, `warm` or `cold` (any case).
    pub fn parse(s: &str) -> Option<Tier> {
        [Tier::Hot, Tier::Warm, Tier::Cold]
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
    }

    pub fn name(self) -> &'static str {
        match self {
            Tier::Hot => "hot",
            Tier::Warm => "warm",
            Tier::Cold => "cold",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiers_creation_window_is_what_its_age_says() {
        let now = 1_780_000_000;
        let edges = [86_400 * 8 - 1, 86_400 * 8, 86_400 * 31 - 1, 86_400 * 31];
        for secs_ago in (0..40 * 86_400).step_by(3_600).chain(edges) {
            let created = now - secs_ago;
            let by_age = Tier::of(Some(created), &Counts::default(), now);
            for t in [Tier::Hot, Tier::Warm, Tier::Cold] {
                let (lo, hi) = t.created_window(now);
                let inside = lo.is_none_or(|l| created >= l) && hi.is_none_or(|h| created <= h);
                assert_eq!(inside, t == by_age, "{secs_ago}s ago, {t:?}");
            }
        }
        // A date in the future is hot, as Tier::of says.
        assert_eq!(
            Tier::of(Some(now + 999), &Counts::default(), now),
            Tier::Hot
        );
        assert!(Tier::Hot.created_window(now).1.is_none());
    }

    #[test]
    fn reads_are_folded_once_into_a_table_queries_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        for _ in 0..5 {
            record(&home, &["notes/a.md"], Access::Read, "cli").expect("record");
        }
        record(&home, &["notes/a.md", "notes/b.md"], Access::Listed, "mcp").expect("listed");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(log_path(&home))
                .expect("log")
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        // A torn last line and garbage are skipped, counted.
        std::fs::OpenOptions::new()
            .append(true)
            .open(log_path(&home))
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"not json\n{\"id\":\"x\"}\n{\"ts"))
            .expect("garbage");
        let r = fold(&home).expect("fold");
        assert_eq!((r.lines, r.malformed, r.records), (7, 3, 2));
        let t = Rehearsal::load(&home);
        let a = t.counts("notes/a.md");
        assert_eq!((a.reads, a.listed), (5, 1));
        assert!(a.last_read.is_some());
        assert_eq!(t.counts("notes/b.md").reads, 0);
        assert_eq!(t.counts("notes/none.md"), Counts::default());
        // Folding again adds nothing; new reads add up.
        assert_eq!(fold(&home).expect("fold").lines, 0);
        record(&home, &["notes/a.md"], Access::Read, "cli").expect("record");
        fold(&home).expect("fold");
        assert_eq!(Rehearsal::load(&home).counts("notes/a.md").reads, 6);
        // A file a crashed fold counted but did not delete is not counted twice.
        let leftover = dir.path().join("logs/access.jsonl.fold-1-1");
        let line = b"{\"ts\":\"2026-01-01T00:00:00Z\",\"id\":\"notes/a.md\",\"access\":\"read\"}\n";
        std::fs::write(&leftover, line).expect("w");
        let mut one = HashMap::new();
        one.insert(
            "notes/a.md".to_string(),
            Counts {
                reads: 1,
                listed: 0,
                last_read: None,
            },
        );
        let reg = Registry::open(&home).expect("registry");
        reg.add_access("access.jsonl.fold-1-1", &one)
            .expect("counted");
        fold(&home).expect("fold");
        assert!(!leftover.exists());
        assert_eq!(Rehearsal::load(&home).counts("notes/a.md").reads, 7);
        // A table that is not one reads as empty.
        std::fs::write(table_path(&home), b"BRAINRH1xyz").expect("w");
        assert!(Rehearsal::load(&home).is_empty());
    }

    #[test]
    fn tiers_follow_age_and_reads_resist_decay() {
        let day = 86_400;
        let now = 1_000 * day;
        let none = Counts::default();
        assert_eq!(Tier::of(Some(now - 3 * day), &none, now), Tier::Hot);
        assert_eq!(Tier::of(Some(now - 20 * day), &none, now), Tier::Warm);
        assert_eq!(Tier::of(Some(now - 90 * day), &none, now), Tier::Cold);
        let read_lately = Counts {
            reads: 1,
            listed: 0,
            last_read: Some(now - day),
        };
        assert_eq!(Tier::of(Some(now - 90 * day), &read_lately, now), Tier::Hot);
        let read_often = Counts {
            reads: 9,
            listed: 0,
            last_read: Some(now - 200 * day),
        };
        assert_eq!(
            Tier::of(Some(now - 300 * day), &read_often, now),
            Tier::Warm
        );
        assert_eq!(Tier::of(None, &none, now), Tier::Hot);
    }
}
