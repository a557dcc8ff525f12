//! The exit-code contract and the bounds issue 37 found broken: a closed pipe is success in every
//! binary; a full disk, a read-only file system or a folder where a state file belongs is exit 65
//! with its fix, never 0 or 99; a missing scheduler is 65 and a timer that is not enabled is named;
//! the stop hook's log is private from its first byte; a killed rebuild's leftover is named and
//! cleaned; the captures refuse the passwords that used to pass and store no terminal escape.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use brain_tests::{bin, command, run, workspace};

fn ok(out: &std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A notes home of a few notes, indexed.
fn notes(work: &Path) -> PathBuf {
    let home = work.join("home");
    let notes = work.join("notes");
    brain_tests::notes_home(&home, &notes);
    for i in 0..40 {
        std::fs::write(
            notes.join(format!("n{i}.md")),
            format!("# Note {i}\n\nThe deploy checklist, step {i}: rotate the keys and tag the release.\n"),
        )
        .expect("note");
    }
    ok(
        &run(command("lexindex", &home).arg("--all"), b""),
        "lexindex",
    );
    home
}

/// `cmd` with its stdout's reading end closed at once: the exit code.
fn into_closed_pipe(cmd: &mut Command, stdin: &[u8]) -> Option<i32> {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(stdin);
    }
    child.wait().expect("wait").code()
}

#[test]
fn a_closed_pipe_is_success_in_every_binary() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    let Some(claude) = brain_tests::corpus("claude-code") else {
        return;
    };
    let docs = run(command("jsonl2md", &home).arg(&claude), b"").stdout;
    assert!(docs.len() > 1 << 16, "more than a pipe holds");
    let golden = workspace().join("golden");
    let session = std::fs::read(golden.join("distill-prompt/short-session/stdin")).expect("doc");
    let hits = std::fs::read(golden.join("fmt/csv/stdin")).expect("hits");
    let history = brain_tests::corpus("chrome")
        .map(|c| c.join("chromium156_headless_generated/History"))
        .expect("chrome");
    let cases: Vec<(&str, Vec<String>, Vec<u8>)> = vec![
        ("jsonl2md", vec![claude.display().to_string()], vec![]),
        ("partition", vec!["--dry-run".into()], docs.clone()),
        (
            "chrome2md",
            vec![
                "--history".into(),
                history.display().to_string(),
                "--no-state".into(),
            ],
            vec![],
        ),
        ("distill-prompt", vec![], session),
        ("fmt", vec!["--csv".into()], hits),
        ("rank", vec!["deploy checklist".into()], vec![]),
        ("lexindex", vec!["--dump".into()], vec![]),
        ("vecindex", vec!["--chunks".into()], docs),
        (
            "brain",
            vec!["ask".into(), "--json".into(), "deploy".into()],
            vec![],
        ),
        ("brain", vec!["recent".into()], vec![]),
        ("brain", vec!["get".into(), "notes/n1.md".into()], vec![]),
        ("brain", vec!["explain".into()], vec![]),
    ];
    for (name, args, stdin) in cases {
        let code = into_closed_pipe(command(name, &home).args(&args), &stdin);
        assert_eq!(code, Some(0), "{name} {args:?}");
    }
}

#[test]
fn a_folder_where_working_memory_belongs_is_65_with_its_fix() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    std::fs::create_dir_all(home.join("state/wm.json/x")).expect("a folder");
    for args in [
        &["wm", "add", "a note"][..],
        &["wm", "tick"],
        &["wm", "list"],
        &["context", "deploy"],
    ] {
        let out = run(command("brain", &home).args(args), b"");
        assert_eq!(
            out.status.code(),
            Some(65),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("wm.json") && said.contains("a folder stands"),
            "{said}"
        );
    }
}

