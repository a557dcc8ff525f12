//! Privacy: secret redaction, `<private>` spans, base64 blobs and the `brain:do-not-index` opt-out.
//!
//! The one owner of these rules. Every producer of text that reaches the corpus uses this crate
//! (`jsonl2md` through `brain-ingest`, `chrome2md` through `brain-chrome`, `brain inbox` and MCP
//! `remember` through `brain-inbox`), so a rule added here protects all of them at once.
//!
//! Secrets are replaced by `[REDACTED:<kind>]` and counted per kind. One alternation regex finds every
//! candidate in a single pass (the regex crate's lazy DFA makes that cheap); a per-kind check then keeps
//! the assignment-style patterns from firing on code (`password: string`, `api_key = os.environ[…]`).
//! The rule set lives in `rules` (audit it there); `<private>` spans and base64 blobs in `scrub`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The marker that keeps a whole session out of the corpus.
pub const DO_NOT_INDEX: &[u8] = b"brain:do-not-index";

mod rules;
mod scrub;

use rules::{Check, RULES, is_placeholder, looks_random, looks_secret};
pub use scrub::scrub;

static COMBINED: LazyLock<Regex> = LazyLock::new(|| {
    let alts: Vec<String> = RULES
        .iter()
        .map(|r| format!("(?P<{}>{})", r.kind, r.pattern))
        .collect();
    Regex::new(&alts.join("|")).unwrap_or_else(|e| unreachable!("secret patterns compile: {e}"))
});

/// Counts of redactions by kind.
pub type Counts = BTreeMap<&'static str, u64>;

/// Replace every secret in `text` with `[REDACTED:<kind>]`, adding to `counts`.
pub fn redact(text: &str, counts: &mut Counts) -> String {
    COMBINED
        .replace_all(text, |c: &Captures| {
            let whole = c.get(0).map_or("", |m| m.as_str());
            let Some((kind, m, secret)) = classify(c) else {
                return whole.to_string();
            };
            *counts.entry(kind).or_default() += 1;
            let start = secret.start() - m.start();
            let end = secret.end() - m.start();
            format!("{}[REDACTED:{kind}]{}", &whole[..start], &whole[end..])
        })
        .into_owned()
}

/// Record a document's redactions in its frontmatter: `redactions` (the total, always) and
/// `redacted` (by kind, when any) — the same two keys for every producer.
pub fn record(counts: &Counts, meta: &mut serde_json::Map<String, serde_json::Value>) {
    let total: u64 = counts.values().sum();
    meta.insert("redactions".into(), total.into());
    if total > 0 {
        let by_kind: serde_json::Map<String, serde_json::Value> = counts
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).into()))
            .collect();
        meta.insert("redacted".into(), by_kind.into());
    }
}

/// The secrets `text` holds, counted by kind, without rewriting it: the same detectors as
/// [`redact`], for callers that refuse rather than redact (`brain inbox` never stores a secret).
pub fn find_secrets(text: &str) -> Counts {
    let mut counts = Counts::new();
    for c in COMBINED.captures_iter(text) {
        if let Some((kind, _, _)) = classify(&c) {
            *counts.entry(kind).or_default() += 1;
        }
    }
    counts
}

/// The kind of secret one match of [`COMBINED`] is, the whole match, and the secret part of it
/// (rules with an inner group keep their prefix: `Bearer `, `https://user:`, `password=`); `None`
/// when an assignment-style match is code, a placeholder or not random enough to be a secret.
fn classify<'a>(c: &Captures<'a>) -> Option<(&'static str, regex::Match<'a>, regex::Match<'a>)> {
    for r in RULES {
        let Some(m) = c.name(r.kind) else { continue };
        let secret = if r.inner {
            inner_group(c, r.kind)
        } else {
            None
        }
        .unwrap_or(m);
        // A quoted value is a string literal, not code (`db_password = "s3cr.et"`).
        let quoted = m.as_str()[..secret.start() - m.start()].ends_with(['"', '\'']);
        let confirmed = match r.check {
            Check::Format => true,
            Check::Assignment => looks_secret(secret.as_str(), quoted),
            Check::Entropy => {
                looks_secret(secret.as_str(), quoted) && looks_random(secret.as_str())
            }
            Check::Credential => !is_placeholder(secret.as_str()),
            Check::Token => {
                let v = secret.as_str();
                !is_placeholder(v)
                    && !v
                        .bytes()
                        .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
            }
        };
        if !confirmed {
            return None;
        }
        // `OPENAI_API_KEY=sk-proj-…`: name the vendor format when the value has one.
        let kind = if r.check == Check::Format {
            r.kind
        } else {
            vendor_kind(secret.as_str()).unwrap_or(r.kind)
        };
        return Some((kind, m, secret));
    }
    None
}

/// The first inner group of rule `kind` that matched (a rule may offer alternatives: a quoted or
/// an unquoted value).
fn inner_group<'a>(c: &Captures<'a>, kind: &str) -> Option<regex::Match<'a>> {
    static GROUPS: LazyLock<Vec<Option<String>>> = LazyLock::new(|| {
        COMBINED
            .capture_names()
            .map(|n| n.map(str::to_string))
            .collect()
    });
    let idx = GROUPS.iter().position(|n| n.as_deref() == Some(kind))?;
    // The inner groups of this rule are the unnamed ones up to the next named group.
    (idx + 1..GROUPS.len())
        .take_while(|i| GROUPS[*i].is_none())
        .find_map(|i| c.get(i))
}

