//! A team engine node killed for real (SIGKILL, scripts/engine.sh kill-node) while queries run:
//! the answers keep coming from the replicas on the other node. A test binary of its own, so no
//! other team test runs while a node is away; the node is started again before it ends.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use brain_doc::Hit;
use brain_tests::{command, engine, model_dir, parse_lines, run, workspace};

/// Starts node 2 again when dropped, whatever the test did.
struct Restart;

impl Drop for Restart {
    fn drop(&mut self) {
        let _ = engine_script(&["start-node", "2"]);
    }
}

fn engine_script(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg(workspace().join("scripts/engine.sh"))
        .args(args)
        .output()
        .expect("scripts/engine.sh")
}

#[test]
fn queries_keep_answering_with_a_node_killed() {
    let Some(url) = engine() else { return };
    let Some(model) = model_dir() else { return };
    assert!(
        std::env::var("ENGINE_DIR").is_ok(),
        "ENGINE_DIR names the running cluster's folder (scripts/with-engine.sh sets it)"
    );
    let dir = tempfile::tempdir().expect("test setup");
    let home = dir.path().join("home");
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&home).expect("test setup");
    std::fs::create_dir_all(&notes).expect("test setup");
    let index = format!("t-faults-{}", std::process::id());
    std::fs::write(
        home.join("brain.yaml"),
        format!(
            "collections:\n  - {{name: brain, path: corpus/brain}}\n  - {{name: notes, path: {}}}\npartition: {{default: brain}}\nteam:\n  engines: {{test: \"{url}\"}}\n  shared: [notes]\n  index: {index}\n",
            notes.display()
        ),
    ).expect("write a test file");
    for i in 0..30 {
        std::fs::write(
            notes.join(format!("f{i:02}.md")),
            format!(
                "# Fault {i}\n\nReplica note {i}: the cluster keeps answering about ocelots.\n"
            ),
        )
        .expect("write a test file");
    }
    let cmd = |bin: &str| {
        let mut c = command(bin, &home);
        c.env("BRAIN_EMBEDDER", format!("local:{}", model.display()));
        c
    };
    let out = run(cmd("teamindex").arg("--all"), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ask = |mode: &str| -> (Option<i32>, usize, String) {
        let out = run(
            cmd("rank").args([
                "--engine",
                "test",
                "--mode",
                mode,
                "-n",
                "10",
                "ocelots replica",
            ]),
            b"",
        );
        (
            out.status.code(),
            parse_lines::<Hit>(&out.stdout).len(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(ask("lex").0, Some(0));

    let _restart = Restart;
    let killer = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        engine_script(&["kill-node", "2"])
    });
    let start = Instant::now();
    let mut answered = 0;
    while start.elapsed() < Duration::from_secs(8) {
        for mode in ["lex", "hybrid"] {
            let (code, n, err) = ask(mode);
            assert_eq!(
                code,
                Some(0),
                "{mode} query failed {:?} after the kill: {err}",
                start.elapsed()
            );
            assert_eq!(n, 10, "{mode}: {err}");
            answered += 1;
        }
    }
    let killed = killer.join().expect("test setup");
    assert!(
        killed.status.success(),
        "{}",
        String::from_utf8_lossy(&killed.stderr)
    );
    assert!(answered >= 4, "{answered} queries answered");
    let pid = PathBuf::from(std::env::var("ENGINE_DIR").expect("test setup")).join("node2.pid");
    assert!(!pid.exists(), "node 2 was not killed");
    // Back with both nodes: the replica catches up and answers again.
    drop(_restart);
    let (code, n, err) = ask("lex");
    assert_eq!((code, n), (Some(0), 10), "{err}");
    let e = brain_team::Engine::connect(&url, &index, None, Duration::from_secs(30))
        .expect("test setup");
    let _ = e.get(
        "admin/collections",
        &[("action", "DELETE"), ("name", &index)],
    );
}
