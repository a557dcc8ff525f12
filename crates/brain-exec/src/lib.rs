//! Running the user's LLM command: `sh -c COMMAND` with the prompt on stdin and the answer on stdout,
//! a timeout that kills the whole process group, retries with exponential backoff when the output says
//! the provider is rate-limiting, and `--jobs N` commands at a time on std threads.
//!
//! Shared by distillation (`brain distill`, seed 004) and query expansion (`rank --expand-cmd`); each
//! picks its own timeout and retries.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most a command may write on stdout: past it the command is stopped and its run fails
/// ([`RunError::TooLong`]), so a runaway answer costs at most this much memory (a 1 GB answer took
/// 1.96 GB before the callers' own checks saw it, issue 58). An answer brain uses is at most 256 KiB
/// (extraction) or a distilled document; 4 MiB leaves room for chatty commands.
pub const MAX_STDOUT: usize = 4 << 20;

/// The most of stderr kept (its last line is what messages quote).
const MAX_STDERR: usize = 64 << 10;

/// Seed 004 retries on `"429"` and `"RESOURCE_EXHAUSTED"`; CLIs also print "rate limit" in words.
const RATE_LIMIT_MARKERS: [&str; 4] = ["429", "rate limit", "rate-limit", "resource_exhausted"];

/// How to run the command.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The shell command (`sh -c`), e.g. `gemini -m gemini-2.5-flash` or `llm -m gpt-4o-mini`.
    pub command: String,
    /// Kill the command's process group after this long.
    pub timeout: Duration,
    /// Retries after a rate-limit answer.
    pub retries: u32,
    /// The first backoff; each retry doubles it.
    pub backoff: Duration,
}

/// Why a command produced no output to use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error("`{command}` could not be started: {reason}")]
    Spawn { command: String, reason: String },
    #[error("`{command}` did not finish within {secs:.1} s and was killed")]
    Timeout { command: String, secs: f64 },
    #[error("`{command}` is still rate-limited after {attempts} attempts: {tail}")]
    RateLimited {
        command: String,
        attempts: u32,
        tail: String,
    },
    #[error("`{command}` exited with status {status}: {tail}")]
    Failed {
        command: String,
        status: i32,
        tail: String,
    },
    #[error("`{command}` wrote more than {max} bytes and was stopped")]
    TooLong { command: String, max: usize },
}

impl RunError {
    /// True when the shell could not find the command (exit 127): the engine is missing.
    pub fn is_missing_command(&self) -> bool {
        matches!(
            self,
            RunError::Failed { status: 127, .. } | RunError::Spawn { .. }
        )
    }
}

/// One finished attempt.
struct Attempt {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
    /// Stdout passed [`MAX_STDOUT`] and the command was stopped.
    too_long: bool,
}

impl Runner {
    /// Run the command once per attempt until it succeeds, fails for another reason than a rate limit,
    /// or runs out of retries (waiting `backoff`, `2 × backoff`, `4 × backoff`… between attempts); `env`
    /// is added to its environment.
    pub fn run(&self, prompt: &str, env: &[(&str, &str)]) -> Result<String, RunError> {
        let mut attempt = 0u32;
        loop {
            let a = self.attempt(prompt, env)?;
            if a.too_long {
                return Err(RunError::TooLong {
                    command: self.command.clone(),
                    max: MAX_STDOUT,
                });
            }
            if a.timed_out {
                return Err(RunError::Timeout {
                    command: self.command.clone(),
                    secs: self.timeout.as_secs_f64(),
                });
            }
            let status = a.status.unwrap_or(-1);
            if status == 0 {
                return Ok(a.stdout);
            }
            let tail = tail(&a.stderr, &a.stdout);
            if !is_rate_limit(&a.stderr) && !is_rate_limit(&a.stdout) {
                return Err(RunError::Failed {
                    command: self.command.clone(),
                    status,
                    tail,
                });
            }
            if attempt >= self.retries {
                return Err(RunError::RateLimited {
                    command: self.command.clone(),
                    attempts: attempt + 1,
                    tail,
                });
            }
            std::thread::sleep(self.backoff.saturating_mul(1 << attempt.min(16)));
            attempt += 1;
        }
    }

    fn attempt(&self, prompt: &str, env: &[(&str, &str)]) -> Result<Attempt, RunError> {
        let spawn_err = |e: std::io::Error| RunError::Spawn {
            command: self.command.clone(),
            reason: e.to_string(),
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(spawn_err)?;
        let pid = child.id();
        let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_err(std::io::Error::other("no pipes")));
        };
        let prompt = prompt.to_string();
        // A command that never reads stdin closes the pipe: that is its business, not an error.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(prompt.as_bytes());
        });
        let out_reader = std::thread::spawn(move || {
            let (s, over) = read_capped(&mut stdout, MAX_STDOUT, false);
            if over {
                kill_group(pid);
            }
            (String::from_utf8_lossy(&s).into_owned(), over)
        });
        let err_reader = std::thread::spawn(move || {
            let (s, _) = read_capped(&mut stderr, MAX_STDERR, true);
            String::from_utf8_lossy(&s).into_owned()
        });
        let deadline = Instant::now() + self.timeout;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st.code(),
                Ok(None) if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_group(pid);
                    let _ = child.kill();
                    break child.wait().ok().and_then(|s| s.code());
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(spawn_err(e)),
            }
        };
        if status.is_some() && !timed_out {
            // The shell exited; a background grandchild may still hold the pipes open and would keep
            // the readers waiting: kill what is left of the group so they see end-of-file.
            kill_group(pid);
        }
        let _ = writer.join();
        let (stdout, too_long) = out_reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        Ok(Attempt {
            status,
            stdout,
            stderr,
            timed_out,
            too_long,
        })
    }
}

