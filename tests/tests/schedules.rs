//! The slow clock: `pipelines/nightly.mk` run for real on a temp home, `brain schedule install|remove`
//! for cron, systemd and launchd (stand-ins record what would run; the machine's schedules are never
//! touched), `brain skills install`, and an installed layout finding its stages and pipelines.
//!
//! Build first: `cargo build --workspace --bins`.

use std::path::{Path, PathBuf};
use std::process::Command;

use brain_ops::Explain;
use brain_ops::schedule::Scheduler;
use brain_tests::{bin, command, corpus, run, workspace};

fn stand_ins(dir: &Path) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for f in ["crontab", "recorder"] {
        std::fs::copy(workspace().join("tests/fixtures/ops").join(f), dir.join(f)).expect("copy");
    }
}

fn brain(home: &Path, user: &Path, stand: &Path, args: &[&str]) -> std::process::Output {
    run(
        command("brain", home)
            .env("HOME", user)
            .env("XDG_CONFIG_HOME", user.join(".config"))
            .env("BRAIN_CRONTAB", stand.join("crontab"))
            .env("BRAIN_SYSTEMCTL", stand.join("recorder"))
            .env("BRAIN_LAUNCHCTL", stand.join("recorder"))
            .args(args),
        b"",
    )
}

/// A scratch folder with a home, a user's home and the stand-ins.
fn scratch() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let (home, user, stand) = (
        t.path().join("home"),
        t.path().join("user"),
        t.path().join("bin"),
    );
    stand_ins(&stand);
    (t, home, user, stand)
}

