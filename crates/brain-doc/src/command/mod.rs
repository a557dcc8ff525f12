//! What a shell command is about, for memory (issue 53): the tool that actually ran. `uv run
//! pytest -x` is about `pytest`, `npm run build` about the `build` script, `python -m mod` about
//! `mod`, `cargo test -p api` about `api`'s tests, `docker run postgres:16` about `postgres`, and a
//! chain of commands about its first real one (`cd api && make test` → `make test`). The one rule
//! the extraction's failed-command and rejection records and the pre-tool hook's lookup share, so
//! a failed `uv run pyright` is found before the next `pyright`, never before a `pytest`.
//!
//! docs/commands.md lists the subject of every shell command in the real corpora; a test keeps it
//! true.

mod lex;
mod tools;

pub use lex::{MAX_BYTES, commands};
use tools::{skip_flags, tool};

/// The tools whose argument is a shell command (Claude Code's Bash and Monitor, Codex's
/// exec_command, shell and local_shell, Gemini CLI's run_shell_command; Cursor's and OpenCode's
/// terminals are rendered as Bash).
pub const SHELL_TOOLS: [&str; 6] = [
    "Bash",
    "Monitor",
    "exec_command",
    "shell",
    "local_shell",
    "run_shell_command",
];

/// How a tool call that did not succeed ended, as `jsonl2md` writes it into a session (a note in
/// the conversation, a tag on its `## Tools Used` line) and the extraction reads it back: a
/// failure is a command that ran and failed; a refusal, one the agent's permissions or sandbox
/// did not let run; a decline, one the user turned down (with what they said, when they did).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Failed,
    Refused,
    Declined,
}

impl Outcome {
    /// The note's label in the conversation: `**Note**: Tool error (Bash: cargo test):`.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Failed => "Tool error",
            Outcome::Refused => "Tool refused",
            Outcome::Declined => "Tool declined",
        }
    }

    /// The tag on the tool's line: `- Bash: cargo test [error: …]`.
    pub fn tag(self) -> &'static str {
        match self {
            Outcome::Failed => "error",
            Outcome::Refused => "refused",
            Outcome::Declined => "declined by the user",
        }
    }

    /// The note line for a call summarized as `summary` (`Bash: cargo test`).
    pub fn note(self, summary: &str) -> String {
        format!("{} ({summary}):", self.label())
    }

    /// A note line read back (`**Note**: Tool error (Bash: cargo test -p a):`): the outcome, the
    /// tool and its argument (`Bash`, `cargo test -p a`).
    pub fn read_note(line: &str) -> Option<(Outcome, &str, &str)> {
        let rest = line.strip_prefix("**Note**: ")?;
        let (outcome, rest) = [Outcome::Failed, Outcome::Refused, Outcome::Declined]
            .into_iter()
            .find_map(|o| {
                rest.strip_prefix(o.label())?
                    .strip_prefix(" (")
                    .map(|r| (o, r))
            })?;
        let inner = rest.trim_end().strip_suffix("):")?;
        let (tool, arg) = inner.split_once(": ").unwrap_or((inner, ""));
        Some((outcome, tool, arg))
    }
}

/// Programs that prepare the shell for the next command (`cd`, `source`, …): never the subject;
/// the command after them is.
const SETUP: [&str; 18] = [
    "cd", "pushd", "popd", "source", ".", "export", "set", "unset", "alias", "umask", "ulimit",
    "trap", "mkdir", "true", ":", "sleep", "clear", "shopt",
];

/// Programs too common to say anything about an attempt (reading, listing, searching): a chain
/// of only these has no subject.
const TRIVIAL: [&str; 39] = [
    "ls", "cat", "echo", "printf", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "find",
    "fd", "wc", "which", "type", "whereis", "env", "stat", "file", "tree", "nl", "less", "more",
    "date", "whoami", "uname", "pwd", "sort", "uniq", "cut", "tr", "column", "du", "df", "sed",
    "ps", "test", "[",
];

/// Words before a command that run it unchanged (`sudo`, `time`, …), each with the flags of its
/// own that take a value.
const WRAPPERS: [(&str, &[&str]); 12] = [
    ("sudo", &["-u", "-g", "-C", "-h", "-p", "-U"]),
    ("doas", &["-u"]),
    ("env", &["-u", "-C", "-S"]),
    ("time", &[]),
    ("nohup", &[]),
    ("nice", &["-n"]),
    ("ionice", &["-c", "-n"]),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"]),
    ("exec", &["-a"]),
    ("command", &[]),
    ("builtin", &[]),
    ("xargs", &["-n", "-I", "-P", "-L", "-d", "-E", "-s", "-a"]),
];