/// Up to `cap` bytes of `r`, and whether it held more. With `drain`, the bytes past the cap are
/// read and dropped until the end (stderr: the command never blocks on it); without, reading stops
/// there (stdout: the caller stops the command).
fn read_capped(r: &mut impl Read, cap: usize, drain: bool) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut over = false;
    let mut chunk = [0u8; 64 << 10];
    loop {
        match r.read(&mut chunk) {
            Ok(0) | Err(_) => return (out, over),
            Ok(n) if out.len() + n > cap => {
                let room = cap - out.len();
                out.extend_from_slice(&chunk[..room]);
                over = true;
                if !drain {
                    return (out, over);
                }
            }
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// SIGKILL the process group `pgid` (the command was started as its leader). Through `kill(1)` so that
/// the workspace keeps `unsafe_code = "deny"`.
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// True when `text` says the provider is rate-limiting.
pub fn is_rate_limit(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    RATE_LIMIT_MARKERS.iter().any(|m| lower.contains(m))
}

/// The last non-empty line of stderr (else stdout), for messages.
fn tail(stderr: &str, stdout: &str) -> String {
    let pick = |s: &str| {
        s.lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(200).collect())
    };
    pick(stderr)
        .or_else(|| pick(stdout))
        .unwrap_or_else(|| "(no output)".into())
}

/// Run `work` over `items` on `jobs` threads; `done` sees each result on the calling thread as soon as
/// it is ready (in completion order).
pub fn run_all<T: Send, R: Send>(
    items: Vec<T>,
    jobs: usize,
    work: impl Fn(T) -> R + Sync,
    mut done: impl FnMut(R),
) {
    let jobs = jobs.clamp(1, items.len().max(1));
    let queue = Mutex::new(items.into_iter());
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (queue, work) = (&queue, &work);
            s.spawn(move || {
                loop {
                    let next = match queue.lock() {
                        Ok(mut q) => q.next(),
                        Err(_) => None,
                    };
                    let Some(item) = next else { break };
                    if tx.send(work(item)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for r in rx {
            done(r);
        }
    });
}

/// Parse `2s`, `500ms`, `1m`, `1.5s` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (e.g. 2s, 500ms, 1m)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ms, s, m, h)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|e| format!("`{s}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(cmd: &str) -> Runner {
        Runner {
            command: cmd.into(),
            timeout: Duration::from_secs(5),
            retries: 2,
            backoff: Duration::from_millis(1),
        }
    }

    #[test]
    fn the_prompt_goes_to_stdin_and_stdout_comes_back() {
        assert_eq!(runner("tr a-z A-Z").run("hello", &[]), Ok("HELLO".into()));
        assert_eq!(
            runner("printf %s \"$X\"").run("", &[("X", "y")]),
            Ok("y".into())
        );
    }

    #[test]
    fn a_runaway_answer_is_stopped_at_the_cap_and_a_chatty_stderr_never_blocks() {
        // 1 GB of answer: stopped once MAX_STDOUT is read, long before it is written or timed out.
        let e = runner("head -c 1000000000 /dev/zero").run("", &[]);
        assert_eq!(
            e,
            Err(RunError::TooLong {
                command: "head -c 1000000000 /dev/zero".into(),
                max: MAX_STDOUT
            })
        );
        // 8 MB on stderr and a short answer: the answer comes back.
        let out = runner("head -c 8000000 /dev/zero >&2; echo done").run("", &[]);
        assert_eq!(out, Ok("done\n".into()));
    }

    #[test]
    fn a_failure_is_not_retried_and_a_rate_limit_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        let count = dir.path().join("n");
        let cmd = format!("echo x >> {0}; echo 'boom' >&2; exit 3", count.display());
        assert!(matches!(
            runner(&cmd).run("", &[]),
            Err(RunError::Failed { status: 3, .. })
        ));
        assert_eq!(
            std::fs::read_to_string(&count)
                .expect("count")
                .lines()
                .count(),
            1
        );
        let cmd = format!(
            "echo x >> {0}; echo '429 Too Many Requests' >&2; exit 1",
            count.display()
        );
        let err = runner(&cmd).run("", &[]).expect_err("rate limited");
        assert!(
            matches!(err, RunError::RateLimited { attempts: 3, .. }),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&count)
                .expect("count")
                .lines()
                .count(),
            4
        );
    }

    #[test]
    fn a_hanging_command_and_its_children_are_killed() {
        let mut r = runner("sleep 30 & sleep 30; echo never");
        r.timeout = Duration::from_millis(200);
        assert!(matches!(r.run("", &[]), Err(RunError::Timeout { .. })));
    }

    #[test]
    fn run_all_sees_every_result() {
        let mut got = Vec::new();
        run_all((0..20).collect(), 4, |i: i32| i * 2, |r| got.push(r));
        got.sort_unstable();
        assert_eq!(got, (0..20).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("soon").is_err());
    }
}
