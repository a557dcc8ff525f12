//! What each program's words say of the tool that ran: a runner's program (`uv run X`, `npx X`,
//! `python -m X`), a package manager's script, make's target, cargo's package, docker's image, a
//! tool's subcommand ([`super::subject`]).

use super::{is_assignment, of_words, subject};

/// Programs whose first argument is data (a path, a URL, a pattern, a test id), never a
/// subcommand: `rm -rf target` is about `rm`, `pytest tests` about `pytest`.
const DATA: [&str; 53] = [
    "rm", "rmdir", "cp", "mv", "ln", "touch", "chmod", "chown", "chgrp", "curl", "wget", "ssh",
    "scp", "rsync", "tar", "zip", "unzip", "gzip", "gunzip", "xz", "open", "xdg-open", "code",
    "vim", "vi", "nvim", "nano", "emacs", "diff", "patch", "tee", "kill", "pkill", "killall", "jq",
    "yq", "awk", "gawk", "pytest", "py.test", "jest", "mocha", "tsc", "eslint", "prettier",
    "black", "isort", "flake8", "mypy", "pyright", "pylint", "act", "claude",
];

/// `args` without their leading flags; a flag in `takes` takes the next word too.
pub(super) fn skip_flags<'a, 'b>(args: &'b [&'a str], takes: &[&str]) -> &'b [&'a str] {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') || *a == "-" {
            break;
        }
        if *a == "--" {
            i += 1;
            break;
        }
        i += if takes.contains(a) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Does `w` read as a subcommand (`check`, `run-script`), not data (a path, a file, a value)?
fn is_sub(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && w.len() <= 30
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The first argument after the flags, when it reads as a subcommand.
fn first_sub<'a>(args: &[&'a str], takes: &[&str]) -> Option<&'a str> {
    skip_flags(args, takes)
        .first()
        .copied()
        .filter(|w| is_sub(w))
}

/// `name` and its first subcommand, if any.
fn with_sub(name: &str, args: &[&str], takes: &[&str]) -> String {
    match first_sub(args, takes) {
        Some(s) => format!("{name} {s}"),
        None => name.to_string(),
    }
}

/// The rest of a runner's words as a command of its own (`uv run pytest` → `pytest`); the runner
/// itself when nothing follows.
fn run_rest(runner: &str, rest: &[&str]) -> String {
    let words: Vec<String> = rest.iter().map(|s| s.to_string()).collect();
    of_words(&words).unwrap_or_else(|| runner.to_string())
}

/// The subject of program `name` run with `args`.
pub(super) fn tool(name: &str, args: &[&str]) -> String {
    match name {
        "python" | "pypy" => interpreter(name, args, &["-W", "-X", "-Q"]),
        "node" | "ruby" | "perl" | "php" | "tsx" | "ts-node" => interpreter(
            name,
            args,
            &["-r", "--require", "--import", "--loader", "-I"],
        ),
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => shell(name, args),
        "npm" => npm(args),
        "pnpm" | "yarn" | "bun" => package_manager(name, args),
        "npx" | "pnpx" | "bunx" => run_rest(name, skip_flags(args, &["-p", "--package", "-c"])),
        "uvx" => run_rest(
            name,
            skip_flags(args, &["--from", "--with", "--python", "-p"]),
        ),
        "uv" => uv(args),
        "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "pipx" | "bundle" => {
            let rest = skip_flags(args, &[]);
            match rest.first() {
                Some(&"run") | Some(&"exec") => run_rest(name, skip_flags(&rest[1..], &[])),
                _ => with_sub(name, args, &[]),
            }
        }
        "conda" | "mamba" | "micromamba" => match skip_flags(args, &[]).first() {
            Some(&"run") => run_rest(
                name,
                skip_flags(&skip_flags(args, &[])[1..], &["-n", "--name", "-p"]),
            ),
            _ => with_sub(name, args, &[]),
        },
        "make" | "gmake" => make(name, args),
        "just" | "rake" | "task" | "mage" | "invoke" => {
            with_sub(name, args, &["-f", "--justfile", "-d", "--dir", "-C"])
        }
        "cargo" => cargo(args),
        "docker" | "podman" => docker(name, args),
        "docker-compose" => with_sub("docker compose", args, &["-f", "--file", "-p"]),
        "git" => with_sub(
            "git",
            args,
            &["-C", "-c", "--git-dir", "--work-tree", "--namespace"],
        ),
        "gh" => gh(args),
        "go" => with_sub("go", args, &["-C"]),
        _ if DATA.contains(&name) => name.to_string(),
        // Another program: its first argument when it reads as a subcommand (after a flag, it
        // may be the flag's value: `tool --profile dev` is about `tool`).
        _ => match args.first() {
            Some(s) if is_sub(s) => format!("{name} {s}"),
            _ => name.to_string(),
        },
    }
}