/// Shell keywords that start a command without being one.
const KEYWORDS: [&str; 8] = ["then", "do", "else", "elif", "if", "while", "until", "!"];
/// Shell keywords whose whole simple command says nothing of what runs (`for x in a b`, `done`).
const SKIPPED: [&str; 7] = ["for", "select", "case", "esac", "done", "fi", "function"];

/// The subject of `command`: the tool that actually ran, with what picks out its use (the script,
/// the target, the crate, the image), as a short line (`pytest`, `npm run build`, `cargo test -p
/// api`); `None` when the command runs nothing but setup and trivial programs, or nothing at all.
pub fn subject(command: &str) -> Option<String> {
    commands(command)
        .into_iter()
        .find_map(|words| of_words(&words))
}

/// The memory key of the records about a command of `subject` (`cmd.cargo-test-p-api`): what
/// the extraction writes and the pre-tool hook looks up.
pub fn key(subject: &str) -> Option<String> {
    crate::memory::normalize_key(&format!("cmd.{subject}"))
}

/// The subject of one simple command (its words); `None` for setup, trivial programs, keywords.
fn of_words(words: &[String]) -> Option<String> {
    let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
    loop {
        // Assignments (`RUST_LOG=debug cargo test`), keywords and wrappers go.
        while let Some(first) = w.first() {
            if is_assignment(first) || KEYWORDS.contains(first) {
                w.remove(0);
                continue;
            }
            break;
        }
        let first = *w.first()?;
        if SKIPPED.contains(&first) {
            return None;
        }
        let name = program(first);
        if let Some((_, takes)) = WRAPPERS.iter().find(|(n, _)| *n == name) {
            let rest = skip_flags(&w[1..], takes);
            // `timeout 30 cmd`: the duration goes too.
            let rest = if name == "timeout" {
                rest.get(1..).unwrap_or(&[])
            } else {
                rest
            };
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .skip_while(|a| is_assignment(a))
                .collect();
            if rest.is_empty() {
                return None;
            }
            w = rest;
            continue;
        }
        break;
    }
    let name = program(w[0]);
    if name.is_empty() || SETUP.contains(&name.as_str()) || TRIVIAL.contains(&name.as_str()) {
        return None;
    }
    Some(tool(&name, &w[1..]))
}

/// `X=y` before a program.
fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A program word as its name: the file name, `.exe` gone, versioned interpreters as their family
/// (`python3.12` → `python`, `pip3` → `pip`), a package's version gone (`@scope/cli@1.2` → `cli`).
fn program(word: &str) -> String {
    let word = word.trim_matches(['"', '\'', '(', ')', '{', '}']);
    // A name has a letter or digit, and no control character (`…`, the ellipsis a rendered
    // summary ends with, is no program).
    if word.chars().any(char::is_control) || !word.chars().any(char::is_alphanumeric) {
        return String::new();
    }
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    // A scoped package's name (`@scope/cli@1.2`) loses its version.
    let base = match base.rsplit_once('@') {
        Some((name, _)) if !name.is_empty() => name,
        _ => base,
    };
    let base = base.strip_suffix(".exe").unwrap_or(base);
    let lower = base.to_ascii_lowercase();
    for family in ["python", "pip", "pypy", "node", "ruby", "perl", "php"] {
        if let Some(v) = lower.strip_prefix(family)
            && v.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            return family.to_string();
        }
    }
    if lower == "py" {
        return "python".into();
    }
    if lower == "docker-compose" {
        return "docker-compose".into();
    }
    base.to_string()
}

#[cfg(test)]
mod tests {
    use super::subject;

    #[track_caller]
    fn is(cmd: &str, want: Option<&str>) {
        assert_eq!(subject(cmd).as_deref(), want, "{cmd}");
    }

