//! `scripts/check-layers.py` (run by `make lint`) sees every import form: a circle of modules
//! planted in a scratch crate through grouped, nested and `super::` imports is found, and the
//! repository itself holds its layer map.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The checker's lines for the tree at `dir`.
fn check(dir: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .arg(root().join("scripts/check-layers.py"))
        .arg(dir)
        .output()
        .expect("python3 runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A scratch repository holding `files` (path from its root, text), with an empty `bin/`.
fn scratch(files: &[(String, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (p, t) in files {
        let p = dir.path().join(p);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, t).expect("write");
    }
    std::fs::create_dir_all(dir.path().join("bin")).expect("bin");
    dir
}

/// A scratch repository of one crate whose `src` holds `files` (path, text).
fn plant(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all = vec![
        (
            "crates/README.md".to_string(),
            "| floor | crate | owns | may import |\n|---|---|---|---|\n| 0 | `brain-x` | x | — |\n"
                .to_string(),
        ),
        (
            "crates/brain-x/Cargo.toml".to_string(),
            "[package]\nname = \"brain-x\"\n\n[dependencies]\n".to_string(),
        ),
    ];
    all.extend(
        files
            .iter()
            .map(|(p, t)| (format!("crates/brain-x/src/{p}"), t.to_string())),
    );
    scratch(&all)
}

#[test]
fn a_grouped_import_circle_is_found() {
    let d = plant(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::{b, c::X};\n"),
        ("b.rs", "use crate::a::thing;\n"),
    ]);
    let (ok, out) = check(d.path());
    assert!(
        !ok && out.contains("brain-x: modules import each other in a circle: a → b"),
        "{out}"
    );
}

#[test]
fn nested_groups_and_super_paths_are_imports_too() {
    let d = plant(&[
        ("lib.rs", "mod server;\nmod pages;\n"),
        ("server.rs", "use crate::{url, pages::{route, other}};\n"),
        ("pages/mod.rs", "mod search;\n"),
        (
            "pages/search.rs",
            "use super::super::server::{App, Reply};\n",
        ),
    ]);
    let (ok, out) = check(d.path());
    assert!(!ok && out.contains("pages → server"), "{out}");
    // The same modules without the arrow back hold.
    let d = plant(&[
        ("lib.rs", "mod server;\nmod pages;\nmod app;\n"),
        ("server.rs", "use crate::{app::App, pages::{route}};\n"),
        ("pages/mod.rs", "use crate::app::{App, Reply};\n"),
        (
            "app.rs",
            "// use crate::server; (a comment is not an import)\n",
        ),
    ]);
    assert_eq!(check(d.path()), (true, String::new()));
}

#[test]
fn the_repository_holds_its_layer_map() {
    let (ok, out) = check(&root());
    assert!(ok, "{out}");
}

/// The environment has one owner: a binary that reads a variable itself is refused, and
/// docs/operations.md's table lists exactly `brain_doc::env::VARS`.
#[test]
fn the_environment_is_read_in_one_place_and_documented_in_one_table() {
    let d = plant(&[(
        "lib.rs",
        "pub fn f() -> bool { std::env::var(\"X\").is_ok() }\n",
    )]);
    let (ok, out) = check(d.path());
    assert!(!ok && out.contains("reads the environment"), "{out}");
    let doc = std::fs::read_to_string(root().join("docs/operations.md")).expect("operations.md");
    let section = doc
        .split("## Environment variables")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an Environment variables section");
    let mut documented: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    let mut vars: Vec<&str> = brain_doc::env::VARS.iter().map(|v| v.name).collect();
    documented.sort_unstable();
    vars.sort_unstable();
    assert_eq!(documented, vars);
}

/// A crate may import one of its own floor only when its row names it.
#[test]
fn a_same_floor_import_holds_only_when_the_row_names_it() {
    let cargo =
        |name: &str, on: &str| format!("[package]\nname = \"{name}\"\n\n[dependencies]\n{on}");
    let dir = scratch(&[
        (
            "crates/README.md".into(),
            "| floor | crate | owns | may import |\n|---|---|---|---|\n\
             | 2 — x | `brain-a` | a | floors 0–1 (`brain-b`) |\n\
             | | `brain-b` | b | floors 0–1 |\n\
             | | `brain-c` | c | floors 0–1 |\n"
                .into(),
        ),
        (
            "crates/brain-a/Cargo.toml".into(),
            cargo("brain-a", "brain-b = { workspace = true }\n"),
        ),
        ("crates/brain-b/Cargo.toml".into(), cargo("brain-b", "")),
        (
            "crates/brain-c/Cargo.toml".into(),
            cargo("brain-c", "brain-b = { workspace = true }\n"),
        ),
        ("crates/brain-a/src/lib.rs".into(), String::new()),
        ("crates/brain-b/src/lib.rs".into(), String::new()),
        ("crates/brain-c/src/lib.rs".into(), String::new()),
    ]);
    let (ok, out) = check(dir.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains("brain-c (floor 2) depends on brain-b (floor 2)") && !out.contains("brain-a"),
        "{out}"
    );
}