/// Run `script` with `$H` a tmpfs of `kib` KiB, in a mount namespace of its own (the mount goes
/// with the process). `None` where mounting is not allowed (not root).
fn on_small_disk(kib: u64, script: &str, env: &[(&str, &Path)]) -> Option<String> {
    let work = tempfile::tempdir().expect("tempdir");
    let h = work.path().join("h");
    std::fs::create_dir_all(&h).expect("mkdir");
    let probe = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!("mount -t tmpfs -o size=64k tmpfs {}", h.display()))
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        brain_tests::skip("cannot mount a small file system here (unshare -m needs root)");
        return None;
    }
    let mut c = Command::new("unshare");
    c.args(["-m", "--propagation", "private", "bash", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size={kib}k tmpfs \"$H\" && chmod 700 \"$H\" && {script}"
        ))
        .env("H", &h)
        .env("BRAIN_HOME", &h)
        .env("HOME", &h)
        .env(
            "PATH",
            format!(
                "{}:{}",
                brain_tests::bin_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("TZ", "UTC")
        .env_remove("BRAIN_TELEMETRY");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("unshare");
    Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_full_disk_is_65_with_its_fix_in_every_writer() {
    let Some(claude) = brain_tests::corpus("claude-code") else {
        return;
    };
    let model = brain_tests::model_dir();
    let embed = model.as_ref().map_or(String::new(), |m| {
        format!(
            "BRAIN_EMBEDDER=local:{} vecindex --all >/dev/null 2>$H/../err; echo \"vecindex=$?\"; cat $H/../err; ",
            m.display()
        )
    });
    // Index a little, then fill the disk and run every writer once.
    let script = format!(
        "jsonl2md {c}/daaain-claude-code-log > $H/../docs 2>/dev/null; \
         head -c 200000 $H/../docs | partition 2>/dev/null | lexindex --quiet; echo \"first=$?\"; \
         dd if=/dev/zero of=$H/filler bs=4k 2>/dev/null; \
         jsonl2md {c} 2>/dev/null | partition >/dev/null 2>$H/../err; echo \"partition=${{PIPESTATUS[1]}}\"; cat $H/../err; \
         lexindex --all --rebuild 2>$H/../err; echo \"rebuild=$?\"; cat $H/../err; \
         brain inbox 'decided: ship on Thursdays' 2>$H/../err; echo \"inbox=$?\"; cat $H/../err; \
         brain wm add 'a note' 2>$H/../err; echo \"wm=$?\"; cat $H/../err; \
         jsonl2md --new {c}/codemie-code >/dev/null 2>$H/../err; echo \"jsonl2md=$?\"; cat $H/../err; \
         mkdir -p $H/../notes; brain collection add notes2 $H/../notes 2>$H/../err; echo \"collection=$?\"; cat $H/../err; \
         {embed}",
        c = claude.display()
    );
    let Some(said) = on_small_disk(3 * 1024, &script, &[]) else {
        return;
    };
    assert!(said.contains("first=0"), "{said}");
    let mut writers = vec![
        "partition",
        "rebuild",
        "inbox",
        "wm",
        "jsonl2md",
        "collection",
    ];
    if model.is_some() {
        writers.push("vecindex");
    }
    for w in writers {
        let code = said
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{w}=")))
            .unwrap_or_else(|| panic!("{w} did not run: {said}"));
        assert_eq!(code, "65", "{w}: {said}");
    }
    assert!(said.contains("free space on the disk"), "{said}");
    assert!(!said.contains("=99"), "{said}");
}

#[test]
fn a_missing_scheduler_is_65_and_a_timer_that_is_not_enabled_is_named() {
    let t = tempfile::tempdir().expect("tempdir");
    let (home, user) = (t.path().join("home"), t.path().join("user"));
    let out = run(
        command("brain", &home)
            .env("HOME", &user)
            .env("BRAIN_CRONTAB", t.path().join("no-such-crontab"))
            .args(["schedule", "install", "--cron"]),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // No user session bus: systemctl fails. The units are written, the install fails, and doctor
    // says the timer never runs.
    let systemctl = t.path().join("systemctl");
    std::fs::write(
        &systemctl,
        "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n",
    )
    .expect("stand-in");
    std::fs::set_permissions(
        &systemctl,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let brain = |args: &[&str]| {
        run(
            command("brain", &home)
                .env("HOME", &user)
                .env("XDG_CONFIG_HOME", user.join(".config"))
                .env("BRAIN_SYSTEMCTL", &systemctl)
                .args(args),
            b"",
        )
    };
    let out = brain(&["schedule", "install", "--systemd"]);
    assert_eq!(
        out.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("the timer is not enabled"), "{said}");
    assert!(
        user.join(".config/systemd/user/brain-nightly.timer")
            .exists()
    );
    let doctor = run(
        command("brain", &home)
            .env("HOME", &user)
            .env("XDG_CONFIG_HOME", user.join(".config"))
            .env("BRAIN_SYSTEMCTL", &systemctl)
            .args(["doctor", "--json"]),
        b"",
    );
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("json");
    let check = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "schedules"))
        .expect("schedules check");
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(
        check["details"].to_string().contains("not enabled"),
        "{check}"
    );
}

#[test]
fn the_stop_hooks_log_is_private_from_its_first_byte() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    // The home `brain hook install` made (private): a hook never makes one.
    std::fs::create_dir_all(&home).expect("home");
    std::fs::set_permissions(&home, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "umask 022; bash {} </dev/null",
            workspace().join("pipelines/stop-hook.sh").display()
        ))
        .env("BRAIN_HOME", &home)
        .env("HOME", &home)
        .env("BRAIN_BIN", bin("brain"))
        .output()
        .expect("hook");
    assert!(out.status.success());
    let log = home.join("logs/hook.log");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&log).expect("log").permissions(),
    );
    assert_eq!(mode & 0o077, 0, "{mode:o}");
    assert_eq!(
        brain_tests::doctor_check(&home, "privacy")["outcome"],
        "pass"
    );
}

