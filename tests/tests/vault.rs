//! Memory II over the fixture vault (issue #23; `golden/vault/README.md` says what is in it): an
//! alias resolves to its entity and an ambiguous one is reported; a query naming an alias is
//! softly expanded; `related` at depth 1 and 2 and by kind; the contradiction in `doctor`; the
//! context block within its budget by the tokenizer's count, pinned first, the paraphrased
//! duplicate dropped by its vectors, byte-identical twice; working memory expiring after its
//! turns; daily notes answering with the one entry; archives demoted; names that deserve an
//! entity suggested and created; hostile frontmatter (secrets, bad relations, huge link lists).

use std::path::{Path, PathBuf};

use brain_tests::{command, parse_lines, run, vault_home};
use serde_json::Value;

const NOW: &str = "2026-03-23T12:00:00Z";

fn vault(embed: bool) -> Option<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = vault_home(dir.path(), embed)?;
    Some((dir, home))
}

fn brain(home: &Path, args: &[&str]) -> std::process::Output {
    run(command("brain", home).env("BRAIN_NOW", NOW).args(args), b"")
}

fn json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The hits of `brain ask --json` (one results object).
fn hits_of(out: &std::process::Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["hits"].as_array().cloned().unwrap_or_default()
}

fn ids_of(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| {
            format!(
                "{}/{}",
                h["collection"].as_str().unwrap_or(""),
                h["path"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn aliases_resolve_strictly_and_an_ambiguous_one_is_reported() {
    let (_d, h) = vault(false).expect("vault");
    for name in ["@schen", "SARAH   chen", "Sarah", "people/sarah-chen"] {
        let v = json(&brain(&h, &["entity", name, "--json"]));
        assert_eq!(v["entity"]["name"], "Sarah Chen", "{name}");
        assert_eq!(v["entity"]["kind"], "person");
    }
    let v = json(&brain(&h, &["entity", "show", "@schen", "--json"]));
    // The items.json facts: two current, the Lisbon one superseded by the Porto one.
    let facts = v["facts"].as_array().expect("facts");
    let status: Vec<(&str, &str)> = facts
        .iter()
        .map(|f| {
            (
                f["status"].as_str().unwrap_or(""),
                f["text"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(status.len(), 3, "{status:?}");
    assert_eq!(
        status[2],
        ("superseded", "Sarah Chen works from the Lisbon office")
    );
    assert!(
        facts[2]["superseded_by"]
            .as_str()
            .is_some_and(|s| s.ends_with("sarah-002.md"))
    );
    assert!(
        v["summary"]
            .as_str()
            .is_some_and(|s| s.contains("Staff engineer"))
    );
    let related: Vec<&str> = v["related"]
        .as_array()
        .expect("related")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(
        related.contains(&"notes/decisions/retry-policy.md"),
        "{related:?}"
    );
    assert!(related.contains(&"life/projects/billing"), "{related:?}");
    assert!(!v["timeline"].as_array().expect("timeline").is_empty());

    // `SC` is an alias of Sarah Chen and of the supply-chain concept: reported, never guessed.
    let out = brain(&h, &["entity", "sc"]);
    assert_eq!(out.status.code(), Some(64));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Sarah Chen") && err.contains("Supply chain"),
        "{err}"
    );
    // Nothing fuzzy: an initial is not a name.
    assert_eq!(brain(&h, &["entity", "S. Chen"]).status.code(), Some(67));
    // No name lists every entity (issue 38), as `brain entity list` does.
    assert_eq!(brain(&h, &["entity"]).status.code(), Some(0));

    // Every entity: seven defined; the session's project is the billing project (its folder is an
    // alias), not an eighth.
    let out = brain(&h, &["entity", "list", "--json"]);
    let all: Vec<Value> = parse_lines(&out.stdout);
    assert_eq!(all.len(), 7, "{all:?}");
    let billing = all
        .iter()
        .find(|e| e["name"] == "Billing service")
        .expect("billing");
    assert_eq!(billing["projects"][0], "/home/dev/code/billing-api");
    let old = all
        .iter()
        .find(|e| e["name"] == "Legacy invoicer")
        .expect("archived");
    assert_eq!(old["archived"], true);
    let people: Vec<Value> =
        parse_lines(&brain(&h, &["entity", "list", "--kind", "person", "--json"]).stdout);
    assert_eq!(people.len(), 3);
}

#[test]
fn a_query_naming_an_alias_is_softly_expanded_to_its_entity() {
    let (_d, h) = vault(false).expect("vault");
    // Raj's own page never says `rpatel`: the alias brings it in, with a warning that says so.
    let out = brain(&h, &["ask", "@rpatel", "--json", "-n", "10"]);
    let hits = hits_of(&out);
    let ids = ids_of(&hits);
    assert!(
        ids.contains(&"life/areas/people/raj-patel/summary.md".to_string()),
        "{ids:?}"
    );
    assert!(ids.contains(&"memory/2026-03-16.md".to_string()), "{ids:?}");
    let said: Value = serde_json::from_slice(&out.stdout).expect("results");
    assert!(
        said["warnings"]
            .to_string()
            .contains("read `@rpatel` as Raj Patel"),
        "{said}"
    );
    // A word that is no alias is searched as it is.
    let out = brain(&h, &["ask", "rpatel", "--json", "-n", "10"]);
    let ids = ids_of(&hits_of(&out));
    assert!(
        !ids.contains(&"life/areas/people/raj-patel/summary.md".to_string()),
        "{ids:?}"
    );
    // An ambiguous alias is not expanded.
    let out = brain(&h, &["ask", "what about SC", "--json"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("read `SC`"));
}

fn related(h: &Path, args: &[&str]) -> Vec<(u64, String, String)> {
    let mut a = vec!["related", "--json"];
    a.extend_from_slice(args);
    let out = brain(h, &a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_lines::<Value>(&out.stdout)
        .iter()
        .map(|r| {
            (
                r["depth"].as_u64().unwrap_or(0),
                r["relation"].as_str().unwrap_or("").to_string(),
                r["id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn related_walks_typed_relations_by_depth_and_kind() {
    let (_d, h) = vault(false).expect("vault");
    let d1 = related(&h, &["notes/decisions/retry-policy.md"]);
    let want = [
        (1, "contradicted by", "notes/decisions/no-retries.md"),
        (1, "derives_from", "memory/2026-03-04.md"),
        (1, "mentions", "life/areas/people/sarah-chen"),
        (1, "refined by", "notes/decisions/retry-policy-v2.md"),
        (1, "supports", "notes/decisions/idempotency-keys.md"),
    ];
    let got: Vec<(u64, &str, &str)> = d1
        .iter()
        .map(|(d, r, i)| (*d, r.as_str(), i.as_str()))
        .collect();
    assert_eq!(got, want);
    // Depth 2 adds what those lead to: the billing project (mentioned by the idempotency note).
    let d2 = related(&h, &["notes/decisions/retry-policy.md", "--depth", "2"]);
    assert!(
        d2.iter()
            .any(|(d, _, i)| *d == 2 && i == "life/projects/billing"),
        "{d2:?}"
    );
    assert!(d2.iter().filter(|(d, _, _)| *d == 1).count() == 5);
    // Everything this contradicts, in one command; the same from a #docid and a brain:// URI.
    let c = related(
        &h,
        &["notes/decisions/no-retries.md", "--kind", "contradicts"],
    );
    assert_eq!(
        c,
        [(
            1,
            "contradicts".into(),
            "notes/decisions/retry-policy.md".into()
        )]
    );
    let docid = brain_doc::docid("notes/decisions/no-retries.md");
    assert_eq!(related(&h, &[&docid, "-k", "contradicts"]), c);
    assert_eq!(
        related(
            &h,
            &["brain://notes/decisions/no-retries.md", "-k", "contradicts"]
        ),
        c
    );
    // From an entity, by an alias.
    let e = related(&h, &["@rpatel"]);
    assert!(
        e.iter().any(|(_, _, i)| i == "life/projects/billing"),
        "{e:?}"
    );
    // Bad input.
    assert_eq!(
        brain(&h, &["related", "notes/pinned.md", "--kind", "blocks"])
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        brain(&h, &["related", "notes/pinned.md", "--depth", "9"])
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        brain(&h, &["related", "nowhere/at/all.md"]).status.code(),
        Some(67)
    );
    assert_eq!(brain(&h, &["related", "SC"]).status.code(), Some(64));
}

#[test]
fn doctor_lists_the_contradiction_and_the_shared_alias() {
    let (_d, h) = vault(false).expect("vault");
    let check = brain_tests::doctor_check(&h, "memory");
    assert_eq!(check["outcome"], "pass");
    let details: Vec<&str> = check["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        details.iter().any(|d| d.starts_with(
            "contradiction: notes/decisions/no-retries.md contradicts notes/decisions/retry-policy.md"
        )),
        "{details:?}"
    );
    assert!(
        details
            .iter()
            .any(|d| d.contains("`sc` belongs to 2 entities")),
        "{details:?}"
    );
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("1 contradiction"))
    );
}

const TASK: &str = "rotate the staging database password before the billing deploy";

fn context(h: &Path, extra: &[&str]) -> std::process::Output {
    let mut a = vec!["context", "--budget", "1200"];
    a.extend_from_slice(extra);
    a.push(TASK);
    brain(h, &a)
}

#[test]
fn the_context_block_keeps_the_budget_pinned_first_and_one_of_two_paraphrases() {
    let Some((_d, h)) = vault(true) else {
        return;
    };
    let b = json(&context(&h, &["--json"]));
    let md = b["markdown"].as_str().expect("markdown");
    let counted = brain_context::tokens::count(md);
    assert_eq!(b["tokens"], counted);
    assert!(counted <= 1200, "{counted}");
    let items = b["items"].as_array().expect("items");
    let ids: Vec<&str> = items.iter().filter_map(|i| i["id"].as_str()).collect();
    // Guaranteed first, the pinned record before the memory files.
    assert_eq!(ids[0], "notes/pinned.md", "{ids:?}");
    assert_eq!(items[0]["section"], "always");
    assert!(ids[..3].contains(&"core/MEMORY.md"), "{ids:?}");
    // The two paraphrases share few words (shingles miss them); their vectors do not.
    let dups = ids.iter().filter(|i| i.starts_with("notes/dup-")).count();
    assert_eq!(dups, 1, "{ids:?}");
    assert!(b["left_out"]["duplicates"].as_u64() >= Some(1));
    let texts = [
        std::fs::read_to_string(h.join("../notes/dup-a.md")).expect("a"),
        std::fs::read_to_string(h.join("../notes/dup-b.md")).expect("b"),
    ];
    let sim = brain_context::dedup::similarity(
        &brain_context::dedup::shingles(&texts[0]),
        &brain_context::dedup::shingles(&texts[1]),
    );
    assert!(sim < brain_context::dedup::THRESHOLD, "{sim}");
    // The same bytes twice.
    let once = context(&h, &[]);
    assert_eq!(once.status.code(), Some(0));
    assert_eq!(once.stdout, context(&h, &[]).stdout);
    assert_eq!(String::from_utf8_lossy(&once.stdout), md);
    // `brain ask --dedup` collapses them too.
    let out = brain(
        &h,
        &["ask", "staging database password", "--dedup", "--json"],
    );
    let ids = ids_of(&hits_of(&out));
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("notes/dup-")).count(),
        1,
        "{ids:?}"
    );
}

#[test]
fn without_vectors_the_paraphrases_both_stay() {
    let (_d, h) = vault(false).expect("vault");
    let b = json(&context(&h, &["--json"]));
    let ids: Vec<&str> = b["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("notes/dup-")).count(),
        2,
        "{ids:?}"
    );
}

#[test]
fn working_memory_is_carried_first_and_expires_after_its_turns() {
    let (_d, h) = vault(false).expect("vault");
    let out = brain(
        &h,
        &["wm", "add", "--ttl", "2", "send Marco the refund export"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for turn in 0..2 {
        let md = String::from_utf8_lossy(&context(&h, &[]).stdout).into_owned();
        assert!(
            md.contains("send Marco the refund export"),
            "turn {turn}: {md}"
        );
        let wm = md.find("refund export").unwrap_or(usize::MAX);
        assert!(
            wm < md.find("Month-end freeze").unwrap_or(0),
            "working memory comes first"
        );
    }
    let md = String::from_utf8_lossy(&context(&h, &[]).stdout).into_owned();
    assert!(!md.contains("refund export"), "{md}");
}

#[test]
fn a_daily_note_answers_with_the_entry_of_that_day() {
    let (_d, h) = vault(false).expect("vault");
    let out = brain(&h, &["ask", "flaky ledger test", "--json", "-n", "3"]);
    let hits = hits_of(&out);
    let day = hits
        .iter()
        .find(|x| x["path"] == "2026-03-11.md")
        .expect("the daily note of 11 March");
    assert_eq!(day["line"], 3);
    assert_eq!(day["date"], "2026-03-11T00:00:00Z");
    let snippet = day["snippet"].as_str().unwrap_or("");
    assert!(
        snippet.contains("09:40") && !snippet.contains("17:20"),
        "{snippet}"
    );
}

#[test]
fn an_archived_project_is_demoted_not_hidden() {
    let (_d, h) = vault(false).expect("vault");
    let out = brain(
        &h,
        &[
            "ask",
            "monthly invoices pdf templates",
            "--json",
            "--explain",
        ],
    );
    let hits = hits_of(&out);
    let old = hits
        .iter()
        .find(|x| x["path"] == "archives/projects/legacy-invoicer/summary.md")
        .expect("still searchable");
    assert_eq!(old["signals"]["memory"]["archived"], -0.1);
    for h in hits
        .iter()
        .filter(|x| x["collection"] == "life" && x["path"] != old["path"])
    {
        assert!(h["signals"]["memory"].get("archived").is_none(), "{h}");
    }
}

#[test]
fn names_mentioned_three_times_are_suggested_and_applied_once() {
    let (_d, h) = vault(false).expect("vault");
    let out = brain(&h, &["entity", "suggest", "--json"]);
    let s: Vec<Value> = parse_lines(&out.stdout);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0]["name"], "Marco");
    assert_eq!(s[0]["kind"], "person");
    assert_eq!(s[0]["handle"], "@marco");
    assert_eq!(s[0]["mentions"], 3);
    // Nothing is named twice at a higher bar.
    assert_eq!(
        brain(&h, &["entity", "suggest", "--min", "4"])
            .status
            .code(),
        Some(67)
    );
    let out = brain(&h, &["entity", "suggest", "--apply", "--json"]);
    let done: Vec<Value> = parse_lines(&out.stdout);
    assert_eq!(done.len(), 1, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(done[0]["outcome"], "created");
    assert_eq!(done[0]["rel"], "areas/people/marco/summary.md");
    let folder = h.join("../life/areas/people/marco");
    assert_eq!(
        std::fs::read_to_string(folder.join("items.json")).expect("items"),
        "[]\n"
    );
    // Indexed at once: the entity exists, by its name and its handle; no longer suggested.
    let v = json(&brain(&h, &["entity", "@marco", "--json"]));
    assert_eq!(v["entity"]["name"], "Marco");
    assert_eq!(v["related"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(brain(&h, &["entity", "suggest"]).status.code(), Some(67));
    // No para collection: nowhere to create them.
    let yaml = std::fs::read_to_string(h.join("brain.yaml")).expect("yaml");
    std::fs::write(
        h.join("brain.yaml"),
        yaml.replace("role: para", "role: notes"),
    )
    .expect("yaml");
    std::fs::write(h.join("../memory/2026-03-21.md"), "- [[Zoe]]\n").expect("note");
    std::fs::write(h.join("../memory/2026-03-22.md"), "- [[Zoe]]\n").expect("note");
    std::fs::write(
        h.join("../notes/zoe.md"),
        "---\ndate: 2026-03-22\n---\nwith [[Zoe]]\n",
    )
    .expect("note");
    assert!(
        run(command("lexindex", &h).args(["--all", "--quiet"]), b"")
            .status
            .success()
    );
    assert_eq!(
        brain(&h, &["entity", "suggest", "--apply"]).status.code(),
        Some(64)
    );
}

#[test]
fn hostile_frontmatter_is_warned_about_and_secrets_never_reach_the_registry() {
    let (_d, h) = vault(false).expect("vault");
    let token = "ghp_R8x2mQ7vK4pL9nT3wY6zB1cD5fH0jS2aE4gU";
    let many: String = (0..5000).map(|i| format!("[[n{i}]] ")).collect();
    let files = [
        (
            "secret.md",
            format!(
                "---\ndate: 2026-03-20\nentities: [\"{token}\"]\nrelations: {{supports: \"{token}\"}}\naliases: [\"{token}\", Fine Alias]\n---\nsee [[{token}]] and @{token}\n"
            ),
        ),
        (
            "bad.md",
            "---\ndate: 2026-03-20\nrelations: 42\nentities: {a: b}\n---\nbody\n".to_string(),
        ),
        (
            "kinds.md",
            "---\ndate: 2026-03-20\nrelations: {blocks: x.md, supports: ../../../../etc/passwd}\n---\nbody\n".to_string(),
        ),
        ("many.md", format!("---\ndate: 2026-03-20\n---\n{many}\n")),
    ];
    for (name, text) in &files {
        std::fs::write(h.join("../notes").join(name), text).expect("note");
    }
    for n in ["n1", "n250"] {
        std::fs::write(
            h.join(format!("../notes/{n}.md")),
            "---\ndate: 2026-03-20\n---\nx\n",
        )
        .expect("note");
    }
    let out = run(command("lexindex", &h).arg("--all"), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("notes/secret.md") && err.contains("secret"),
        "{err}"
    );
    assert!(
        err.contains("notes/bad.md") && err.contains("`relations`"),
        "{err}"
    );
    assert!(err.contains("unknown kind `blocks`"), "{err}");
    // No byte of the token in the registry (or its WAL), whatever field it came in.
    for f in ["state.sqlite", "state.sqlite-wal"] {
        if let Ok(bytes) = std::fs::read(h.join(f)) {
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "{f} holds the token"
            );
        }
    }
    // The entity it defines keeps its safe alias; the path that climbs out resolves to nothing.
    let v = json(&brain(&h, &["entity", "Fine Alias", "--json"]));
    assert_eq!(v["entity"]["aliases"], serde_json::json!(["Fine Alias"]));
    assert_eq!(
        brain(&h, &["related", "notes/kinds.md"]).status.code(),
        Some(67)
    );
    // A note of 5,000 links keeps the first 200.
    let r = related(&h, &["notes/many.md"]);
    assert_eq!(r, [(1, "related".into(), "notes/n1.md".into())]);
    let check = brain_tests::doctor_check(&h, "memory");
    let details = check["details"].to_string();
    assert!(
        details.contains("supports `../../../../etc/passwd`, which is no record or entity"),
        "{details}"
    );
}

#[test]
fn two_applies_at_once_create_one_entity() {
    let (_d, h) = vault(false).expect("vault");
    let spawn = || {
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["entity", "suggest", "--apply", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (
        a.wait_with_output().expect("a"),
        b.wait_with_output().expect("b"),
    );
    assert!(a.status.success() && b.status.success());
    let outcomes: Vec<String> = parse_lines::<Value>(&a.stdout)
        .into_iter()
        .chain(parse_lines::<Value>(&b.stdout))
        .map(|v| v["outcome"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(outcomes.contains(&"created".to_string()), "{outcomes:?}");
    let text =
        std::fs::read_to_string(h.join("../life/areas/people/marco/summary.md")).expect("summary");
    assert!(
        text.starts_with("---\n") && text.contains("name: Marco"),
        "{text}"
    );
    assert_eq!(
        json(&brain(&h, &["entity", "marco", "--json"]))["entity"]["name"],
        "Marco"
    );
}

/// The goldens of `brain entity` and `brain related` run over the vault (home at `$CASE/home`).
fn golden_vault(work: &Path) {
    vault_home(work, false).expect("vault");
}

#[test]
fn golden_brain_entity() {
    brain_tests::golden("brain-entity", "brain", golden_vault);
}

#[test]
fn golden_brain_related() {
    brain_tests::golden("brain-related", "brain", golden_vault);
}

#[test]
fn the_official_mcp_client_asks_the_graph_tools() {
    let Some(dir) = brain_tests::mcp_client() else {
        return;
    };
    let (_d, h) = vault(false).expect("vault");
    let bin = brain_tests::bin("brain");
    let stdout = brain_tests::run_mcp_client(
        &dir,
        "graph.mjs",
        &[
            ("BRAIN_BIN", bin.as_os_str()),
            ("BRAIN_HOME", h.as_os_str()),
            ("BRAIN_NOW", NOW.as_ref()),
        ],
    );
    assert!(stdout.contains("5 checks passed over stdio"), "{stdout}");
}

#[test]
fn records_naming_one_entity_by_different_aliases_are_one_thread() {
    let (_d, h) = vault(false).expect("vault");
    let b = json(&brain(
        &h,
        &[
            "context",
            "--json",
            "--budget",
            "3000",
            "ledger retry idempotency decisions",
        ],
    ));
    let thread: Vec<&str> = b["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["thread"] == "entity:life/areas/people/sarah-chen")
        .filter_map(|i| i["id"].as_str())
        .collect();
    // `entities: ["@schen"]` and `entities: [Sarah Chen, billing]`: one person, one thread.
    assert!(
        thread.contains(&"notes/decisions/retry-policy.md"),
        "{thread:?}"
    );
    assert!(
        thread.contains(&"notes/decisions/idempotency-keys.md"),
        "{thread:?}"
    );
}
