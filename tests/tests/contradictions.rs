//! Records that contradict each other (issue #22): the doctor's memory check lists a supersedes
//! cycle (and fails: every record in it is hidden), an older record replacing a newer one, and
//! keys that differ only in spelling — each naming the records, so a person can fix them.

use brain_tests::{command, indexed_notes, run};

fn memory_check(home: &std::path::Path) -> serde_json::Value {
    brain_tests::doctor_check(home, "memory")
}

#[test]
fn the_doctor_lists_records_that_contradict_each_other() {
    let (dir, _) = indexed_notes(&[
        (
            "older.md",
            "---\noccurred_at: 2026-01-10\nsupersedes: notes/newer.md\n---\nthe cache lives in redis\n",
        ),
        (
            "newer.md",
            "---\noccurred_at: 2026-03-10\n---\nthe cache lives in memcached\n",
        ),
        (
            "a.md",
            "---\nkey: db.engine\noccurred_at: 2026-01-01\n---\nwe use Postgres\n",
        ),
        (
            "b.md",
            "---\nkey: DB Engine\noccurred_at: 2026-02-01\n---\nwe use SQLite\n",
        ),
    ]);
    let h = dir.path().join("home");
    let memory = memory_check(&h);
    assert_eq!(memory["outcome"], "pass", "{memory}");
    let text = memory.to_string();
    assert!(
        text.contains("notes/older.md supersedes notes/newer.md, which happened after it"),
        "{text}"
    );
    assert!(
        text.contains("`db.engine` (notes/a.md)") && text.contains("`db engine` (notes/b.md)"),
        "{text}"
    );
    assert!(text.contains("2 contradictions to look at"), "{text}");

    // Two records that supersede each other: both hidden, so the check fails and names them.
    std::fs::write(
        dir.path().join("notes/x.md"),
        "---\nsupersedes: notes/y.md\n---\nthe queue is rabbitmq\n",
    )
    .expect("x");
    std::fs::write(
        dir.path().join("notes/y.md"),
        "---\nsupersedes: notes/x.md\n---\nthe queue is kafka\n",
    )
    .expect("y");
    assert!(
        run(command("lexindex", &h).arg("--all"), b"")
            .status
            .success()
    );
    let memory = memory_check(&h);
    assert_eq!(memory["outcome"], "fail", "{memory}");
    assert!(
        memory
            .to_string()
            .contains("notes/x.md, notes/y.md supersede each other"),
        "{memory}"
    );
    let doctor = run(command("brain", &h).arg("doctor"), b"");
    assert_ne!(doctor.status.code(), Some(0));
}