/// `python -m mod …` → the module as a program; `python -c …` → `python`; `python x.py` → `python
/// x.py` (the script's file name).
fn interpreter(name: &str, args: &[&str], takes: &[&str]) -> String {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match *a {
            "-m" => return run_rest(name, &args[i + 1..]),
            "-c" | "-e" | "--eval" | "-p" | "--print" => return name.to_string(),
            _ if a.starts_with('-') => i += if takes.contains(a) { 2 } else { 1 },
            script => {
                let file = script.rsplit(['/', '\\']).next().unwrap_or(script);
                return format!("{name} {file}");
            }
        }
    }
    name.to_string()
}

/// `bash -c 'cmd'` → the command's subject; `bash x.sh` → `bash x.sh`.
fn shell(name: &str, args: &[&str]) -> String {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a.starts_with('-') && a.contains('c') && !a.starts_with("--") {
            return args
                .get(i + 1)
                .and_then(|c| subject(c))
                .unwrap_or_else(|| name.to_string());
        }
        if !a.starts_with('-') {
            let file = a.rsplit(['/', '\\']).next().unwrap_or(a);
            return format!("{name} {file}");
        }
        i += if matches!(*a, "-o" | "-O" | "+o" | "+O") {
            2
        } else {
            1
        };
    }
    name.to_string()
}

/// npm: a script by name (`npm run build`, `npm test` = `npm run test`), `npm install` for its
/// aliases, `npm exec X` as X.
fn npm(args: &[&str]) -> String {
    let rest = skip_flags(args, &["--prefix", "-w", "--workspace"]);
    let Some(sub) = rest.first() else {
        return "npm".into();
    };
    match *sub {
        "run" | "run-script" | "rum" | "urn" => match first_sub(&rest[1..], &[]) {
            Some(s) => format!("npm run {s}"),
            None => script_name("npm", rest.get(1).copied()),
        },
        "test" | "t" | "tst" | "start" | "stop" | "restart" => {
            let s = if sub.starts_with('t') { "test" } else { sub };
            format!("npm run {s}")
        }
        "install" | "i" | "in" | "add" | "isntall" => "npm install".into(),
        "exec" | "x" => run_rest(
            "npm exec",
            skip_flags(&rest[1..], &["-p", "--package", "-c"]),
        ),
        s if is_sub(s) => format!("npm {s}"),
        _ => "npm".into(),
    }
}

/// A script name that is not all lower case (`npm run build:prod`) as written, within reason.
fn script_name(pm: &str, s: Option<&str>) -> String {
    match s.filter(|s| !s.starts_with('-') && s.len() <= 40) {
        Some(s) => format!("{pm} run {s}"),
        None => format!("{pm} run"),
    }
}

/// pnpm, yarn and bun: their built-in commands as themselves, anything else a script (`yarn
/// build` = `yarn run build`), `dlx` / `exec` / `x` as the program they run.
fn package_manager(name: &str, args: &[&str]) -> String {
    const BUILTIN: [&str; 40] = [
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "uninstall",
        "update",
        "up",
        "upgrade",
        "list",
        "ls",
        "outdated",
        "publish",
        "link",
        "unlink",
        "store",
        "why",
        "audit",
        "init",
        "import",
        "rebuild",
        "prune",
        "fetch",
        "config",
        "patch",
        "root",
        "bin",
        "deploy",
        "pack",
        "create",
        "info",
        "cache",
        "global",
        "workspace",
        "workspaces",
        "dedupe",
        "version",
        "build",
        "pm",
        "login",
    ];
    let rest = skip_flags(args, &["--filter", "-F", "-C", "--dir", "--cwd"]);
    let Some(sub) = rest.first() else {
        return name.to_string();
    };
    match *sub {
        "run" => match rest.get(1) {
            Some(s) if name == "bun" && s.contains('.') => {
                format!("bun {}", s.rsplit('/').next().unwrap_or(s))
            }
            s => script_name(name, s.copied()),
        },
        "dlx" | "exec" | "x" => run_rest(name, skip_flags(&rest[1..], &["-p", "--package"])),
        "test" | "t" if name != "bun" => format!("{name} run test"),
        "install" | "i" | "add" => format!("{name} install"),
        // bun's own build and test are built in; pnpm's and yarn's `build` runs the script.
        "build" if name != "bun" => format!("{name} run build"),
        s if BUILTIN.contains(&s) || (name == "bun" && s == "test") => format!("{name} {s}"),
        s if name == "bun" && s.contains('.') => {
            format!("bun {}", s.rsplit('/').next().unwrap_or(s))
        }
        s if is_sub(s) || s.contains(':') => script_name(name, Some(s)),
        _ => name.to_string(),
    }
}