#[test]
fn a_killed_rebuilds_leftover_is_named_by_doctor_and_cleaned_by_the_next_writer() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    // What a rebuild killed half-way leaves: a lex.next beside the live index.
    let next = home.join("index/lex.next");
    std::fs::create_dir_all(&next).expect("lex.next");
    std::fs::write(next.join("0000.store"), vec![0u8; 4096]).expect("a segment");
    let check = brain_tests::doctor_check(&home, "lexical_index");
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("lex.next")),
        "{check}"
    );
    let ask = run(command("brain", &home).args(["ask", "deploy"]), b"");
    assert!(String::from_utf8_lossy(&ask.stderr).contains("rebuild is under way"));
    // The next writer (a stdin run, the stop hook's kind) removes it.
    ok(&run(&mut command("lexindex", &home), b""), "lexindex");
    assert!(!next.exists());
    assert_eq!(
        brain_tests::doctor_check(&home, "lexical_index")["outcome"],
        "pass"
    );
    let ask = run(command("brain", &home).args(["ask", "deploy"]), b"");
    assert!(!String::from_utf8_lossy(&ask.stderr).contains("rebuild is under way"));
}

#[test]
fn the_captures_refuse_the_passwords_that_passed_and_store_no_terminal_escape() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    for secret in [
        "the db password=Summer.2024 for staging",
        "call it with Authorization: Bearer abc.defghij.klmnopqrst",
        "run mysql -u root -phunterpass prod",
        "psql --password correcthorse",
    ] {
        let inbox = run(command("brain", &home).args(["inbox", secret]), b"");
        assert_eq!(inbox.status.code(), Some(71), "inbox: {secret}");
        let wm = run(command("brain", &home).args(["wm", "add", secret]), b"");
        assert_eq!(wm.status.code(), Some(71), "wm: {secret}");
    }
    assert!(!home.join("inbox").exists() || brain_tests::tree(&home.join("inbox")).is_empty());
    let add = run(
        command("brain", &home).args(["wm", "add", "\u{1b}[31mred\u{1b}[0m alert\u{7}\u{202e}txt"]),
        b"",
    );
    ok(&add, "wm add");
    let stored = std::fs::read_to_string(home.join("state/wm.json")).expect("wm.json");
    assert!(
        !stored.contains('\u{1b}') && !stored.contains("\\u001b") && !stored.contains('\u{202e}'),
        "{stored}"
    );
    let list = run(command("brain", &home).args(["wm", "list"]), b"");
    assert!(
        !list.stdout.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
}

