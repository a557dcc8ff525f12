//! Queries people type (auto mode): a quoted phrase or a negation that would empty the answer falls
//! back to the words with a warning, question scaffolding and question words do not dilute BM25
//! (nor cut a question down to nothing, nor make it a query of two words), and a note's `# Title`
//! line counts once.

use brain_doc::Hit;
use brain_tests::{command, run};

/// A notes home with `(name, text)` files, indexed.
fn home(notes: &[(&str, &str)]) -> tempfile::TempDir {
    brain_tests::indexed_notes(notes).0
}

/// `brain ask --json ARGS…`: exit code and envelope.
fn ask(dir: &tempfile::TempDir, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = run(
        command("brain", &dir.path().join("home"))
            .args(["ask", "--json", "--no-dedup"])
            .args(args),
        b"",
    );
    let env = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), env)
}

fn hits(env: &serde_json::Value) -> Vec<Hit> {
    serde_json::from_value(env["hits"].clone()).unwrap_or_default()
}

fn warnings(env: &serde_json::Value) -> String {
    env["warnings"].to_string()
}

#[test]
fn a_phrase_that_matches_nothing_falls_back_to_its_words_in_auto_mode_only() {
    let dir = home(&[(
        "a.md",
        "---\ntitle: Writer\n---\nthe lock contention in the writer thread\n",
    )]);
    let (code, env) = ask(&dir, &["why did the \"writer lock contention\" happen"]);
    assert_eq!(code, Some(0));
    assert_eq!(hits(&env)[0].path, "a.md");
    assert!(
        warnings(&env).contains("nothing matched the exact phrase \\\"writer lock contention\\\""),
        "{}",
        warnings(&env)
    );
    // Asked for exactly, it stays exact.
    let (code, _) = ask(
        &dir,
        &[
            "--mode",
            "lex",
            "why did the \"writer lock contention\" happen",
        ],
    );
    assert_eq!(code, Some(67));
    // A phrase that matches stays a requirement, with no warning.
    let (code, env) = ask(&dir, &["\"lock contention\" writer"]);
    assert_eq!(code, Some(0));
    assert!(!warnings(&env).contains("nothing matched"));
}

#[test]
fn a_negation_that_empties_the_answer_falls_back_with_a_warning() {
    let dir = home(&[(
        "a.md",
        "---\ntitle: Cache\n---\nthe redis cache evicts too early\n",
    )]);
    let (code, env) = ask(&dir, &["cache eviction -redis"]);
    assert_eq!(code, Some(0));
    assert_eq!(hits(&env)[0].path, "a.md");
    assert!(
        warnings(&env).contains("with -redis excluded"),
        "{}",
        warnings(&env)
    );
    // A negated phrase goes whole.
    let (code, env) = ask(&dir, &["cache -\"redis cache\""]);
    assert_eq!(code, Some(0));
    assert_eq!(hits(&env)[0].path, "a.md");
}

#[test]
fn question_scaffolding_does_not_outrank_the_entity_asked_about() {
    let dir = home(&[
        (
            "retro.md",
            "---\ntitle: Retro\n---\n## What Could Have Gone Better\n\nWhat could have been faster: the deploy; what could have been clearer: the docs.\n",
        ),
        (
            "trip.md",
            "---\ntitle: Trip\n---\nBooked the Zanzibar festival tickets and the ferry.\n",
        ),
    ]);
    let (_, env) = ask(
        &dir,
        &["what could have gone wrong at the Zanzibar festival"],
    );
    assert_eq!(hits(&env)[0].path, "trip.md");
}

#[test]
fn question_words_do_not_outrank_the_session_that_holds_the_topic() {
    // LoCoMo's "When did Caroline go to the LGBTQ support group?": the session that tells of the
    // support group lost to one that says "when" and "did" often.
    let dir = home(&[
        (
            "tuesday.md",
            "---\ntitle: Tuesday\n---\nCaroline: I went to the LGBTQ support group yesterday. The support group made me feel accepted.\n",
        ),
        (
            "saturday.md",
            "---\ntitle: Saturday\n---\nCaroline: When did you go hiking? When did it rain? We go when the group is ready, and the LGBTQ pride was fun.\n",
        ),
        (
            "monday.md",
            "---\ntitle: Monday\n---\nMelanie: the pottery class was calm, so what did she do?\n",
        ),
    ]);
    let (code, env) = ask(&dir, &["When did Caroline go to the LGBTQ support group?"]);
    assert_eq!(code, Some(0), "{env}");
    assert_eq!(hits(&env)[0].path, "tuesday.md", "{env}");
    // `--mode lex` reads every word as written.
    let (_, env) = ask(
        &dir,
        &[
            "--mode",
            "lex",
            "When did Caroline go to the LGBTQ support group?",
        ],
    );
    assert_eq!(hits(&env)[0].path, "saturday.md", "{env}");
    // A question of question words and stop words alone is searched whole, not as nothing.
    let (code, env) = ask(&dir, &["so what did she do about it"]);
    assert_eq!(code, Some(0), "{env}");
    assert_eq!(hits(&env)[0].path, "monday.md", "{env}");
    // A question keeps its length: its one unknown word does not hold the answer back as in a
    // query of two words.
    let (code, env) = ask(&dir, &["which database did Caroline"]);
    assert_eq!(code, Some(0), "{env}");
    assert!(!hits(&env).is_empty(), "{env}");
}

