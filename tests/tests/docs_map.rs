//! A map that cannot drift: crates/README.md's owner table and its walk of one `brain ask` name
//! code that exists where they say, and every flag the docs show a command with is in that
//! command's `--help`. Each check also finds a row or a flag planted wrong.
//!
//! The rules the checks read:
//! * owner table — a backticked identifier or path (`command::subject`, `Registry`,
//!   `engine/remote`) in a crate's "owns" cell is a module of that crate or an item defined in it
//!   (a binary's name, `lexindex`, is prose); a module path's last part is defined under it;
//! * walk — each backticked `file.rs` of a step's owner exists (`bin/…` from the root,
//!   `brain-x/src/…` in crates/, a bare path in brain-rank/src first), and each backticked name in
//!   the parentheses after it (`Engine::open` → `open`) is defined in that file;
//! * flags — a command line in a shell block or a code span of README.md, docs/, crates/README.md,
//!   pipelines/ or skills/ that starts with a binary of bin/ (after `VAR=value` words): each
//!   `--flag` of it is in the `--help` of the deepest subcommand its words name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;

fn root() -> PathBuf {
    brain_tests::workspace()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    with_ext(dir, "rs")
}

/// Every file under `dir` whose name ends in `.ext`.
fn with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    brain_tests::files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect()
}

/// Whether one of `files` defines `name` (a fn, type, trait, const, static or module) or
/// re-exports it.
fn defined(files: &[PathBuf], name: &str) -> bool {
    let n = regex::escape(name);
    let item = Regex::new(&format!(
        r"\b(fn|struct|enum|trait|type|const|static|mod)\s+{n}\b|pub use [^;]*\b{n}\b"
    ))
    .expect("item pattern");
    files.iter().any(|f| {
        std::fs::read_to_string(f)
            .map(|t| item.is_match(&t))
            .unwrap_or(false)
    })
}

/// The files of module `seg` in folder `dir` (`seg.rs` and `seg/**`, or `seg/mod.rs` and
/// `seg/**`), and its folder; `None` when there is no such module.
fn module(dir: &Path, seg: &str) -> Option<(Vec<PathBuf>, PathBuf)> {
    let file = dir.join(format!("{seg}.rs"));
    let sub = dir.join(seg);
    if file.is_file() {
        let mut files = vec![file];
        files.extend(rust_files(&sub));
        return Some((files, sub));
    }
    sub.join("mod.rs")
        .is_file()
        .then(|| (rust_files(&sub), sub))
}

/// Whether `path` (`a::b::C`, `a/b`) names code of the crate whose sources are in `src`.
fn resolves(src: &Path, path: &str) -> bool {
    let all = rust_files(src);
    let segs: Vec<String> = path
        .replace('/', "::")
        .split("::")
        .map(str::to_string)
        .collect();
    let (mut dir, mut files) = (src.to_path_buf(), all.clone());
    for (i, seg) in segs.iter().enumerate() {
        if let Some((f, sub)) = module(&dir, seg) {
            (files, dir) = (f, sub);
            continue;
        }
        // An item here, and what follows it (a method, a variant) anywhere in the crate.
        return defined(&files, seg) && segs[i + 1..].iter().all(|r| defined(&all, r));
    }
    true
}