/// Zero every page of the SQLite file `db` but its first.
fn zero_pages(db: &Path) {
    let mut bytes = std::fs::read(db).expect("read");
    let size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => usize::from(n),
    };
    for b in bytes.iter_mut().skip(size) {
        *b = 0;
    }
    std::fs::write(db, bytes).expect("write");
}

#[test]
fn a_damaged_cursor_or_opencode_store_is_named_with_why_never_silent() {
    let (Some(cursor), Some(opencode)) = (
        brain_tests::corpus("cursor"),
        brain_tests::corpus("opencode"),
    ) else {
        return;
    };
    let vscdb = cursor.join("built-here/User/globalStorage/state.vscdb");
    let odb = walkdir::WalkDir::new(&opencode)
        .into_iter()
        .flatten()
        .find(|e| e.file_name() == "opencode.db")
        .expect("an opencode.db")
        .into_path();
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    type Damage = fn(&Path);
    let drop_tables: Damage = |db| {
        let c = rusqlite::Connection::open(db).expect("open");
        for table in ["cursorDiskKV", "ItemTable", "part"] {
            let _ = c.execute_batch(&format!("DROP TABLE IF EXISTS {table}"));
        }
    };
    for (what, damage, why) in [
        ("lost tables", drop_tables, "table"),
        ("zeroed pages", zero_pages as Damage, "malformed"),
    ] {
        for (src, name, sub) in [
            (&vscdb, "state.vscdb", "c/User/globalStorage"),
            (&odb, "opencode.db", "o"),
        ] {
            let dir = t.path().join(what).join(sub);
            std::fs::create_dir_all(&dir).expect("mkdir");
            let db = dir.join(name);
            std::fs::copy(src, &db).expect("copy");
            damage(&db);
            let root = t
                .path()
                .join(what)
                .join(sub.split('/').next().unwrap_or(sub));
            let out = run(command("jsonl2md", &home).arg(&root), b"");
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(
                said.contains(&db.display().to_string())
                    && said.contains(why)
                    && said.contains("1 unreadable"),
                "{what} {name}: {said}"
            );
            assert_ne!(out.status.code(), Some(99), "{said}");
        }
    }
}

#[test]
fn yaml_nested_50000_deep_is_refused_at_once_everywhere_it_is_read() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    // The strategy file: refused as bad input, naming it.
    std::fs::write(
        home.join("search_strategy.yaml"),
        format!("rrf:\n  k: {deep}\n"),
    )
    .expect("strategy");
    let ask = run(command("brain", &home).args(["ask", "deploy"]), b"");
    assert_eq!(ask.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&ask.stderr).contains("nested more than 64"));
    std::fs::remove_file(home.join("search_strategy.yaml")).expect("rm");
    // A document's frontmatter: not read as YAML (the file is indexed as its text), at once.
    std::fs::write(
        work.path().join("notes/deep.md"),
        format!("---\ntags: {deep}\n---\n# Deep\n"),
    )
    .expect("deep note");
    let lex = run(command("lexindex", &home).arg("--all"), b"");
    let said = ok(&lex, "lexindex");
    assert!(said.contains("1 added"), "{said}");
    // brain.yaml: refused as bad input by the writers that need it.
    let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("yaml");
    std::fs::write(home.join("brain.yaml"), format!("{yaml}other: {deep}\n")).expect("yaml");
    let lex = run(command("lexindex", &home).arg("--all"), b"");
    assert_eq!(
        lex.status.code(),
        Some(64),
        "{}",
        String::from_utf8_lossy(&lex.stderr)
    );
    assert!(String::from_utf8_lossy(&lex.stderr).contains("nested more than 64"));
}