#[test]
fn a_title_heading_counts_once_like_a_frontmatter_title() {
    let body = "Lock files and flock semantics for the writer.\n";
    let dir = home(&[
        ("heading.md", &format!("# Writer lock contention\n\n{body}")),
        (
            "frontmatter.md",
            &format!("---\ntitle: Writer lock contention\n---\n{body}"),
        ),
    ]);
    let out = run(
        command("rank", &dir.path().join("home")).args(["writer", "lock", "contention"]),
        b"",
    );
    let hits: Vec<Hit> = brain_tests::parse_lines(&out.stdout);
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].signals["bm25"], hits[1].signals["bm25"], "{hits:?}");
}

#[test]
fn a_named_project_or_agent_is_a_boost_not_a_filter() {
    let session = |project: &str, agent: &str, body: &str| {
        format!(
            "---\ntitle: T\ndate: 2026-03-01T10:00:00Z\nproject: {project}\nsource:\n  type: session\n  agent: {agent}\n  file: /x.jsonl\n---\n{body}\n"
        )
    };
    // Neutral file names: only the project and agent tell the sessions apart (lexically they tie).
    let dir = home(&[
        (
            "s1.md",
            &session(
                "~/code/web-shop",
                "claude",
                "pytest failed with a KeyError in the cart",
            ),
        ),
        (
            "s2.md",
            &session(
                "~/code/billing-api",
                "codex",
                "pytest failed with a KeyError in invoices",
            ),
        ),
    ]);
    for (q, first) in [
        (
            "which error did pytest give us in the billing api repo",
            "s2.md",
        ),
        ("which error did pytest give us in web_shop", "s1.md"),
        ("the pytest KeyError we saw with codex", "s2.md"),
    ] {
        let (code, env) = ask(&dir, &[q]);
        assert_eq!(code, Some(0));
        let got: Vec<String> = hits(&env).into_iter().map(|h| h.path).collect();
        assert_eq!(got.len(), 2, "{q}: soft, the other project still answers");
        assert_eq!(got[0], first, "{q}");
        assert!(
            warnings(&env).contains("(soft: a boost, not a filter)"),
            "{q}"
        );
    }
    // The hard filter stays hard.
    let (_, env) = ask(
        &dir,
        &[
            "--project",
            "~/code/web-shop",
            "pytest KeyError billing api",
        ],
    );
    assert_eq!(
        hits(&env).into_iter().map(|h| h.path).collect::<Vec<_>>(),
        ["s1.md"]
    );
}

#[test]
fn a_misspelled_or_short_word_finds_its_near_spellings_below_exact_matches() {
    let dir = home(&[
        (
            "plan.md",
            "---\ntitle: Plan\n---\nthe business plan for the summer festival\n",
        ),
        ("fest.md", "---\ntitle: Notes\n---\nthe fest was loud\n"),
        ("other.md", "---\ntitle: Other\n---\nnothing to see here\n"),
    ]);
    for q in ["buisiness", "fesetival", "the buisness plan"] {
        let (code, env) = ask(&dir, &[q]);
        assert_eq!(code, Some(0), "{q}");
        assert_eq!(hits(&env)[0].path, "plan.md", "{q}");
    }
    // "fest": the exact word first, the long form it begins after it.
    let (_, env) = ask(&dir, &["fest"]);
    let got: Vec<String> = hits(&env).into_iter().map(|h| h.path).collect();
    assert_eq!(got, ["fest.md", "plan.md"]);
    // A word nothing is near stays unmatched.
    let (code, _) = ask(&dir, &["qwxzvbnm"]);
    assert_eq!(code, Some(67));
}

#[test]
fn the_word_as_written_beats_a_word_that_only_shares_its_stem() {
    // "customers" and "customize" meet at the stem "custom": BM25 alone ties them.
    let dir = home(&[
        ("a.md", "---\ntitle: A\n---\nwe customize the theme\n"),
        ("b.md", "---\ntitle: B\n---\nwe customers the theme\n"),
    ]);
    for mode in ["lex", "auto"] {
        let (code, env) = ask(&dir, &["--mode", mode, "customers"]);
        assert_eq!(code, Some(0));
        let got = hits(&env);
        assert_eq!(got[0].path, "b.md", "{mode}");
        assert_eq!(got[0].signals["exact"], 1.0);
        assert_eq!(got[1].signals["bm25"], got[0].signals["bm25"], "a stem tie");
        assert!(got[1].score < got[0].score);
    }
}

