//! `brain watch` (issue 57): a note saved, saved again the way editors do (a temporary file
//! renamed over it), moved, deleted, its folder removed and created again, an agent's transcript
//! growing, 1,000 random edits, moves and deletes, a `kill -9` with changes made while nobody
//! watched, a second watcher, and polling: each time the index ends equal to the files (doctor's
//! `corpus_sync` and `lexical_index` checks, and the words searched). No timings are asserted: a
//! generous deadline only stops a test that would otherwise hang.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{RwLock, RwLockReadGuard, mpsc};
use std::time::{Duration, Instant};

use brain_tests::{command, doctor_check, notes_home, run};
use serde_json::Value;

/// Longest wait for something the watcher must do (a hang guard, not a measure).
const DEADLINE: Duration = Duration::from_secs(120);

struct Watcher {
    child: Child,
    lines: mpsc::Receiver<Value>,
    /// What it said before its first batch (how it watches, a fallback).
    said: Vec<Value>,
}

/// The test that takes every inotify instance of this user holds it for writing; every other
/// test of this file reads it, so no other watcher starts meanwhile.
static OS_EVENTS: RwLock<()> = RwLock::new(());

fn os_events() -> RwLockReadGuard<'static, ()> {
    OS_EVENTS.read().unwrap_or_else(|e| e.into_inner())
}