#[test]
fn a_record_may_only_supersede_one_that_exists() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = notes(work.path());
    let out = run(
        command("brain", &home).args([
            "inbox",
            "--supersedes",
            "notes/no-such.md",
            "decided: ship on Fridays",
        ]),
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("notes/no-such.md") && said.contains("names no record"),
        "{said}"
    );
    for target in ["notes/n1.md", "brain://notes/n2.md"] {
        let out = run(
            command("brain", &home).args([
                "inbox",
                "--supersedes",
                target,
                "decided: ship on Thursdays instead",
            ]),
            b"",
        );
        ok(&out, target);
    }
    let escape = run(
        command("brain", &home).args([
            "inbox",
            "--supersedes",
            "notes/../../etc/passwd",
            "decided: x",
        ]),
        b"",
    );
    assert_eq!(escape.status.code(), Some(64));
}

/// The watcher on a full disk (issue 57): the batch that cannot write says why and keeps its
/// target dirty, the watcher keeps running, and once there is room the next batch indexes what
/// waited — nothing lost. The notes live off the full disk; the home is on it.
#[test]
fn a_watcher_on_a_full_disk_says_why_and_catches_up_when_there_is_room() {
    let script = r#"
        N=$H/../notes; mkdir -p $N
        printf 'version: 1\ncollections:\n  - name: notes\n    path: %s\npartition:\n  default: notes\n' "$N" > $H/brain.yaml
        printf -- '---\ntitle: first\n---\nalpha\n' > $N/a.md
        brain watch --json --embed-budget 0 --settle 100 --poll 0.2 > $H/../watch.out 2>$H/../watch.err &
        W=$!
        batches() { grep -c '"kind":"batch"' $H/../watch.out; }
        wait_for() { for i in $(seq 1 600); do [ "$(batches)" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
        wait_for 1 || echo "no first batch"
        dd if=/dev/zero of=$H/filler bs=4k 2>/dev/null
        printf -- '---\ntitle: second\n---\nzebraword on a full disk\n' > $N/b.md
        wait_for 2 || echo "no batch on the full disk"
        kill -0 $W && echo "alive=yes"
        rm -f $H/filler
        printf -- '---\ntitle: third\n---\nquokkaword with room again\n' > $N/c.md
        # Both notes searchable within the deadline (a hang guard, not a measure).
        for i in $(seq 1 300); do
          brain ask --json --mode lex zebraword >/dev/null 2>&1 && z=0 || z=$?
          brain ask --json --mode lex quokkaword >/dev/null 2>&1 && q=0 || q=$?
          [ "$z$q" = 00 ] && break; sleep 0.1
        done
        echo "zebraword=$z"; echo "quokkaword=$q"
        kill $W; wait $W 2>/dev/null
        echo "--- watch"; cat $H/../watch.out; echo "--- stderr"; cat $H/../watch.err
    "#;
    let Some(said) = on_small_disk(3 * 1024, script, &[]) else {
        return;
    };
    assert!(said.contains("alive=yes"), "{said}");
    assert!(
        !said.contains("no first batch") && !said.contains("no batch"),
        "{said}"
    );
    let batches: Vec<serde_json::Value> = said
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "batch")
        .collect();
    assert!(batches.len() >= 3, "{said}");
    let failed: Vec<String> = batches[1]["failed"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        failed.iter().any(|f| f.contains("free space on the disk")),
        "the full disk's batch says why: {said}"
    );
    assert!(
        said.contains("zebraword=0"),
        "the note that waited is indexed: {said}"
    );
    assert!(said.contains("quokkaword=0"), "{said}");
}
