//! The integration-test harness: find the built binaries, run golden cases, locate the shared corpora.
//!
//! Binaries are the ones `cargo build --workspace --bins` put next to this test executable's `deps/`
//! folder (`make test` builds them first), so tests exercise exactly what users run.
//!
//! A golden case is a folder `golden/<stage>/<case>/` holding:
//! * `args` — the command-line arguments, one per line (`$CASE` expands to the case's working copy);
//! * `stdin` — optional, fed to the command (read from the working copy, so `setup` may generate it);
//! * `env` — optional `KEY=VALUE` lines;
//! * `expected.stdout` — the exact expected stdout;
//! * `expected.exit` — optional exit code (default 0);
//! * `expected.stderr` — optional exact stderr (durations and rates such as `0.012 s`, `12 ms`,
//!   `(214 MB/s)` are normalized to `<T>` before comparing);
//! * `expected.out/` — optional: every file the command wrote under the working copy's `out/` folder,
//!   compared byte for byte after the same path normalization (markdown outputs);
//! * `filters` — optional `REGEX => REPLACEMENT` lines applied to stdout and stderr before comparing
//!   (times, dates and sizes that change from run to run);
//! * any input files the args name.
//!
//! The case runs in a temporary copy of its folder, with `BRAIN_HOME` a fresh temp folder, `TZ=UTC` and
//! `NO_COLOR=1`. In stdout/stderr, the working copy's path is replaced by `$CASE`, the home's by
//! `$BRAIN_HOME`, the folder of the built binaries by `$BIN` and the workspace by `$WORKSPACE`.
//! `GOLDEN_UPDATE=1` (`make golden-update`) rewrites the expected files instead of comparing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The folder of the built binaries (`target/debug`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Path of a built binary of the workspace.
pub fn bin(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.exists(),
        "binary {} not built: run `cargo build --workspace --bins` first (`make test` does)",
        p.display()
    );
    p
}

/// `../shared/corpora/<name>` beside the workspace. Absent: panics when `BRAIN_REQUIRE_CORPORA=1`
/// (CI), otherwise prints why the test is skipped and returns `None`.
pub fn corpus(name: &str) -> Option<PathBuf> {
    shared(&format!("corpora/{name}"))
}

/// `../shared/<rel>` beside the workspace, with the same absent-handling as [`corpus`].
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = workspace().join("..").join("shared").join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("BRAIN_REQUIRE_CORPORA").is_ok_and(|v| v == "1") {
        panic!("{} is missing and BRAIN_REQUIRE_CORPORA=1", p.display());
    }
    skip(&format!(
        "{} not found (set BRAIN_REQUIRE_CORPORA=1 to make this an error)",
        p.display()
    ));
    None
}

/// Say that the running test is skipped and why: on stderr (which cargo shows only for a failing
/// test) and as a line of `target/test-skips.log` (`$BRAIN_TEST_SKIPS`), which `make test` sums up
/// at its end (issue 59: a machine without the corpora, Java or chromium showed the same green).
pub fn skip(why: &str) {
    eprintln!("SKIPPED: {why}");
    let log = std::env::var_os("BRAIN_TEST_SKIPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/test-skips.log"));
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("{test}\t{}\n", why.replace(['\n', '\t'], " "));
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
    {
        use std::io::Write;
        let _ = f.write_all(line.as_bytes());
    }
}

/// The embedding model for tests that need one: `$BRAIN_TEST_MODEL_DIR` or
/// `target/models/all-MiniLM-L6-v2` (`make model` installs it there). Absent: panics under
/// `BRAIN_REQUIRE_MODEL=1` (CI), otherwise prints why the test is skipped and returns `None`.
pub fn model_dir() -> Option<PathBuf> {
    let p = std::env::var_os("BRAIN_TEST_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/models/all-MiniLM-L6-v2"));
    if p.join("model.safetensors").is_file() {
        return Some(p);
    }
    if std::env::var("BRAIN_REQUIRE_MODEL").is_ok_and(|v| v == "1") {
        panic!(
            "{} has no model and BRAIN_REQUIRE_MODEL=1: run scripts/fetch-model.sh",
            p.display()
        );
    }
    skip(&format!(
        "model not installed (run scripts/fetch-model.sh {})",
        p.display()
    ));
    None
}