impl Watcher {
    fn start(home: &Path, extra: &[&str]) -> Watcher {
        let mut child = command("brain", home)
            .args(["watch", "--json", "--embed-budget", "0", "--settle", "100"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn brain watch");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let mut w = Watcher {
            child,
            lines,
            said: Vec::new(),
        };
        // Its start: watching, then the catch-up batch.
        let mut said = Vec::new();
        w.wait_for(|v| {
            said.push(v.clone());
            v["kind"] == "batch"
        });
        w.said = said;
        w
    }

    /// The first record `pick` accepts.
    fn wait_for(&self, mut pick: impl FnMut(&Value) -> bool) -> Value {
        let until = Instant::now() + DEADLINE;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if pick(&v) => return v,
                Ok(_) => {}
                Err(e) => panic!("brain watch said nothing more ({e})"),
            }
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Poll `ok` until it holds (panics past the deadline, naming `what`).
fn eventually(what: &str, ok: impl Fn() -> bool) {
    let until = Instant::now() + DEADLINE;
    while !ok() {
        assert!(Instant::now() < until, "never: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The titles `brain ask --mode lex WORD` lists.
fn titles(home: &Path, word: &str) -> Vec<String> {
    let out = run(
        command("brain", home).args(["ask", "--json", "--mode", "lex", "-n", "50", word]),
        b"",
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|h| h["title"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The index holds exactly the files on disk, as they are.
fn in_sync(home: &Path) -> bool {
    ["corpus_sync", "lexical_index"]
        .iter()
        .all(|c| doctor_check(home, c)["outcome"] == "pass")
}

fn note(dir: &Path, name: &str, title: &str, body: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, format!("---\ntitle: {title}\n---\n{body}\n")).expect("write");
}

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let notes = t.path().join("notes");
    notes_home(&home, &notes);
    (t, home, notes)
}

#[test]
fn a_saved_note_moved_deleted_and_its_folder_recreated_is_indexed_as_it_is() {
    let _events = os_events();
    let (_t, home, notes) = setup();
    // Claude Code is installed (its places exist) before the watcher starts.
    let projects = home.join(".claude/projects/p1");
    std::fs::create_dir_all(&projects).expect("projects");
    // A link loop and a link to the root in the notes folder: neither followed.
    std::os::unix::fs::symlink(&notes, notes.join("loop")).expect("loop");
    std::os::unix::fs::symlink("/", notes.join("root")).expect("root link");
    let w = Watcher::start(&home, &[]);

    note(
        &notes,
        "zebra.md",
        "Zebra migration",
        "The zebra migration uses a blue table.",
    );
    eventually("a new note found", || {
        titles(&home, "zebra") == ["Zebra migration"]
    });

    // An editor's save: a temporary file renamed over the note.
    note(
        &notes,
        ".zebra.md.swp",
        "Zebra migration",
        "The zebra migration uses a green table.",
    );
    std::fs::rename(notes.join(".zebra.md.swp"), notes.join("zebra.md")).expect("rename");
    eventually("the saved text found", || {
        !titles(&home, "green").is_empty()
    });
    eventually("the old text gone", || titles(&home, "blue").is_empty());

    // Moved into a folder, then deleted.
    std::fs::create_dir_all(notes.join("archive")).expect("archive");
    std::fs::rename(notes.join("zebra.md"), notes.join("archive/zebra.md")).expect("move");
    eventually("the move indexed", || in_sync(&home));
    assert_eq!(titles(&home, "zebra"), ["Zebra migration"]);
    std::fs::remove_file(notes.join("archive/zebra.md")).expect("delete");
    eventually("the deleted note gone", || {
        titles(&home, "zebra").is_empty()
    });

    // The collection's folder removed and created again: watched again, its notes indexed.
    std::fs::remove_dir_all(&notes).expect("rm notes");
    std::fs::create_dir_all(&notes).expect("mkdir notes");
    note(
        &notes,
        "okapi.md",
        "Okapi cache",
        "The okapi cache warms at nine.",
    );
    eventually("a note in the recreated folder found", || {
        titles(&home, "okapi") == ["Okapi cache"]
    });

    // An agent's transcript, turn by turn.
    let transcript = projects.join("00000000-0000-4000-8000-000000000001.jsonl");
    let turn = |uuid: &str, kind: &str, text: &str| {
        format!(
            "{{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\",\"sessionId\":\"00000000-0000-4000-8000-000000000001\",\"version\":\"2.1.3\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-11-21T10:00:00.000Z\",\"type\":\"{kind}\",\"message\":{{\"role\":\"{kind}\",\"content\":\"{text}\"}}}}\n"
        )
    };
    std::fs::write(
        &transcript,
        turn("u1", "user", "why is the quokka queue stuck"),
    )
    .expect("turn");
    eventually("the first turn found", || {
        !titles(&home, "quokka").is_empty()
    });
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .expect("open");
    std::io::Write::write_all(
        &mut f,
        turn("a1", "assistant", "The wombat lease expired.").as_bytes(),
    )
    .expect("append");
    eventually("the next turn found", || {
        !titles(&home, "wombat").is_empty()
    });

    // A second watcher of the same home is refused while this one runs.
    let second = run(command("brain", &home).args(["watch", "--json"]), b"");
    assert_eq!(
        second.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let status = run(
        command("brain", &home).args(["watch", "status", "--json"]),
        b"",
    );
    assert_eq!(status.status.code(), Some(0));
    let s: Value = serde_json::from_slice(&status.stdout).expect("status json");
    assert_eq!(s["status"], "running", "{s}");
    assert!(s["state"]["batches"].as_u64().unwrap_or(0) >= 5, "{s}");
    w.kill();
    let status = run(command("brain", &home).args(["watch", "status"]), b"");
    assert_eq!(status.status.code(), Some(67));
}

/// 1,000 random creates, edits, moves and deletes in 20 folders as fast as they come, a `kill -9`
/// with changes made while nobody watched, then polling: the index ends equal to the files.
#[test]
fn a_thousand_random_changes_and_a_kill_miss_nothing() {
    let _events = os_events();
    let (_t, home, notes) = setup();
    let w = Watcher::start(&home, &[]);
    // A fixed generator (xorshift): the same run every time.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut live: Vec<PathBuf> = Vec::new();
    for i in 0..1000 {
        let op = if live.len() < 20 { 0 } else { next(4) };
        match op {
            0 => {
                let rel = format!("d{}/n{i}.md", next(20));
                note(
                    &notes,
                    &rel,
                    &format!("Note {i}"),
                    &format!("word{i} text {i}"),
                );
                live.push(notes.join(rel));
            }
            1 => {
                let p = &live[next(live.len() as u64) as usize];
                std::fs::write(p, format!("---\ntitle: Edited {i}\n---\nedit{i}\n")).expect("edit");
            }
            2 => {
                let k = next(live.len() as u64) as usize;
                let to = notes.join(format!("d{}/m{i}.md", next(20)));
                std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
                std::fs::rename(&live[k], &to).expect("move");
                live[k] = to;
            }
            _ => {
                let k = next(live.len() as u64) as usize;
                std::fs::remove_file(live.swap_remove(k)).expect("delete");
            }
        }
    }
    eventually("1,000 changes indexed as they are", || in_sync(&home));
    let last = live.last().expect("a live note").clone();
    let text = std::fs::read_to_string(&last).expect("read");
    let word = text
        .lines()
        .last()
        .expect("body")
        .split(' ')
        .next()
        .expect("word");
    assert!(
        !titles(&home, word).is_empty(),
        "{word} of {}",
        last.display()
    );

    // Killed; changes made while nobody watches are caught up at the next start.
    w.kill();
    note(
        &notes,
        "late/kiwi.md",
        "Kiwi while down",
        "The kiwi note was written while nobody watched.",
    );
    std::fs::remove_file(live.swap_remove(0)).expect("delete");
    let w = Watcher::start(&home, &["--poll", "0.2"]);
    assert!(in_sync(&home), "caught up by the start's batch");
    assert_eq!(titles(&home, "kiwi"), ["Kiwi while down"]);
    // Polling sees changes too.
    note(
        &notes,
        "late/lynx.md",
        "Lynx by polling",
        "The lynx note is found by polling.",
    );
    eventually("a change seen by polling", || {
        titles(&home, "lynx") == ["Lynx by polling"]
    });
    w.kill();
}

/// Documents saved into a watched collection that takes them (a PDF, a saved page) are converted
/// and searchable, a damaged one is named by doctor without failing the sync, and a deleted one
/// leaves the index.
#[test]
fn documents_saved_into_a_collection_are_converted_and_indexed() {
    let _events = os_events();
    let (_t, home, notes) = setup();
    brain_tests::documents_home(&home, &notes, "**/*.{md,pdf,html}");
    let w = Watcher::start(&home, &[]);
    let golden = brain_tests::workspace().join("golden/doc2md");
    std::fs::copy(
        golden.join("pdf-pages-and-info/report.pdf"),
        notes.join("report.pdf"),
    )
    .expect("pdf");
    std::fs::copy(
        golden.join("html-saved-page/page.html"),
        notes.join("page.html"),
    )
    .expect("html");
    std::fs::write(notes.join("broken.pdf"), "%PDF-1.7 broken").expect("broken");
    eventually("the PDF found", || {
        titles(&home, "latency") == ["Cache migration"]
    });
    eventually("the saved page found", || {
        !titles(&home, "stampedes").is_empty()
    });
    eventually("in sync, the damaged PDF named", || in_sync(&home));
    let sync = doctor_check(&home, "corpus_sync");
    assert!(sync["details"].to_string().contains("broken.pdf"), "{sync}");
    std::fs::remove_file(notes.join("report.pdf")).expect("rm");
    eventually("the deleted PDF gone", || {
        titles(&home, "latency").is_empty()
    });
    w.kill();
}

#[test]
fn the_watcher_runs_the_slow_clock_while_no_schedule_does() {
    let _events = os_events();
    let (_t, home, _notes) = setup();
    let lock = home.join("locks/clock.lock");
    assert_eq!(doctor_check(&home, "schedules")["outcome"], "fail");
    let w = Watcher::start(&home, &[]);
    eventually("the watcher holds the clock", || {
        brain_ops::locks::held(&lock)
    });
    let check = doctor_check(&home, "schedules");
    assert_eq!(check["outcome"], "pass", "{check}");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("by watch") && s.contains("no run yet")),
        "a watcher that has just caught up waits a period first: {check}"
    );
    // A loop of the user's own cannot start beside it.
    let twice = run(command("brain", &home).args(["schedule", "run"]), b"");
    assert_eq!(twice.status.code(), Some(70));
    w.kill();
    eventually("the clock stops with the watcher", || {
        !brain_ops::locks::held(&lock)
    });
    assert_eq!(doctor_check(&home, "schedules")["outcome"], "fail");
    // A stopped loop is not a writer that died mid-run.
    assert_eq!(doctor_check(&home, "locks")["outcome"], "pass");
}

/// Every inotify instance this user may have, held open: `None` where the limit is too high to
/// reach (or not Linux's).
fn take_every_inotify_instance() -> Option<Vec<std::os::fd::OwnedFd>> {
    use rustix::fs::inotify;
    let limit: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    if limit > 4096 {
        return None;
    }
    // Room for them under this process's own file limit, so the user's limit is the one met.
    if let Ok(lim) = std::fs::read_to_string("/proc/self/limits")
        && lim
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|soft| soft.parse::<usize>().ok())
            .is_some_and(|soft| soft < limit + 256)
    {
        return None;
    }
    let mut held = Vec::new();
    while held.len() <= limit {
        match inotify::init(inotify::CreateFlags::CLOEXEC) {
            Ok(fd) => held.push(fd),
            Err(_) => return Some(held),
        }
    }
    None
}

/// No OS file events at all (every inotify instance of the user taken, as a desktop full of
/// editors and sync clients reaches): the watcher says so and why, polls, and a note saved is
/// still found — also after the instances are free again (it stays on polling).
#[test]
fn without_the_oss_file_events_the_watcher_polls_says_why_and_misses_nothing() {
    let _alone = OS_EVENTS.write().unwrap_or_else(|e| e.into_inner());
    let (_t, home, notes) = setup();
    let Some(held) = take_every_inotify_instance() else {
        brain_tests::skip("this user's inotify instances cannot all be taken here");
        return;
    };
    let w = Watcher::start(&home, &[]);
    let fallback = w.said.iter().find(|v| v["kind"] == "fallback");
    let reason = fallback.and_then(|v| v["reason"].as_str()).unwrap_or("");
    assert!(
        reason.contains("file events are not available"),
        "no fallback said: {:?}",
        w.said
    );
    let how = w
        .said
        .iter()
        .find(|v| v["kind"] == "watching")
        .and_then(|v| v["how"].as_str())
        .unwrap_or("");
    assert!(how.starts_with("polling every"), "watching {how:?}");
    note(
        &notes,
        "ocelot.md",
        "Ocelot while polling",
        "An ocelot note, seen without events.",
    );
    eventually("a note seen by polling with no OS events", || {
        titles(&home, "ocelot") == ["Ocelot while polling"]
    });
    drop(held);
    note(
        &notes,
        "margay.md",
        "Margay after",
        "A margay note once the instances are free.",
    );
    eventually("a note seen after the instances are free", || {
        titles(&home, "margay") == ["Margay after"]
    });
    eventually("the index equal to the files", || in_sync(&home));
    w.kill();
}

/// Links that loop (a folder linking to its parent, one to the collection's root): the watcher
/// starts, each note is indexed once under its own path, a new note is found, and the index
/// equals the files.
#[test]
fn folder_links_that_loop_are_watched_once() {
    let _events = os_events();
    let (_t, home, notes) = setup();
    note(&notes, "a/kestrel.md", "Kestrel", "A kestrel note, once.");
    std::os::unix::fs::symlink("..", notes.join("a/up")).expect("link up");
    std::os::unix::fs::symlink(&notes, notes.join("a/root")).expect("link root");
    let w = Watcher::start(&home, &[]);
    note(
        &notes,
        "a/merlin.md",
        "Merlin",
        "A merlin note beside the links.",
    );
    eventually("a note beside looping links", || {
        titles(&home, "merlin") == ["Merlin"]
    });
    assert_eq!(titles(&home, "kestrel"), ["Kestrel"]);
    eventually("the index equal to the files", || in_sync(&home));
    w.kill();
}