#[test]
fn per_session_keeps_one_session_from_filling_the_top_hits_when_asked() {
    let note = |sid: &str, text: &str| format!("---\nsession_id: {sid}\n---\n{text}\n");
    let dir = home(&[
        (
            "s1-a.md",
            &note("S1", "tokenizer crash tokenizer crash tokenizer crash"),
        ),
        (
            "s1-b.md",
            &note("S1", "tokenizer crash tokenizer crash again"),
        ),
        ("s2.md", &note("S2", "a tokenizer crash once")),
    ]);
    let order = |env: &serde_json::Value| -> Vec<String> {
        hits(env).into_iter().map(|h| h.path).collect()
    };
    // Default: no limit, the scores decide.
    let (code, env) = ask(&dir, &["--mode", "lex", "-n", "2", "tokenizer crash"]);
    assert_eq!(code, Some(0));
    assert_eq!(order(&env), ["s1-a.md", "s1-b.md"]);
    // One per session: S2 comes before S1's second document, which carries `repeat`.
    std::fs::write(
        dir.path().join("home/search_strategy.yaml"),
        "per_session: 1\n",
    )
    .expect("strategy");
    let (_, env) = ask(&dir, &["--mode", "lex", "-n", "2", "tokenizer crash"]);
    assert_eq!(order(&env), ["s1-a.md", "s2.md"]);
    let (_, env) = ask(&dir, &["--mode", "lex", "-n", "3", "tokenizer crash"]);
    let h = hits(&env);
    assert_eq!(h[2].path, "s1-b.md");
    assert_eq!(
        h[2].signals.get("repeat"),
        Some(&serde_json::Value::from(1))
    );
    assert!(h.iter().enumerate().all(|(i, h)| h.rank == i as u32 + 1));
    // A bad value is refused, naming the key.
    std::fs::write(
        dir.path().join("home/search_strategy.yaml"),
        "per_session: many\n",
    )
    .expect("strategy");
    let out = run(
        command("brain", &dir.path().join("home")).args(["ask", "tokenizer crash"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("per_session"));
}

#[test]
fn filters_alone_walk_by_recency_and_a_project_is_named_as_people_spell_it() {
    let note = |project: &str, date: &str, text: &str| {
        format!("---\nproject: {project}\ndate: {date}\n---\n{text}\n")
    };
    let dir = home(&[
        (
            "old.md",
            &note("~/work/billing-api", "2026-03-01", "refund rounding bug"),
        ),
        (
            "new.md",
            &note("/Users/ann/src/billing-api", "2026-04-01", "invoice totals"),
        ),
        (
            "other.md",
            &note("~/work/frontend", "2026-04-05", "refund button"),
        ),
    ]);
    // A filter alone is a recency walk over what it lets through, newest first.
    for q in [
        "project:billing-api",
        "project:billing_api",
        "project:BillingApi",
    ] {
        let (code, env) = ask(&dir, &[q]);
        assert_eq!(code, Some(0), "{q}: {env}");
        let got: Vec<String> = hits(&env).into_iter().map(|h| h.path).collect();
        assert_eq!(got, ["new.md", "old.md"], "{q}");
    }
    // With words, the folder name filters the ranked search the same way, still hard.
    let (_, env) = ask(&dir, &["refund project:billing-api"]);
    let got: Vec<String> = hits(&env).into_iter().map(|h| h.path).collect();
    assert_eq!(got, ["old.md"]);
    let (_, env) = ask(
        &dir,
        &["--project", "billing_api", "--mode", "lex", "invoice"],
    );
    assert_eq!(hits(&env).len(), 1);
    // The modes that rank text refuse filters alone; negations alone stay refused everywhere.
    let (code, _) = ask(&dir, &["--mode", "lex", "project:billing-api"]);
    assert_eq!(code, Some(64));
    let (code, _) = ask(&dir, &["-refund project:billing-api"]);
    assert_eq!(code, Some(64));
    // A folder nobody has is an empty answer, not an error.
    let (code, env) = ask(&dir, &["project:nowhere"]);
    assert_eq!(code, Some(67), "{env}");
}

#[test]
fn a_phrase_with_stop_words_inside_matches_the_text_it_was_copied_from() {
    let dir = home(&[
        ("a.md", "the retry budget of the worker queue was raised\n"),
        (
            "b.md",
            "the retry budget was raised; the worker queue too\n",
        ),
    ]);
    // Strict (lex mode): only the passage holding the phrase as written, no fallback warning.
    let (code, env) = ask(&dir, &["--mode", "lex", "\"budget of the worker queue\""]);
    assert_eq!(code, Some(0), "{env}");
    let got: Vec<String> = hits(&env).into_iter().map(|h| h.path).collect();
    assert_eq!(got, ["a.md"]);
    assert!(
        !warnings(&env).contains("nothing matched"),
        "{}",
        warnings(&env)
    );
    // The gap is where the stop words were: other words there do not match.
    let (code, _) = ask(&dir, &["--mode", "lex", "\"budget worker queue\""]);
    assert_eq!(code, Some(67));
}