/// uv: `uv run X` / `uv tool run X` as X, its command groups two deep (`uv pip install`).
fn uv(args: &[&str]) -> String {
    let rest = skip_flags(
        args,
        &["--directory", "--project", "--cache-dir", "--config-file"],
    );
    let Some(sub) = rest.first() else {
        return "uv".into();
    };
    let run_flags: &[&str] = &[
        "--with",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--package",
        "--extra",
        "--group",
        "--env-file",
        "--index",
        "--from",
        "-w",
    ];
    match *sub {
        "run" => {
            // `uv run -m mod`: among uv's own flags, `-m` names a module to run.
            let mut i = 1;
            while let Some(a) = rest.get(i).filter(|a| a.starts_with('-')) {
                if *a == "-m" {
                    return run_rest("uv run", rest.get(i + 1..).unwrap_or(&[]));
                }
                i += if run_flags.contains(a) { 2 } else { 1 };
            }
            run_rest("uv run", skip_flags(&rest[1..], run_flags))
        }
        "tool" | "pip" | "python" | "cache" | "self" => match rest.get(1) {
            Some(&"run") if *sub == "tool" => {
                run_rest("uv tool run", skip_flags(&rest[2..], run_flags))
            }
            Some(s) if is_sub(s) => format!("uv {sub} {s}"),
            _ => format!("uv {sub}"),
        },
        s if is_sub(s) => format!("uv {s}"),
        _ => "uv".into(),
    }
}

/// make: the first target (variables and flags skipped).
fn make(name: &str, args: &[&str]) -> String {
    let takes = ["-C", "-f", "--file", "--directory", "-I", "-o", "-W", "-l"];
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if takes.contains(a) {
            i += 2;
        } else if a.starts_with('-') || is_assignment(a) {
            // `-j 4`: a bare number after -j is its value.
            if *a == "-j" && args.get(i + 1).is_some_and(|n| n.parse::<u32>().is_ok()) {
                i += 1;
            }
            i += 1;
        } else {
            return format!("{name} {a}");
        }
    }
    name.to_string()
}

/// cargo: the subcommand, and for those that pick a package, the package (`cargo test -p api`).
fn cargo(args: &[&str]) -> String {
    let args: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('+'))
        .collect();
    let takes = ["-Z", "--config", "-C", "--color"];
    let rest = skip_flags(&args, &takes);
    let Some(sub) = rest.first().copied().filter(|s| is_sub(s)) else {
        return "cargo".into();
    };
    let mut i = 1;
    while let Some(a) = rest.get(i) {
        if *a == "--" {
            break;
        }
        if let Some(p) = a.strip_prefix("--package=") {
            return format!("cargo {sub} -p {p}");
        }
        if (*a == "-p" || *a == "--package")
            && let Some(p) = rest.get(i + 1)
        {
            return format!("cargo {sub} -p {p}");
        }
        i += 1;
    }
    format!("cargo {sub}")
}

/// docker / podman: `run` with its image (tag and digest dropped), `compose` two deep.
fn docker(name: &str, args: &[&str]) -> String {
    let global = [
        "--context",
        "-c",
        "-H",
        "--host",
        "--log-level",
        "-l",
        "--config",
    ];
    let rest = skip_flags(args, &global);
    let Some(sub) = rest.first().copied().filter(|s| is_sub(s)) else {
        return name.to_string();
    };
    match sub {
        "compose" => with_sub(
            &format!("{name} compose"),
            &rest[1..],
            &[
                "-f",
                "--file",
                "-p",
                "--project-name",
                "--profile",
                "--env-file",
            ],
        ),
        "run" | "create" => {
            let takes = [
                "-v",
                "--volume",
                "-e",
                "--env",
                "-p",
                "--publish",
                "--name",
                "-w",
                "--workdir",
                "--network",
                "--net",
                "--entrypoint",
                "-u",
                "--user",
                "--mount",
                "--env-file",
                "-l",
                "--label",
                "--platform",
                "--cpus",
                "-m",
                "--memory",
                "--add-host",
                "--device",
                "--gpus",
                "-h",
                "--hostname",
                "--restart",
                "--pull",
                "--shm-size",
                "--ulimit",
                "--cap-add",
                "--security-opt",
            ];
            match skip_flags(&rest[1..], &takes).first() {
                Some(image) => format!("{name} {sub} {}", image_name(image)),
                None => format!("{name} {sub}"),
            }
        }
        s => format!("{name} {s}"),
    }
}

/// An image reference without its tag or digest: `ghcr.io/o/app:1.2@sha256:…` → `ghcr.io/o/app`.
fn image_name(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => image,
    }
}

/// gh: its command groups two deep (`gh pr view`, `gh run watch`), others one (`gh api`).
fn gh(args: &[&str]) -> String {
    const GROUPS: [&str; 14] = [
        "pr",
        "issue",
        "repo",
        "run",
        "workflow",
        "release",
        "gist",
        "auth",
        "secret",
        "label",
        "project",
        "codespace",
        "extension",
        "cache",
    ];
    let rest = skip_flags(args, &["-R", "--repo"]);
    match rest.first() {
        Some(g) if GROUPS.contains(g) => {
            with_sub(&format!("gh {g}"), &rest[1..], &["-R", "--repo"])
        }
        Some(s) if is_sub(s) => format!("gh {s}"),
        _ => "gh".into(),
    }
}
