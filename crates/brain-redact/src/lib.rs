//! Privacy: secret redaction, `<private>` spans, base64 blobs and the `brain:do-not-index` opt-out.
//!
//! The one owner of these rules. Every producer of text that reaches the corpus uses this crate
//! (`jsonl2md` through `brain-ingest`, `brain inbox` and MCP `remember` through `brain-inbox`), so
//! a pattern added here protects all of them at once.
//!
//! Secrets are replaced by `[REDACTED:<kind>]` and counted per kind. One alternation regex finds every
//! candidate in a single pass (the regex crate's lazy DFA makes that cheap); a per-kind check then keeps
//! the assignment-style patterns from firing on code (`password: string`, `api_key = os.environ[…]`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The marker that keeps a whole session out of the corpus.
pub const DO_NOT_INDEX: &[u8] = b"brain:do-not-index";

/// Secret patterns, most specific first (an Anthropic key must not be reported as an OpenAI one).
/// Sources: the token formats each vendor documents (GitHub `ghp_`/`github_pat_`, GitLab `glpat-`, Slack
/// `xox?-`, Stripe `sk_live_`, Google `AIza`, AWS `AKIA`/`ASIA`) and gitleaks' default rules.
const PATTERNS: &[(&str, &str)] = &[
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
    ),
    (
        "aws_access_key",
        r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
    ),
    (
        "github_token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?-u:\b)",
    ),
    ("gitlab_token", r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}"),
    (
        "slack_token",
        r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}",
    ),
    (
        "stripe_key",
        r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    ),
    ("anthropic_key", r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}"),
    (
        "openai_key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    ),
    (
        "google_key",
        r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?-u:\b)|(?-u:\b)ya29\.[0-9A-Za-z_-]{20,}",
    ),
    (
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    (
        "bearer_token",
        r"(?i)(?-u:\b)bearer\s+([A-Za-z0-9._~+/-]{20,}=*)",
    ),
    (
        "url_password",
        r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@",
    ),
    (
        "password",
        r#"(?i)(?-u:\b)(?:[A-Za-z0-9]+_)*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key)["']?\s*[:=]\s*["']?([^\s"'`,;)\]}]{4,})"#,
    ),
];

/// Values that follow `password:`/`api_key=` in code and docs without being secrets.
const NOT_SECRETS: &[&str] = &[
    "string",
    "str",
    "number",
    "bool",
    "boolean",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "required",
    "optional",
    "password",
    "secret",
    "redacted",
    "example",
    "placeholder",
    "changeme!",
    "xxxx",
    "xxxxxx",
    "****",
    "******",
    "********",
    "string;",
    "str,",
    "any",
];

static COMBINED: LazyLock<Regex> = LazyLock::new(|| {
    let alts: Vec<String> = PATTERNS
        .iter()
        .map(|(k, p)| format!("(?P<{k}>{p})"))
        .collect();
    Regex::new(&alts.join("|")).unwrap_or_else(|e| unreachable!("secret patterns compile: {e}"))
});

static PRIVATE_SPAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<private>.*?</private>").unwrap_or_else(|e| unreachable!("{e}"))
});

static DATA_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"data:[a-zA-Z]+/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=]{16,}")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// A bare base64 run at least this long is a blob (an image or archive), not prose or a hash (a sha512
/// in hex is 128 characters).
const BASE64_RUN: usize = 400;

/// Counts of redactions by kind.
pub type Counts = BTreeMap<&'static str, u64>;

/// Remove `<private>…</private>` spans and base64 blobs (images pasted as data URLs and the like).
pub fn scrub(text: &str) -> String {
    let t = if text.contains("<private>") {
        PRIVATE_SPAN.replace_all(text, "[private]")
    } else {
        text.into()
    };
    let t = if t.contains(";base64,") {
        DATA_URL
            .replace_all(&t, "[base64 omitted]")
            .into_owned()
            .into()
    } else {
        t
    };
    drop_base64_runs(&t)
}

/// Replace runs of base64 alphabet of [`BASE64_RUN`] or more bytes (a hand scan: a counted repetition
/// of 400 would blow up the regex automaton).
fn drop_base64_runs(text: &str) -> String {
    let b = text.as_bytes();
    let is_b64 = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if !is_b64(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        if i - start >= BASE64_RUN {
            while i < b.len() && b[i] == b'=' {
                i += 1;
            }
            out.push_str(&text[copied..start]);
            out.push_str("[base64 omitted]");
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
    out
}

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
/// (patterns with a capture keep their prefix: `Bearer `, `https://user:`, `password=`); `None` when
/// an assignment-style match is code or a placeholder rather than a secret.
fn classify<'a>(c: &Captures<'a>) -> Option<(&'static str, regex::Match<'a>, regex::Match<'a>)> {
    for (kind, _) in PATTERNS {
        let Some(m) = c.name(kind) else { continue };
        let secret = secret_group(c, kind).unwrap_or(m);
        if matches!(*kind, "password" | "bearer_token") && !looks_secret(secret.as_str()) {
            return None;
        }
        // `OPENAI_API_KEY=sk-proj-…`: name the vendor format when the value has one.
        let kind = if matches!(*kind, "password" | "bearer_token") {
            vendor_kind(secret.as_str()).unwrap_or(kind)
        } else {
            kind
        };
        return Some((kind, m, secret));
    }
    None
}

/// The inner capture group of a pattern, when it has one: the group right after the named one.
fn secret_group<'a>(c: &Captures<'a>, kind: &str) -> Option<regex::Match<'a>> {
    let names: Vec<Option<&str>> = COMBINED.capture_names().collect();
    let idx = names.iter().position(|n| *n == Some(kind))?;
    let has_inner = matches!(kind, "bearer_token" | "url_password" | "password");
    if has_inner { c.get(idx + 1) } else { None }
}

/// The vendor token kind of a whole value, if it matches one of the specific patterns.
fn vendor_kind(value: &str) -> Option<&'static str> {
    let c = COMBINED.captures(value)?;
    let m = c.get(0)?;
    if m.start() != 0 || m.end() != value.len() {
        return None;
    }
    PATTERNS.iter().map(|(k, _)| *k).find(|k| {
        !matches!(*k, "password" | "bearer_token" | "url_password") && c.name(k).is_some()
    })
}

/// Whether an assignment's value looks like a real secret rather than code or a placeholder.
fn looks_secret(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if NOT_SECRETS.contains(&lower.as_str()) || lower.starts_with("your") || lower.starts_with("<")
    {
        return false;
    }
    if v.starts_with('/') || v.starts_with('~') || v.starts_with("./") {
        return false; // a path (`pwd: /home/user`)
    }
    if v.starts_with('$')
        || v.starts_with('{')
        || v.starts_with('%')
        || v.contains('(')
        || v.contains('[')
    {
        return false; // `$PASSWORD`, `{{ secret }}`, `%(pw)s`, `getpass()`, `os.environ["X"]`
    }
    // `process.env.API_KEY`, `self.password`, `config.secret_key`: dotted identifiers are code.
    let dotted_ident = v.contains('.')
        && v.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'));
    if dotted_ident && v.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic()) {
        return false;
    }
    // SCREAMING_CASE names (`API_KEY=OPENAI_API_KEY`) and lower-case identifiers used as variables.
    if v.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_') {
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

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
