//! Query expansion by an external LLM command (`--expand-cmd CMD`), QMD's `expand:` without a local
//! model: `sh -c CMD` reads the query on stdin (and an `intent: …` line when there is one) and prints
//! typed lines — `lex:`, `vec:`, `hyde:` — that join the search with weight 1 (the original keeps
//! its double weight).
//!
//! Answers are cached by (command, query, intent) in `$BRAIN_HOME/cache/expand/<sha256>.txt`, so a
//! repeated question costs nothing. The command runs under a timeout (`--expand-timeout`, default
//! 20 s) that kills its process group; a failure, a timeout or an answer without a valid line is a
//! warning and the search goes on unexpanded — expansion may only ever add recall.

use std::path::PathBuf;
use std::time::Duration;

use brain_exec::Runner;
use brain_store::Home;

use crate::querydoc::{QueryDoc, SubQuery};

/// Default time an expansion command may take: a hosted LLM answers a one-line prompt in a few
/// seconds; past 20 s the user is better served by the unexpanded search (our choice, 2026-11-22).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// Most sub-queries an expansion may add (QMD's expansion model emits a handful).
pub const MAX_LINES: usize = 8;

/// Expand `query` with `cmd`; `Err` is a warning to show, never fatal.
pub fn expand(
    home: &Home,
    cmd: &str,
    query: &str,
    intent: Option<&str>,
    timeout: Duration,
) -> Result<Vec<SubQuery>, String> {
    let mut prompt = query.trim().replace('\n', " ");
    if let Some(i) = intent {
        prompt.push_str("\nintent: ");
        prompt.push_str(&i.replace('\n', " "));
    }
    prompt.push('\n');
    let path = cache_path(home, cmd, &prompt);
    let answer = match std::fs::read_to_string(&path) {
        Ok(cached) => cached,
        Err(_) => {
            let runner = Runner {
                command: cmd.to_string(),
                timeout,
                retries: 0,
                backoff: Duration::ZERO,
            };
            let out = runner
                .run(&prompt, &[("BRAIN_QUERY", query)])
                .map_err(|e| format!("query expansion skipped: {e}"))?;
            let lines = parse(&out)?;
            // Cache only a usable answer; a cache write failing is not worth a warning.
            if let Some(dir) = path.parent()
                && std::fs::create_dir_all(dir).is_ok()
            {
                let _ = brain_doc::atomic::write(&path, render(&lines).as_bytes());
            }
            return Ok(lines);
        }
    };
    parse(&answer)
}

/// The typed lines of an answer: blank lines, `intent:` lines and anything untyped are ignored (LLMs
/// add chatter); at most [`MAX_LINES`].
fn parse(answer: &str) -> Result<Vec<SubQuery>, String> {
    let lines: Vec<SubQuery> = answer
        .lines()
        .filter_map(|l| QueryDoc::parse(l).ok())
        .flat_map(|d| d.searches)
        .take(MAX_LINES)
        .collect();
    if lines.is_empty() {
        return Err("query expansion skipped: the command printed no lex:/vec:/hyde: line".into());
    }
    Ok(lines)
}

fn render(lines: &[SubQuery]) -> String {
    QueryDoc {
        searches: lines.to_vec(),
        intent: None,
    }
    .render()
}

fn cache_path(home: &Home, cmd: &str, prompt: &str) -> PathBuf {
    let key = brain_doc::sha256_hex(format!("{cmd}\0{prompt}").as_bytes());
    home.root()
        .join("cache")
        .join("expand")
        .join(format!("{key}.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::querydoc::SearchKind;

    #[test]
    fn answers_are_parsed_leniently_and_cached() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let cmd = "cat >/dev/null; printf 'Sure! Here you go:\\nlex: jwt refresh\\n\\nvec: why are tokens rejected\\nhyde: The token expired.\\n'";
        let lines = expand(&home, cmd, "auth failures", None, DEFAULT_TIMEOUT).expect("expand");
        let kinds: Vec<SearchKind> = lines.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            vec![SearchKind::Lex, SearchKind::Vec, SearchKind::Hyde]
        );
        // Cached: a command that would now fail is not run again.
        let again = expand(&home, cmd, "auth failures", None, DEFAULT_TIMEOUT).expect("cached");
        assert_eq!(again, lines);
        let files = std::fs::read_dir(dir.path().join("cache/expand"))
            .expect("cache")
            .count();
        assert_eq!(files, 1);
    }

    #[test]
    fn failures_and_timeouts_are_warnings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let e =
            expand(&home, "echo nothing useful", "q", None, DEFAULT_TIMEOUT).expect_err("no lines");
        assert!(e.contains("no lex:/vec:/hyde: line"), "{e}");
        let e =
            expand(&home, "sleep 5", "q", None, Duration::from_millis(200)).expect_err("timeout");
        assert!(e.contains("skipped"), "{e}");
        assert!(
            !dir.path().join("cache/expand").exists(),
            "failures are not cached"
        );
    }
}