/// The local team engine `make test` starts (scripts/with-engine.sh sets `BRAIN_TEST_ENGINE` to its
/// URL). Absent: panics under `BRAIN_REQUIRE_ENGINE=1` (CI), otherwise prints why the test is
/// skipped and returns `None`.
pub fn engine() -> Option<String> {
    if let Ok(url) = std::env::var("BRAIN_TEST_ENGINE")
        && !url.is_empty()
    {
        return Some(url);
    }
    if std::env::var("BRAIN_REQUIRE_ENGINE").is_ok_and(|v| v == "1") {
        panic!(
            "no team engine and BRAIN_REQUIRE_ENGINE=1: run the tests through `make test` (scripts/with-engine.sh)"
        );
    }
    skip("no team engine (run the tests through `make test`, or scripts/with-engine.sh)");
    None
}

/// `tests/mcp-client`, the official MCP TypeScript SDK client, when `node` and the SDK are installed
/// (`bash tests/mcp-client/install.sh`). Absent: panics under `BRAIN_REQUIRE_CORPORA=1` (CI),
/// otherwise prints why the test is skipped and returns `None`.
pub fn mcp_client() -> Option<PathBuf> {
    let dir = workspace().join("tests/mcp-client");
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success());
    if node.is_some() && sdk.exists() {
        return Some(dir);
    }
    let why = if node.is_none() {
        "node is not installed"
    } else {
        "the MCP SDK is not installed (run `make test`, or `bash tests/mcp-client/install.sh`)"
    };
    if std::env::var("BRAIN_REQUIRE_CORPORA").is_ok_and(|v| v == "1") {
        panic!("{why}, and BRAIN_REQUIRE_CORPORA=1 requires the official MCP client test");
    }
    skip(&format!(
        "{why} (set BRAIN_REQUIRE_CORPORA=1 to make this an error)"
    ));
    None
}

/// Three sentences for multilingual embedding checks: English and German saying the same thing,
/// and an unrelated Chinese one.
pub const THREE_LANGUAGES: [&str; 3] = [
    "The database is locked while a write is under way.",
    "Die Datenbank ist gesperrt, während geschrieben wird.",
    "北京是中国的首都。",
];

/// `vecindex --embed` input: one `{"text": …}` record per text.
pub fn text_records(texts: &[&str]) -> String {
    texts
        .iter()
        .map(|t| serde_json::json!({ "text": t }).to_string() + "\n")
        .collect()
}

/// The numbers of a JSON array (non-numbers skipped; not an array: none).
pub fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default()
}

/// The vectors of `vecindex --embed`'s output records (their `embedding` arrays), in order.
pub fn embeddings(stdout: &[u8]) -> Vec<Vec<f64>> {
    parse_lines::<serde_json::Value>(stdout)
        .iter()
        .map(|r| floats(&r["embedding"]))
        .collect()
}