#[test]
fn schedules_install_idempotently_read_back_and_remove() {
    let (t, home, user, stand) = scratch();
    std::fs::write(stand.join("crontab.txt"), "0 1 * * * backup.sh\n").expect("existing crontab");
    let b = |args: &[&str]| brain(&home, &user, &stand, args);
    for which in ["--cron", "--systemd", "--launchd"] {
        let out = b(&["schedule", "install", which]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{which}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tab = std::fs::read_to_string(stand.join("crontab.txt")).expect("crontab");
    assert!(
        tab.starts_with("0 1 * * * backup.sh\n"),
        "the user's lines stay: {tab}"
    );
    assert_eq!(tab.matches("# brain-nightly").count(), 1);
    let again = b(&["schedule", "install", "--cron"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("unchanged crontab"));
    assert_eq!(
        std::fs::read_to_string(stand.join("crontab.txt")).expect("crontab"),
        tab
    );
    let units = user.join(".config/systemd/user");
    let service = std::fs::read_to_string(units.join("brain-nightly.service")).expect("service");
    assert!(
        service.contains(&format!("\"BRAIN={}\"", bin("brain").display())),
        "{service}"
    );
    assert!(
        std::fs::read_to_string(units.join("brain-nightly.timer"))
            .expect("timer")
            .contains("OnCalendar=*-*-* 00/2:17:00")
    );
    let plist = std::fs::read_to_string(user.join("Library/LaunchAgents/com.brain.nightly.plist"))
        .expect("plist");
    assert!(
        plist.contains("<integer>7200</integer>") && plist.contains("nightly.mk</string>"),
        "{plist}"
    );
    let parsed = run(
        Command::new("python3")
            .args(["-c", "import plistlib, sys; print(plistlib.load(open(sys.argv[1], 'rb'))['ProgramArguments'][4])"])
            .arg(user.join("Library/LaunchAgents/com.brain.nightly.plist")),
        b"",
    );
    assert_eq!(
        String::from_utf8_lossy(&parsed.stdout).trim(),
        workspace()
            .join("pipelines/nightly.mk")
            .display()
            .to_string(),
        "a well-formed plist: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let calls = std::fs::read_to_string(stand.join("calls.txt")).expect("calls");
    assert!(
        calls.contains("--user enable --now brain-nightly.timer"),
        "{calls}"
    );
    assert!(calls.contains("load -w "), "{calls}");
    let e: Explain = serde_json::from_slice(&b(&["explain", "--json"]).stdout).expect("explain");
    let kinds: Vec<Scheduler> = e.schedules.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [Scheduler::Cron, Scheduler::Systemd, Scheduler::Launchd]
    );
    for s in &e.schedules {
        assert_eq!(s.problem, None, "{s:?}");
        assert!(
            s.nightly.as_deref().is_some_and(|n| Path::new(n).is_file()),
            "{s:?}"
        );
        assert_eq!(
            s.brain.as_deref(),
            Some(bin("brain").display().to_string().as_str()),
            "{s:?}"
        );
    }
    assert_eq!(b(&["schedule", "remove"]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(stand.join("crontab.txt")).expect("crontab"),
        "0 1 * * * backup.sh\n"
    );
    assert!(
        !units.join("brain-nightly.service").exists()
            && !units.join("brain-nightly.timer").exists()
    );
    let e: Explain = serde_json::from_slice(&b(&["explain", "--json"]).stdout).expect("explain");
    assert!(e.schedules.is_empty());
    let out = run(
        command("brain", &home)
            .env("BRAIN_PIPELINES", t.path().join("nowhere"))
            .args(["schedule", "install", "--cron"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(65), "no pipelines folder");
    assert_eq!(
        b(&["schedule", "install", "--cron", "--systemd"])
            .status
            .code(),
        Some(64),
        "one scheduler at a time"
    );
}

#[test]
fn skills_install_is_idempotent_and_explain_shows_their_scope() {
    let (_t, home, user, stand) = scratch();
    let b = |args: &[&str]| brain(&home, &user, &stand, args);
    let first = String::from_utf8_lossy(&b(&["skills", "install"]).stderr).into_owned();
    assert_eq!(first.matches("installed ").count(), 3, "{first}");
    let second = String::from_utf8_lossy(&b(&["skills", "install"]).stderr).into_owned();
    assert_eq!(second.matches("unchanged ").count(), 3, "{second}");
    let e: Explain = serde_json::from_slice(&b(&["explain", "--json"]).stdout).expect("explain");
    let scopes: Vec<(&str, &str)> = e
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.scope.as_deref().unwrap_or("")))
        .collect();
    // Wherever the user works by default (issue 38: code lives in ~/code, ~/src, anywhere).
    assert_eq!(
        scopes,
        [
            ("brain-ask", "every folder"),
            ("brain-inbox", "unconditional (every folder)"),
            ("brain-recent", "every folder")
        ]
    );
    for s in &e.skills {
        let text = std::fs::read_to_string(&s.path).expect("SKILL.md");
        assert!(
            !text.contains("{{scope}}") && !text.contains("~/Projects"),
            "{text}"
        );
    }
    // --scope narrows them to the folders named, in the description the agent reads too.
    let scoped = b(&[
        "skills",
        "install",
        "--scope",
        "~/code/**",
        "--scope",
        "~/work/**",
    ]);
    assert!(scoped.status.success());
    let ask = std::fs::read_to_string(user.join(".claude/skills/brain-ask/SKILL.md")).expect("ask");
    assert!(
        ask.contains("Scope - projects under `~/code/**`, `~/work/**`.")
            && ask.contains("**Scope:** projects under `~/code/**`, `~/work/**`"),
        "{ask}"
    );
    b(&["skills", "install"]);
    for s in &e.skills {
        let text = std::fs::read_to_string(&s.path).expect("SKILL.md");
        assert!(
            text.starts_with(&format!("---\nname: {}\ndescription: ", s.name)),
            "{text}"
        );
    }
    b(&["skills", "remove"]);
    assert!(!user.join(".claude/skills/brain-ask").exists());
}

#[test]
fn nightly_runs_every_step_then_doctor_and_is_safe_to_rerun() {
    let Some(dir) = corpus("claude-code") else {
        return;
    };
    let t = tempfile::tempdir().expect("tempdir");
    let (home, user) = (t.path().join("home"), t.path().join("user"));
    let projects = user.join(".claude/projects/-tmp-demo");
    std::fs::create_dir_all(&projects).expect("mkdir");
    std::fs::copy(
        dir.join("daaain-claude-code-log/representative_messages.jsonl"),
        projects.join("s1.jsonl"),
    )
    .expect("copy");
    let env = |c: &mut Command| {
        c.env("BRAIN_HOME", &home)
            .env("HOME", &user)
            .env("BRAIN_CRONTAB", "false")
            .env_remove("BRAIN_DISTILL_COMMAND")
            .env_remove("BRAIN_EMBEDDER")
            .env_remove("BRAIN_TELEMETRY");
    };
    // Twice through brain's own loop (what a login line or a watcher runs where no scheduler
    // does), once through make alone with nothing running the clock.
    for round in 0..2 {
        let mut c = command("brain", &home);
        env(&mut c);
        let out = run(c.args(["schedule", "run", "--once"]), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "round {round}: {err}");
        assert!(err.contains("the slow clock ran at"), "{err}");
        let log = std::fs::read_to_string(home.join("logs/nightly.log")).expect("log");
        assert!(
            log.matches("distill skipped").count() == round + 1
                && log.contains("browser skipped")
                && log.contains("embed skipped"),
            "{log}"
        );
        let state: brain_ops::schedule::clock::State =
            serde_json::from_slice(&std::fs::read(home.join("state/clock.json")).expect("state"))
                .expect("clock state");
        assert_eq!((state.by.as_str(), state.runs), ("terminal", 1));
        assert_eq!(state.last.as_ref().map(|l| l.exit), Some(0), "{state:?}");
    }
    let mut c = Command::new("make");
    env(&mut c);
    let out = run(
        c.args(["-s", "-j2", "-f"])
            .arg(workspace().join("pipelines/nightly.mk"))
            .arg(format!("BRAIN={}", bin("brain").display())),
        b"",
    );
    assert_ne!(
        out.status.code(),
        Some(0),
        "doctor fails while nothing runs the slow clock"
    );
    let ask = run(
        command("brain", &home).args(["ask", "--json", "decorators"]),
        b"",
    );
    assert_eq!(ask.status.code(), Some(0));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(home.join("logs/usage.jsonl"))
        .expect("usage")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let doctor: Vec<_> = rows.iter().filter(|r| r["event"] == "doctor_run").collect();
    assert_eq!(doctor.len(), 3);
    assert!(
        doctor[..2]
            .iter()
            .all(|r| r["surface"] == "cron" && r["failures"] == serde_json::json!([])),
        "{doctor:?}"
    );
    assert_eq!(doctor[2]["failures"], serde_json::json!(["schedules"]));
}

#[test]
fn an_installed_layout_finds_its_stages_in_libexec_and_its_pipelines_in_share() {
    let t = tempfile::tempdir().expect("tempdir");
    let prefix = t.path().join("prefix");
    let (bindir, libexec, share) = (
        prefix.join("bin"),
        prefix.join("libexec/brain"),
        prefix.join("share/brain"),
    );
    for d in [&bindir, &libexec, &share.join("schedules")] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::copy(bin("brain"), bindir.join("brain")).expect("copy brain");
    for s in brain_ops::bins::STAGES {
        std::os::unix::fs::symlink(bin(s), libexec.join(s)).expect("link stage");
    }
    let src = workspace().join("pipelines");
    for f in ["stop-hook.sh", "nightly.mk"] {
        std::fs::copy(src.join(f), share.join(f)).expect("copy");
    }
    for e in std::fs::read_dir(src.join("schedules"))
        .expect("ls")
        .flatten()
    {
        std::fs::copy(e.path(), share.join("schedules").join(e.file_name())).expect("copy");
    }
    let home = t.path().join("home");
    let out = run(
        Command::new(bindir.join("brain"))
            .env("BRAIN_HOME", &home)
            .env("HOME", t.path())
            .env("PATH", "/usr/bin:/bin")
            .env("BRAIN_CRONTAB", "false")
            .args(["explain", "--json"]),
        b"",
    );
    let e: Explain = serde_json::from_slice(&out.stdout).expect("explain");
    assert_eq!(
        e.pipelines.as_deref(),
        Some(share.display().to_string().as_str())
    );
    for b in &e.binaries[1..] {
        assert_eq!(
            b.path.as_deref(),
            Some(libexec.join(&b.name).display().to_string().as_str())
        );
    }
    // The stop hook, run from share/ without BRAIN_BIN and with a bare PATH, finds bin/brain and
    // libexec (in the home `brain hook install` made: a hook never makes one).
    std::fs::create_dir_all(&home).expect("home");
    let out = run(
        Command::new("bash")
            .arg(share.join("stop-hook.sh"))
            .env("BRAIN_HOME", &home)
            .env("HOME", t.path())
            .env("PATH", "/usr/bin:/bin")
            .env_remove("BRAIN_BIN"),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let log = std::fs::read_to_string(home.join("logs/usage.jsonl"))
        .expect("the hook logged through bin/brain");
    assert!(log.contains("\"surface\":\"hook\""), "{log}");
}

/// `brain watch install` (issue 57): a systemd user service restarted on failure and a launchd agent
/// kept alive, each running this brain's `watch` for this home; idempotent; doctor fails while the
/// service is installed and no watcher runs; remove takes both away.
#[test]
fn the_watcher_installs_as_a_service_and_is_removed() {
    let (_t, home, user, stand) = scratch();
    std::fs::create_dir_all(&home).expect("home");
    let b = |args: &[&str]| brain(&home, &user, &stand, args);
    for which in ["--systemd", "--launchd"] {
        let out = b(&["watch", "install", which]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{which}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let unit = user.join(".config/systemd/user/brain-watch.service");
    let service = std::fs::read_to_string(&unit).expect("service");
    assert!(
        service.contains(&format!("ExecStart=\"{}\" watch", bin("brain").display()))
            && service.contains("Restart=on-failure")
            && service.contains(&format!("BRAIN_HOME={}", home.display())),
        "{service}"
    );
    let calls = std::fs::read_to_string(stand.join("calls.txt")).unwrap_or_default();
    assert!(
        calls.contains("--user enable --now brain-watch.service"),
        "{calls}"
    );
    let plist = user.join("Library/LaunchAgents/com.brain.watch.plist");
    let text = std::fs::read_to_string(&plist).expect("plist");
    assert!(text.contains("<string>watch</string>") && text.contains("<key>KeepAlive</key>"));
    let again = b(&["watch", "install", "--systemd"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("unchanged"));
    // Installed, but nothing runs it here: doctor says so.
    let doctor = b(&["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("doctor json");
    let check = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "watch"))
        .cloned()
        .expect("watch check");
    assert_eq!(check["outcome"], "fail", "{check}");
    let removed = b(&["watch", "remove"]);
    assert_eq!(removed.status.code(), Some(0));
    assert!(!unit.exists() && !plist.exists());
    let status = b(&["watch", "status"]);
    assert_eq!(status.status.code(), Some(67));
}

/// No cron on the machine (issue 59): the install says cron is not installed — not "`crontab -l`
/// failed: No such file or directory" — and what to do instead, exit 65; nothing is written.
#[test]
fn a_machine_without_cron_is_told_so_and_its_login_runs_the_slow_clock() {
    let (t, home, user, stand) = scratch();
    std::fs::remove_file(stand.join("crontab")).expect("no cron");
    let out = brain(&home, &user, &stand, &["schedule", "install", "--cron"]);
    assert_eq!(out.status.code(), Some(65));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not installed here (not found on PATH)"),
        "{err}"
    );
    assert!(err.contains("brain schedule install --login"), "{err}");
    assert!(!err.contains("No such file or directory"), "{err}");
    assert!(!stand.join("crontab.txt").exists());

    // Neither cron nor systemd: the default is the login line, and it says why.
    let b = |args: &[&str]| {
        run(
            command("brain", &home)
                .env("HOME", &user)
                .env("BRAIN_CRONTAB", stand.join("crontab"))
                .env("BRAIN_SYSTEMCTL", stand.join("no-systemctl"))
                .env("BRAIN_LAUNCHCTL", stand.join("recorder"))
                .args(args),
            b"",
        )
    };
    let doctor = |want: &str| {
        let out = b(&["doctor", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("doctor json");
        let check = v["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "schedules"))
            .cloned()
            .expect("schedules check");
        assert_eq!(check["outcome"], want, "{check}");
        check
    };
    let check = doctor("fail");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("nothing runs the slow clock")),
        "{check}"
    );
    assert_eq!(b(&["schedule", "status"]).status.code(), Some(67));
    // The login file is a link into the user's dotfiles: written where it points, the link kept.
    std::fs::create_dir_all(user.join("dotfiles")).expect("dotfiles");
    std::fs::write(user.join("dotfiles/profile"), "export EDITOR=vi\n").expect("profile");
    std::os::unix::fs::symlink("dotfiles/profile", user.join(".profile")).expect("link");
    // A run on record a minute ago: the loop started now waits for the next one.
    std::fs::create_dir_all(home.join("state")).expect("state");
    let recent = jiff::Timestamp::now() - jiff::SignedDuration::from_secs(60);
    let state = serde_json::json!({"pid": 1, "started": "2026-01-01T00:00:00Z", "by": "login",
        "every_secs": 7200, "runs": 1,
        "last": {"ts": recent.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(), "secs": 1.0, "exit": 0}});
    std::fs::write(home.join("state/clock.json"), state.to_string()).expect("clock.json");
    let out = b(&["schedule", "install"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("cron is not installed"), "{err}");
    assert!(err.contains("started the slow clock"), "{err}");
    assert!(user.join(".profile").is_symlink(), "the link stays");
    let profile = std::fs::read_to_string(user.join("dotfiles/profile")).expect("profile");
    assert!(profile.starts_with("export EDITOR=vi\n"), "{profile}");
    assert_eq!(profile.matches("# brain-nightly").count(), 1, "{profile}");
    assert!(profile.contains("schedule run --detach"), "{profile}");
    // The loop runs (held lock), doctor passes, and a second start finds it.
    let lock = home.join("locks/clock.lock");
    let up = (0..400).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        brain_ops::locks::held(&lock)
    });
    assert!(up, "the detached loop holds the clock");
    let check = doctor("pass");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("by login")),
        "{check}"
    );
    assert_eq!(b(&["schedule", "status"]).status.code(), Some(0));
    let again = b(&["schedule", "run", "--detach"]);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already runs"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let twice = b(&["schedule", "run"]);
    assert_eq!(twice.status.code(), Some(70), "one loop per home");
    for every in ["0", "59", "2592001", "18446744073709551615", "-1", "soon"] {
        let out = b(&["schedule", "run", "--once", "--every", every]);
        assert_eq!(out.status.code(), Some(64), "--every {every}");
    }
    let e: Explain = serde_json::from_slice(&b(&["explain", "--json"]).stdout).expect("explain");
    assert_eq!(
        e.schedules.iter().map(|s| s.kind).collect::<Vec<_>>(),
        [Scheduler::Login]
    );
    assert_eq!(e.schedules[0].problem, None);
    // Remove takes the line out and stops the loop.
    let out = b(&["schedule", "remove", "--login"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(user.join(".profile")).expect("profile"),
        "export EDITOR=vi\n"
    );
    assert!(user.join(".profile").is_symlink());
    let down = (0..400).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        !brain_ops::locks::held(&lock)
    });
    assert!(down, "the loop was stopped");
    doctor("fail");
    drop(t);
}

/// A login file brain may not write (immutable for root, a read-only folder for anyone else):
/// `brain schedule install --login` exits 65 with a fix that says why, the file is left as it was,
/// and no loop is started.
#[test]
fn a_login_file_brain_may_not_write_is_refused_with_a_fix_and_left_alone() {
    let (_t, home, user, stand) = scratch();
    std::fs::create_dir_all(&user).expect("user home");
    let profile = user.join(".profile");
    std::fs::write(&profile, "# mine\nexport EDITOR=vi\n").expect("profile");
    let chattr = |flag: &str| {
        Command::new("chattr")
            .arg(flag)
            .arg(&profile)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    use std::os::unix::fs::PermissionsExt;
    let immutable = chattr("+i");
    if !immutable {
        std::fs::set_permissions(&user, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        // Root writes a read-only folder anyway: nothing to prove with it.
        if std::fs::write(user.join(".probe"), "").is_ok() {
            std::fs::set_permissions(&user, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            brain_tests::skip("neither `chattr +i` nor a read-only folder stops this user writing");
            return;
        }
    }
    let out = brain(&home, &user, &stand, &["schedule", "install", "--login"]);
    if immutable {
        chattr("-i");
    } else {
        std::fs::set_permissions(&user, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(err.contains("permission denied"), "{err}");
    assert_eq!(
        err.matches(&*profile.display().to_string()).count(),
        1,
        "the file named once: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(&profile).expect("profile"),
        "# mine\nexport EDITOR=vi\n"
    );
    assert!(!home.join("state/clock.json").exists(), "no loop started");
}