    #[test]
    fn the_tool_that_actually_ran() {
        is("uv run pyright", Some("pyright"));
        is("uv run pytest test/test_cache.py -v", Some("pytest"));
        is("uv run python -c \"import x\"", Some("python"));
        is("uv run ty check", Some("ty check"));
        is("uv run -m mypy src", Some("mypy"));
        is("uv run --with x -m mypy src", Some("mypy"));
        is("uv run pytest -m browser -v", Some("pytest"));
        is("uv tool install .", Some("uv tool install"));
        is("uv pip install -r req.txt", Some("uv pip install"));
        is("uv sync", Some("uv sync"));
        is("npm run build", Some("npm run build"));
        is("npm test -- --run x.test.ts", Some("npm run test"));
        is("npm run test", Some("npm run test"));
        is("npm i left-pad", Some("npm install"));
        is("npx -y prettier --check .", Some("prettier"));
        is("npx @tobilu/qmd@1.2 query x", Some("qmd query"));
        is("pnpm dev", Some("pnpm run dev"));
        is("pnpm install", Some("pnpm install"));
        is("yarn build", Some("yarn run build"));
        is("bun test", Some("bun test"));
        is("python -m pytest -x", Some("pytest"));
        is("python3 -m json.tool", Some("json.tool"));
        is(
            "python3.12 /tmp/decorator_example.py",
            Some("python decorator_example.py"),
        );
        is("python -c \" …", Some("python"));
        is(
            "docker run --rm -e A=b -p 5432:5432 postgres:16",
            Some("docker run postgres"),
        );
        is("docker compose -f x.yml up -d", Some("docker compose up"));
        is("docker-compose up", Some("docker compose up"));
        is("docker build -t x .", Some("docker build"));
        is("cargo test -p api --release", Some("cargo test -p api"));
        is(
            "cargo +nightly test --package=web",
            Some("cargo test -p web"),
        );
        is("cargo test", Some("cargo test"));
        is("cargo build", Some("cargo build"));
        is("make -C sub -j 4 V=1 test", Some("make test"));
        is("make", Some("make"));
        is("git -C /w/repo commit -m \"x\"", Some("git commit"));
        is("gh pr view --json url", Some("gh pr view"));
        is("gh api graphql --paginate", Some("gh api"));
        is("ruff check claude_code_log/renderer.py", Some("ruff check"));
        is("pytest", Some("pytest"));
        is("pytest tests/unit", Some("pytest"));
        is(
            "act --container-architecture linux/amd64 -j test",
            Some("act"),
        );
        is(
            "codemie-codex --profile ollama --task x",
            Some("codemie-codex"),
        );
        is("codemie profile list", Some("codemie profile"));
        is("prev=\"\" …", None);
        is("rm -rf target", Some("rm"));
        is("go test ./...", Some("go test"));
        is("bash -c 'cargo clippy'", Some("cargo clippy"));
    }

    #[test]
    fn a_chain_is_about_its_first_real_command() {
        is("cd test && uv run python -c \" …", Some("python"));
        is(
            "(source .venv/bin/activate && ruff check deep_manifest/)",
            Some("ruff check"),
        );
        is("cd src; make", Some("make"));
        is(
            "RUST_LOG=debug cargo test -p api",
            Some("cargo test -p api"),
        );
        is("/usr/bin/npm install x && ls", Some("npm install"));
        is("sudo -u me FOO=1 timeout 30 make check", Some("make check"));
        is(
            "find . -name '*.pyc' -delete; uv tool uninstall x",
            Some("uv tool uninstall"),
        );
        is("cat x.jsonl | jq -c .", Some("jq"));
        is("ls -la | head", None);
        is("for d in a b; do git -C \"$d\" log; done", Some("git log"));
        is("   ", None);
        is("cd /w", None);
        is("git commit -m \"x\" $(rm -rf /)", Some("git commit"));
        is("echo \"$(date)\" > log", None);
    }

    #[test]
    fn different_tools_never_share_a_subject() {
        let cmds = [
            "uv run pytest",
            "uv run pyright",
            "uv run python x.py",
            "npm run build",
            "npm run lint",
            "npx eslint .",
            "npx tsc",
            "python -m unittest",
            "python -m mypy",
            "docker run postgres",
            "docker run redis",
            "cargo test -p a",
            "cargo test -p b",
            "make build",
            "make test",
        ];
        let subjects: std::collections::HashSet<String> =
            cmds.iter().filter_map(|c| subject(c)).collect();
        assert_eq!(subjects.len(), cmds.len(), "{subjects:?}");
        // One tool, however it is started.
        assert_eq!(subject("python -m pytest"), subject("uv run pytest -x"));
    }

    #[test]
    fn notes_round_trip() {
        use super::Outcome;
        for o in [Outcome::Failed, Outcome::Refused, Outcome::Declined] {
            let line = format!("**Note**: {}", o.note("Bash: git commit -m \"a): b\""));
            assert_eq!(
                Outcome::read_note(&line),
                Some((o, "Bash", "git commit -m \"a): b\""))
            );
        }
        assert_eq!(
            Outcome::read_note("**Note**: Tool error (write_stdin):"),
            Some((Outcome::Failed, "write_stdin", ""))
        );
        assert_eq!(
            Outcome::read_note("**Note**: Conversation compacted."),
            None
        );
        assert_eq!(Outcome::read_note("Tool error (Bash: x):"), None);
    }

    #[test]
    fn hostile_commands_are_bounded() {
        let deep = "(".repeat(100_000) + "make";
        assert_eq!(subject(&deep), None);
        let long = format!("cargo {}", "x ".repeat(1_000_000));
        assert_eq!(subject(&long).as_deref(), Some("cargo x"));
        is("\u{0}\u{1}make", None);
    }
}