/// The cells of a markdown table row.
fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// What the owner table of `readme` names that the code of `root` does not hold.
fn owner_problems(root: &Path, readme: &str) -> Vec<String> {
    let code = Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*((::|/)[A-Za-z_][A-Za-z0-9_]*)*$").expect("re");
    let span = Regex::new(r"`([^`]+)`").expect("re");
    let bins: Vec<String> = std::fs::read_dir(root.join("bin"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for line in readme.lines() {
        let c = cells(line);
        if c.len() < 4 || !c[1].starts_with("`brain-") {
            continue;
        }
        let krate = c[1].trim_matches('`');
        let src = root.join("crates").join(krate).join("src");
        if !src.is_dir() {
            out.push(format!("{krate}: no crates/{krate}/src"));
            continue;
        }
        for m in span.captures_iter(&c[2]) {
            let tok = &m[1];
            if code.is_match(tok) && !bins.iter().any(|b| b == tok) && !resolves(&src, tok) {
                out.push(format!(
                    "{krate}: `{tok}` is no module or item of the crate"
                ));
            }
        }
    }
    out
}

/// A file the walk names, found as its rules say.
fn walk_file(root: &Path, rel: &str) -> Option<PathBuf> {
    if rel.starts_with("bin/") {
        return Some(root.join(rel)).filter(|p| p.is_file());
    }
    if rel.starts_with("brain-") {
        let (krate, rest) = rel.split_once('/')?;
        return Some(root.join("crates").join(krate).join(rest)).filter(|p| p.is_file());
    }
    let mut bases = vec![root.join("crates/brain-rank/src")];
    if let Ok(rd) = std::fs::read_dir(root.join("crates")) {
        let mut more: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("src")).collect();
        more.sort();
        bases.extend(more);
    }
    bases.into_iter().map(|b| b.join(rel)).find(|p| p.is_file())
}

/// What the walk of one ask in `readme` names that the code of `root` does not hold.
fn walk_problems(root: &Path, readme: &str) -> Vec<String> {
    let Some(start) = readme.find("## One query, file by file") else {
        return vec!["crates/README.md has no walk of one query".into()];
    };
    let owner = Regex::new(r"`([^`\s]+\.rs)`(?:\s*\(([^)]*)\))?").expect("re");
    let span = Regex::new(r"`([^`]+)`").expect("re");
    let ident = Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").expect("re");
    let mut out = Vec::new();
    for line in readme[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| 1 |"))
    {
        let c = cells(line);
        if c.len() < 3 || c[0].parse::<u32>().is_err() {
            break;
        }
        for m in owner.captures_iter(&c[2]) {
            let Some(file) = walk_file(root, &m[1]) else {
                out.push(format!("step {}: no file `{}`", c[0], &m[1]));
                continue;
            };
            let named = m.get(2).map_or("", |g| g.as_str());
            for item in span.captures_iter(named) {
                let last = item[1].rsplit("::").next().unwrap_or_default();
                if ident.is_match(last) && !defined(std::slice::from_ref(&file), last) {
                    out.push(format!("step {}: `{}` is not in {}", c[0], &item[1], &m[1]));
                }
            }
        }
    }
    out
}

/// `--help` of a command (its words after the binary), cached; `None` when it fails.
struct Helps {
    seen: HashMap<Vec<String>, Option<String>>,
    home: tempfile::TempDir,
}

impl Helps {
    fn new() -> Helps {
        Helps {
            seen: HashMap::new(),
            home: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn of(&mut self, words: &[String]) -> Option<String> {
        if let Some(h) = self.seen.get(words) {
            return h.clone();
        }
        let out = Command::new(brain_tests::bin(&words[0]))
            .args(&words[1..])
            .arg("--help")
            .env("BRAIN_HOME", self.home.path())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        self.seen.insert(words.to_vec(), out.clone());
        out
    }

    /// The deepest subcommand (at most two words) `words` name, and its help.
    fn deepest(&mut self, words: &[String]) -> Option<(Vec<String>, String)> {
        let mut best = vec![words[0].clone()];
        let mut help = self.of(&best)?;
        let sub = Regex::new(r"^[a-z][a-z0-9-]*$").expect("re");
        for w in words.iter().skip(1).take(2) {
            if !sub.is_match(w) {
                break;
            }
            let mut next = best.clone();
            next.push(w.clone());
            match self.of(&next) {
                Some(h) if h != help => (best, help) = (next, h),
                _ => break,
            }
        }
        Some((best, help))
    }
}

/// The command lines of a markdown text: shell blocks' lines and code spans.
fn command_lines(text: &str) -> Vec<String> {
    let block = Regex::new(r"(?s)```(?:bash|sh|console|shell)?\n(.*?)```").expect("re");
    let span = Regex::new(r"`([^`\n]+)`").expect("re");
    let mut out: Vec<String> = block
        .captures_iter(text)
        .flat_map(|c| c[1].lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    out.extend(span.captures_iter(text).map(|c| c[1].to_string()));
    out
}

/// The flags `text` (named `name`) shows a command with that the command's help does not list.
fn flag_problems(name: &str, text: &str, bins: &[String], helps: &mut Helps) -> Vec<String> {
    let flag = Regex::new(r"^(--[a-z][a-z0-9-]*)(=\S*)?$").expect("re");
    let assign = Regex::new(r"^[A-Z_][A-Z0-9_]*=\S*$").expect("re");
    let mut out = Vec::new();
    for line in command_lines(text) {
        for seg in line.split(['|', ';', '&', '(']) {
            let words: Vec<String> = seg
                .split_whitespace()
                .skip_while(|w| assign.is_match(w))
                .map(str::to_string)
                .collect();
            let Some(first) = words.first() else { continue };
            if !bins.contains(first) {
                continue;
            }
            let flags: Vec<String> = words
                .iter()
                .filter_map(|w| flag.captures(w).map(|c| c[1].to_string()))
                .filter(|f| f != "--help" && f != "--version")
                .collect();
            if flags.is_empty() {
                continue;
            }
            let plain: Vec<String> = words
                .iter()
                .filter(|w| !w.starts_with('-'))
                .cloned()
                .collect();
            let Some((cmd, help)) = helps.deepest(&plain) else {
                out.push(format!("{name}: `{}` has no --help", plain[0]));
                continue;
            };
            for f in flags {
                let listed = Regex::new(&format!(r"{}\b", regex::escape(&f))).expect("re");
                if !listed.is_match(&help) {
                    out.push(format!(
                        "{name}: `{} {f}` is not in its --help",
                        cmd.join(" ")
                    ));
                }
            }
        }
    }
    out
}

/// The documents whose command lines are checked.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md"), root.join("crates/README.md")];
    for dir in ["docs", "pipelines", "skills"] {
        out.extend(with_ext(&root.join(dir), "md"));
    }
    out
}

fn bins(root: &Path) -> Vec<String> {
    std::fs::read_dir(root.join("bin"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("crates/README.md")).expect("crates/README.md")
}

#[test]
fn the_owner_table_names_code_that_exists() {
    assert_eq!(owner_problems(&root(), &readme()), Vec::<String>::new());
}

#[test]
fn the_walk_of_one_ask_names_files_and_items_that_exist() {
    assert_eq!(walk_problems(&root(), &readme()), Vec::<String>::new());
}

#[test]
fn a_row_planted_wrong_is_found() {
    let text = readme();
    for (right, wrong, said) in [
        (
            "`command::subject`",
            "`command::subjekt`",
            "`command::subjekt`",
        ),
        ("(`Registry`)", "(`Registri`)", "`Registri`"),
        ("`plan/tries.rs`", "`plan/trys.rs`", ""),
    ] {
        assert!(text.contains(right), "{right} is in crates/README.md");
        let planted = text.replacen(right, wrong, 1);
        let found = owner_problems(&root(), &planted);
        if said.is_empty() {
            // A file of the walk: nothing the owner table says changed.
            assert!(found.is_empty(), "{found:?}");
        } else {
            assert!(found.iter().any(|p| p.contains(said)), "{wrong}: {found:?}");
        }
    }
    let planted = text.replacen(
        "`engine/lists.rs` (`run_lists`)",
        "`engine/lists.rs` (`run_listz`)",
        1,
    );
    let found = walk_problems(&root(), &planted);
    assert!(found.iter().any(|p| p.contains("run_listz")), "{found:?}");
    let planted = text.replacen(
        "`engine/settle.rs` (`settle`)",
        "`engine/setle.rs` (`settle`)",
        1,
    );
    let found = walk_problems(&root(), &planted);
    assert!(
        found.iter().any(|p| p.contains("engine/setle.rs")),
        "{found:?}"
    );
}

#[test]
fn every_documented_flag_is_in_its_commands_help() {
    let root = root();
    let bins = bins(&root);
    let mut helps = Helps::new();
    let mut problems = Vec::new();
    let mut docs = 0;
    for doc in documents(&root) {
        let text = std::fs::read_to_string(&doc).expect("read doc");
        let name = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        problems.extend(flag_problems(&name, &text, &bins, &mut helps));
        docs += 1;
    }
    assert!(docs > 20, "only {docs} documents found");
    assert!(
        helps.seen.len() > 10,
        "only {} commands read",
        helps.seen.len()
    );
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn a_flag_planted_wrong_is_found() {
    let root = root();
    let bins = bins(&root);
    let mut helps = Helps::new();
    let text = "Run `lexindex --all --quiett`, then:\n\n```sh\nBRAIN_HOME=/tmp/x brain ask \"cache\" --jsn | fmt\nbrain hook install --codex\n```\n";
    let found = flag_problems("planted.md", text, &bins, &mut helps);
    assert_eq!(
        found,
        vec![
            "planted.md: `brain ask --jsn` is not in its --help".to_string(),
            "planted.md: `lexindex --quiett` is not in its --help".to_string(),
        ],
    );
}