/// The vendor token kind of a whole value, if it matches one of the vendor formats.
fn vendor_kind(value: &str) -> Option<&'static str> {
    let c = COMBINED.captures(value)?;
    let m = c.get(0)?;
    if m.start() != 0 || m.end() != value.len() {
        return None;
    }
    RULES
        .iter()
        .filter(|r| r.check == Check::Format && !r.inner)
        .map(|r| r.kind)
        .find(|k| c.name(k).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_passwords_issue_37_found_passing_are_redacted_and_code_is_not() {
        for (text, secret) in [
            ("password=Summer.2024", "Summer.2024"),
            ("DB_PASSWORD=Winter.99.x", "Winter.99.x"),
            (
                "Authorization: Bearer abc.defghij.klmnopqrst",
                "abc.defghij.klmnopqrst",
            ),
            (
                "curl -H 'Authorization: Bearer sk.live.abcdefghijklmnop'",
                "sk.live.abcdefghijklmnop",
            ),
            ("mysql -u root -phunterpass mydb", "hunterpass"),
            ("mysqldump --user=x --password=swordfish db", "swordfish"),
            ("psql --password correcthorse", "correcthorse"),
            // Words joined by dots (issue 58: 9 of 11 such variants were stored).
            ("password=Hunter.Two", "Hunter.Two"),
            ("DB_PASSWORD=correct.horse.battery", "correct.horse.battery"),
            ("secret: Blue.Sky.Falls", "Blue.Sky.Falls"),
            ("api_key=hunter.two.three", "hunter.two.three"),
            ("pwd=Mary.Had", "Mary.Had"),
            // A name ending in `_pass` (`DB_PASS`, `smtp_pass`) names a password too.
            ("db_pass = 'Blue.Sky.Morning'", "Blue.Sky.Morning"),
            ("export SMTP_PASS=Quiet.River9", "Quiet.River9"),
        ] {
            let (out, counts) = r(text);
            assert!(!out.contains(secret), "{text} -> {out}");
            assert_eq!(counts.values().sum::<u64>(), 1, "{text}: {counts:?}");
        }
        for text in [
            "password = config.db_password",
            "api_key=process.env.API_KEY",
            "password = self.password",
            "secret_key=Config.SECRET_KEY",
            "token = request.headers",
            "password=user.password",
            "mysql -p mydb",
            "--password $DB_PASSWORD",
            "--password=<your-password>",
            "use a Bearer token in the header",
            "secret: your-secret-here",
            // `pass` alone is a word of prose: "make sure they all pass:" before the next turn
            // (a real Claude Code session).
            "make sure they all pass:\n\nGreat! Now the cache tests",
            "pass: Build.Finished",
        ] {
            let (out, counts) = r(text);
            assert_eq!(out, text, "{counts:?}");
        }
    }

    fn r(text: &str) -> (String, Counts) {
        let mut c = Counts::new();
        (redact(text, &mut c), c)
    }

    #[test]
    fn vendor_tokens_are_redacted_by_kind() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws_access_key"),
            ("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "github_token"),
            ("glpat-abcdefghij0123456789", "gitlab_token"),
            ("xoxb-123456789012-abcdefghijkl", "slack_token"),
            ("sk_live_0123456789abcdefABCD", "stripe_key"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic_key"),
            ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "openai_key"),
            ("AIzaSyA0123456789abcdefghijklmnopqrstuv", "google_key"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
        ];
        for (text, kind) in cases {
            let (out, c) = r(text);
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{text} -> {out}"
            );
            assert_eq!(c.get(kind), Some(&1), "{text}");
        }
    }

    #[test]
    fn prefixes_are_kept_and_only_the_secret_goes() {
        assert_eq!(
            r("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345").0,
            "Authorization: Bearer [REDACTED:bearer_token]"
        );
        assert_eq!(
            r("postgres://admin:s3cr3tpass@db:5432/x").0,
            "postgres://admin:[REDACTED:url_password]@db:5432/x"
        );
        assert_eq!(
            r("DB_PASSWORD=hunter2hunter").0,
            "DB_PASSWORD=[REDACTED:password]"
        );
        let (out, c) = r("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123");
        assert_eq!(out, "export OPENAI_API_KEY=[REDACTED:openai_key]");
        assert_eq!(c.get("openai_key"), Some(&1));
    }

    #[test]
    fn find_secrets_counts_what_redact_would_replace() {
        let text = "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123\npassword: string;\nDB_PASSWORD=hunter2hunter";
        let found = find_secrets(text);
        assert_eq!(found, r(text).1);
        assert_eq!(found.get("openai_key"), Some(&1));
        assert_eq!(found.get("password"), Some(&1));
        assert!(find_secrets("password: string; api_key = os.environ[\"X\"]").is_empty());
    }

    #[test]
    fn private_keys_are_removed_whole() {
        let text =
            "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(r(text).0, "a\n[REDACTED:private_key]\nb");
    }

    #[test]
    fn code_that_mentions_passwords_is_left_alone() {
        for text in [
            "password: string;",
            "api_key = os.environ[\"OPENAI_API_KEY\"]",
            "const token = process.env.API_TOKEN",
            "password = getpass()",
            "secret: ${{ secrets.NPM }}",
            "passwordField: true",
            "API_KEY=OPENAI_API_KEY",
            "pwd: /home/user",
        ] {
            let (out, c) = r(text);
            assert_eq!(out, text, "false positive: {c:?}");
        }
    }

    #[test]
    fn private_spans_and_base64_are_scrubbed() {
        assert_eq!(scrub("a <private>my\nsecret</private> b"), "a [private] b");
        let img = format!("see data:image/png;base64,{}", "A".repeat(100));
        assert_eq!(scrub(&img), "see [base64 omitted]");
        let blob = format!("x {}== y", "QUJD".repeat(120));
        assert_eq!(scrub(&blob), "x [base64 omitted] y");
        let hash = "ab".repeat(64);
        assert_eq!(scrub(&hash), hash, "hashes stay");
    }
}