/// A temporary home (`home/`) whose `notes` collection (`notes/`) holds `(name, text)` files,
/// indexed by `lexindex --all`; and lexindex's stderr.
pub fn indexed_notes(notes: &[(&str, &str)]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let folder = dir.path().join("notes");
    notes_home(&home, &folder);
    for (name, text) in notes {
        std::fs::write(folder.join(name), text).expect("write");
    }
    let out = run(command("lexindex", &home).arg("--all"), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A command for a built binary with a hermetic environment: `BRAIN_HOME=home`, `TZ=UTC`, `NO_COLOR=1`,
/// `HOME=home` (so `~` expansion and default locations stay inside the test).
pub fn command(name: &str, home: &Path) -> Command {
    let mut c = Command::new(bin(name));
    c.env("BRAIN_HOME", home)
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("NO_COLOR", "1");
    for var in [
        "BRAIN_TELEMETRY",
        "BRAIN_EMBEDDER",
        "BRAIN_SURFACE",
        "BRAIN_PIPELINES",
        "CLAUDE_CONFIG_DIR",
        "XDG_CONFIG_HOME",
    ] {
        c.env_remove(var);
    }
    // Schedulers are never asked for real in tests: a test that wants one passes a stand-in.
    c.env("BRAIN_CRONTAB", "false")
        .env("BRAIN_SYSTEMCTL", "false")
        .env("BRAIN_LAUNCHCTL", "false");
    c
}

/// [`command`] for `brain` with the slow clock scheduled: a crontab stand-in in `dir` whose table
/// holds brain's line (the checkout's nightly.mk, the built brain), so doctor's `schedules` check
/// passes and a test about another check can ask for a clean verdict.
pub fn scheduled_brain(home: &Path, dir: &Path) -> Command {
    let stand = dir.join("scheduled-bin");
    std::fs::create_dir_all(&stand).expect("mkdir");
    std::fs::copy(
        workspace().join("tests/fixtures/ops/crontab"),
        stand.join("crontab"),
    )
    .expect("crontab stand-in");
    std::fs::write(
        stand.join("crontab.txt"),
        format!(
            "17 */2 * * * make -s -f '{}' BRAIN='{}' # brain-nightly\n",
            workspace().join("pipelines/nightly.mk").display(),
            bin("brain").display()
        ),
    )
    .expect("crontab table");
    let mut c = command("brain", home);
    c.env("BRAIN_CRONTAB", stand.join("crontab"));
    c
}

/// `chrome2md --history <db> --no-state` in `home`: one stateless read of one History file.
pub fn chrome2md_once(home: &Path, db: &Path) -> Output {
    let mut c = command("chrome2md", home);
    c.arg("--history").arg(db).arg("--no-state");
    run(&mut c, b"")
}

/// Write `home/brain.yaml` declaring one collection, `notes`, at `notes` (also the partition
/// default), and create both folders.
pub fn notes_home(home: &Path, notes: &Path) {
    std::fs::create_dir_all(home).expect("home");
    std::fs::create_dir_all(notes).expect("notes");
    std::fs::write(
        home.join("brain.yaml"),
        format!(
            "version: 1\ncollections:\n  - name: notes\n    path: {}\npartition:\n  default: notes\n",
            notes.display()
        ),
    )
    .expect("brain.yaml");
}

/// [`notes_home`] whose `notes` collection takes the files `glob` matches (documents beyond
/// markdown: `**/*.{md,pdf,html}`).
pub fn documents_home(home: &Path, notes: &Path, glob: &str) {
    notes_home(home, notes);
    let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("brain.yaml");
    let yaml = yaml.replace("    path:", &format!("    glob: \"{glob}\"\n    path:"));
    std::fs::write(home.join("brain.yaml"), yaml).expect("brain.yaml");
}

/// A loopback HTTP/1.0 server for download tests (a hub, a Maven Central mirror): `body` maps each
/// request's path to the bytes served (`None`: 404). Returns the port; the server lives as long
/// as the test process.
pub fn serve(body: impl Fn(&str) -> Option<Vec<u8>> + Send + 'static) -> u16 {
    use std::io::{BufRead, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = std::io::BufReader::new(&stream);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut w = &stream;
            let _ = match body(&path) {
                Some(b) => write!(w, "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", b.len())
                    .and_then(|_| w.write_all(&b)),
                None => write!(w, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            };
        }
    });
    port
}

/// Run `cmd` with `stdin` bytes and collect its output.
pub fn run(cmd: &mut Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    // Fed from a thread: a stage that writes as it reads would fill its stdout pipe and block
    // while this side still writes a large stdin.
    let input = child.stdin.take();
    let feed = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(mut i) = input {
            let _ = i.write_all(&feed);
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    out
}

/// [`run`], which must succeed (the panic shows its stderr).
pub fn run_ok(cmd: &mut Command, stdin: &[u8]) -> Output {
    let out = run(cmd, stdin);
    assert!(
        out.status.success(),
        "{:?} failed ({}): {}",
        cmd.get_program(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Parse every stdout line as JSON of type `T`; panics with the line on failure.
pub fn parse_lines<T: serde::de::DeserializeOwned>(stdout: &[u8]) -> Vec<T> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a record ({e}): {l}")))
        .collect()
}

/// Run every golden case of `stage` (binary `bin_name`); `setup` may prepare each working copy (e.g.
/// build a SQLite file from an SQL script) before the run. Panics listing every mismatching case.
pub fn golden(stage: &str, bin_name: &str, setup: impl Fn(&Path)) {
    let root = workspace().join("golden").join(stage);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("args").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no golden cases in {}", root.display());
    let update = std::env::var("GOLDEN_UPDATE").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(msg) = run_case(case, bin_name, &setup, update) {
            failures.push(format!("{}: {msg}", case.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

fn run_case(
    case: &Path,
    bin_name: &str,
    setup: &impl Fn(&Path),
    update: bool,
) -> Result<(), String> {
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_dir(case, work.path()).map_err(|e| e.to_string())?;
    setup(work.path());
    let work_s = work.path().display().to_string();
    let home_s = home.path().display().to_string();
    let args: Vec<String> = std::fs::read_to_string(case.join("args"))
        .map_err(|e| e.to_string())?
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.replace("$CASE", &work_s).replace("$BRAIN_HOME", &home_s))
        .collect();
    let mut cmd = command(bin_name, home.path());
    cmd.args(&args).current_dir(work.path());
    if let Ok(env) = std::fs::read_to_string(case.join("env")) {
        for line in env.lines().filter(|l| !l.trim().is_empty()) {
            if let Some((k, v)) = line.split_once('=') {
                cmd.env(
                    k,
                    v.replace("$CASE", &work_s).replace("$BRAIN_HOME", &home_s),
                );
            }
        }
    }
    let stdin = std::fs::read(work.path().join("stdin")).unwrap_or_default();
    let out = run(&mut cmd, &stdin);
    let filters = Filters::read(case)?;
    let bin_s = bin_dir().display().to_string();
    let ws_s = workspace().display().to_string();
    let norm = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .replace(&work_s, "$CASE")
            .replace(&home_s, "$BRAIN_HOME")
            .replace(&bin_s, "$BIN")
            .replace(&ws_s, "$WORKSPACE")
    };
    let stdout = filters.apply(&norm(&out.stdout));
    let stderr = filters.apply(&normalize_times(&norm(&out.stderr)));
    let code = out.status.code().unwrap_or(-1);
    if update {
        std::fs::write(case.join("expected.stdout"), &stdout).map_err(|e| e.to_string())?;
        if code != 0 || case.join("expected.exit").exists() {
            std::fs::write(case.join("expected.exit"), format!("{code}\n"))
                .map_err(|e| e.to_string())?;
        }
        if case.join("expected.stderr").exists() {
            std::fs::write(case.join("expected.stderr"), &stderr).map_err(|e| e.to_string())?;
        }
        if case.join("expected.out").exists() {
            let _ = std::fs::remove_dir_all(case.join("expected.out"));
            for (name, bytes) in tree(&work.path().join("out")) {
                let p = case.join("expected.out").join(name);
                std::fs::create_dir_all(p.parent().unwrap_or(case)).map_err(|e| e.to_string())?;
                std::fs::write(p, norm(&bytes)).map_err(|e| e.to_string())?;
            }
        }
        return Ok(());
    }
    let want_code: i32 = std::fs::read_to_string(case.join("expected.exit"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let mut problems = Vec::new();
    if code != want_code {
        problems.push(format!(
            "exit {code}, expected {want_code}; stderr:\n{stderr}"
        ));
    }
    let want_out = std::fs::read_to_string(case.join("expected.stdout")).unwrap_or_default();
    if stdout != want_out {
        problems.push(format!("stdout differs:\n{}", diff(&want_out, &stdout)));
    }
    if let Ok(want_err) = std::fs::read_to_string(case.join("expected.stderr"))
        && stderr != want_err
    {
        problems.push(format!("stderr differs:\n{}", diff(&want_err, &stderr)));
    }
    if case.join("expected.out").exists() {
        let want = tree(&case.join("expected.out"));
        let got: Vec<(String, Vec<u8>)> = tree(&work.path().join("out"))
            .into_iter()
            .map(|(n, b)| (n, norm(&b).into_bytes()))
            .collect();
        let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(&want) != names(&got) {
            problems.push(format!(
                "out/ files differ: expected {:?}, got {:?}",
                names(&want),
                names(&got)
            ));
        } else {
            for ((name, w), (_, g)) in want.iter().zip(&got) {
                if w != g {
                    let (w, g) = (String::from_utf8_lossy(w), String::from_utf8_lossy(g));
                    problems.push(format!("out/{name} differs:\n{}", diff(&w, &g)));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// A case's `filters`: `REGEX => REPLACEMENT` lines, applied in order.
struct Filters(Vec<(regex::Regex, String)>);

impl Filters {
    fn read(case: &Path) -> Result<Filters, String> {
        let Ok(text) = std::fs::read_to_string(case.join("filters")) else {
            return Ok(Filters(Vec::new()));
        };
        let mut out = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let (re, with) = line
                .split_once(" => ")
                .ok_or_else(|| format!("filters: no ` => ` in `{line}`"))?;
            let re = regex::Regex::new(re).map_err(|e| format!("filters: {e}"))?;
            out.push((re, with.to_string()));
        }
        Ok(Filters(out))
    }

    fn apply(&self, text: &str) -> String {
        self.0.iter().fold(text.to_string(), |t, (re, with)| {
            re.replace_all(&t, with.as_str()).into_owned()
        })
    }
}

/// The agents whose sessions `../shared/corpora` holds, one folder each.
pub const AGENTS: [&str; 6] = [
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "opencode",
    "aider",
];

/// Every agent's folder of the corpora (`corpora/<agent>`, [`AGENTS`]).
pub fn agent_folders(corpora: &Path) -> Vec<PathBuf> {
    AGENTS.iter().map(|a| corpora.join(a)).collect()
}

/// The real corpora's sessions (Claude Code, Codex, Gemini) through `jsonl2md` and `partition` in
/// `home`: the doc records jsonl2md wrote and partition's output. `None` (the test is skipped) without
/// `../shared/corpora`.
pub fn real_sessions(home: &Path) -> Option<(Vec<brain_doc::Doc>, Vec<u8>)> {
    let corpora = shared("corpora")?;
    let paths: Vec<PathBuf> = ["claude-code", "codex", "gemini"]
        .iter()
        .map(|c| corpora.join(c))
        .collect();
    let docs = run(command("jsonl2md", home).args(&paths), b"");
    assert!(
        docs.status.success(),
        "{}",
        String::from_utf8_lossy(&docs.stderr)
    );
    let placed = run(&mut command("partition", home), &docs.stdout);
    assert!(
        placed.status.success(),
        "{}",
        String::from_utf8_lossy(&placed.stderr)
    );
    Some((parse_lines(&docs.stdout), placed.stdout))
}

/// The check `name` of `brain doctor --json` on `home`.
pub fn doctor_check(home: &Path, name: &str) -> serde_json::Value {
    let doctor = run(command("brain", home).args(["doctor", "--json"]), b"");
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("doctor json");
    report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("no check {name}"))
}

/// Every file under `dir`, sorted; empty when `dir` is missing.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir` (relative name, bytes), sorted; empty when `dir` is missing.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir)
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(dir).ok()?.display().to_string();
            Some((rel, std::fs::read(&p).ok()?))
        })
        .collect()
}

/// Replace durations and rates (`0.012 s`, `12 ms`, `214 MB/s`, `1.5 µs`) with `<T>`, so stderr
/// summaries can be compared.
pub fn normalize_times(text: &str) -> String {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b\d+(?:\.\d+)? ?(?:MB/s|docs/s|ms|µs|us|s)\b")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    RE.replace_all(text, "<T>").into_owned()
}

/// A small line diff: the first differing line with context.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    format!(
        "  first difference at line {}:\n  - {}\n  + {}\n  ({} expected lines, {} got)",
        i + 1,
        w.get(i).unwrap_or(&"<end>"),
        g.get(i).unwrap_or(&"<end>"),
        w.len(),
        g.len()
    )
}

/// Run `script` of the MCP client folder (`dir`, [`mcp_client`]) with `node` and `env` (TZ=UTC
/// added); panics with its output unless it exits 0; its stdout.
pub fn run_mcp_client(dir: &Path, script: &str, env: &[(&str, &std::ffi::OsStr)]) -> String {
    let mut cmd = Command::new("node");
    cmd.arg(dir.join(script)).env("TZ", "UTC");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run(&mut cmd, b"");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The memory fixture vault (`golden/vault`, its README says what is in it) copied into `work`,
/// with its home at `work/home` (brain.yaml from the vault; private), indexed with `lexindex
/// --all` (and `vecindex --all` with `embed`, which needs the test model: `None` when it is not
/// installed). Returns the home.
pub fn vault_home(work: &Path, embed: bool) -> Option<PathBuf> {
    let src = workspace().join("golden/vault");
    for sub in ["life", "memory", "core", "notes", "sessions"] {
        copy_dir(&src.join(sub), &work.join(sub)).expect("copy the vault");
    }
    let home = work.join("home");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::copy(src.join("brain.yaml"), home.join("brain.yaml")).expect("brain.yaml");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(
        out.status.success(),
        "lexindex: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if embed {
        let model = model_dir()?;
        let out = run(
            command("vecindex", &home)
                .env("BRAIN_EMBEDDER", format!("local:{}", model.display()))
                .args(["--all", "--quiet"]),
            b"",
        );
        assert!(
            out.status.success(),
            "vecindex: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Some(home)
}

/// Copy the folders a golden case names from `../shared/corpora` into its work folder: each line of
/// `<work>/shared` is `<path under corpora> <path under work>`. Every file copied gets the same
/// modification time (2026-01-02T00:00:00Z), so what a reader dates by it is the same on every run.
pub fn copy_from_corpora(work: &Path, corpora: &Path) {
    let Ok(list) = std::fs::read_to_string(work.join("shared")) else {
        return;
    };
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_312_000);
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (from, to) = line.split_once(' ').expect("`from to` lines");
        let to = work.join(to.trim());
        copy_dir(&corpora.join(from.trim()), &to).expect("copy from the corpora");
        for entry in walkdir::WalkDir::new(&to).into_iter().flatten() {
            if entry.file_type().is_file() {
                let f = std::fs::File::options()
                    .write(true)
                    .open(entry.path())
                    .expect("open");
                f.set_modified(when).expect("mtime");
            }
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
