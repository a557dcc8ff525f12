//! Privacy: secret redaction, `<private>` spans, base64 blobs and the `brain:do-not-index` opt-out.
//!
//! The one owner of these rules. Every producer of text that reaches the corpus uses this crate
//! (`jsonl2md` through `brain-ingest`, `chrome2md` through `brain-chrome`, `brain inbox` and MCP
//! `remember` through `brain-inbox`), so a rule added here protects all of them at once.
//!
//! Secrets are replaced by `[REDACTED:<kind>]` and counted per kind. One alternation regex finds every
//! candidate in a single pass (the regex crate's lazy DFA makes that cheap); a per-kind check then keeps
//! the assignment-style patterns from firing on code (`password: string`, `api_key = os.environ[…]`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The marker that keeps a whole session out of the corpus.
pub const DO_NOT_INDEX: &[u8] = b"brain:do-not-index";

/// How a match of a [`Rule`] is confirmed before it is redacted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// A vendor format: the shape is the proof.
    Format,
    /// A `name = value` assignment: the value must not be code or a placeholder ([`looks_secret`]).
    Assignment,
    /// A `name = value` assignment under a vaguer name (`…_key`, `…_token`): the value must also
    /// look random ([`looks_random`]).
    Entropy,
}

/// One secret rule: its kind (the `[REDACTED:<kind>]` label), its pattern, whether the secret is
/// the pattern's first inner group (the prefix — `Bearer `, `password=`, `https://user:` — stays),
/// and how a match is confirmed.
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    inner: bool,
    check: Check,
}

const fn rule(kind: &'static str, pattern: &'static str, inner: bool, check: Check) -> Rule {
    Rule {
        kind,
        pattern,
        inner,
        check,
    }
}

/// The rule set, most specific first (an Anthropic key must not be reported as an OpenAI one; a
/// quoted password before the unquoted form). Sources: the token formats each vendor documents and
/// gitleaks' default rules (github.com/gitleaks/gitleaks, `config/gitleaks.toml`): GitHub
/// `ghp_`/`github_pat_`, GitLab `glpat-`, Slack `xox?-` and webhooks, Stripe, Google `AIza`/`ya29.`,
/// AWS `AKIA`/`ASIA` and the 40-character secret key, npm `npm_`, Hugging Face `hf_`, SendGrid
/// `SG.`, Databricks `dapi`, Azure `AccountKey=`, PyPI `pypi-`, Shopify `shp*_`, DigitalOcean
/// `do?_v1_`, Vault `hvs.`, Postman `PMAK-`, Linear `lin_api_`, Grafana `glsa_`/`glc_`, Doppler
/// `dp.pt.`, age `AGE-SECRET-KEY-1`, Twilio `SK`, Mailgun `key-`, Square `sq0`, Telegram bot
/// tokens, Discord webhooks.
const RULES: &[Rule] = &[
    rule(
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        false,
        Check::Format,
    ),
    rule(
        "aws_secret_key",
        r#"(?i)(?-u:\b)(?:aws)?_?secret_?(?:access)?_?key(?:_id)?["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?-u:\b)"#,
        true,
        Check::Format,
    ),
    rule(
        "aws_access_key",
        r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "github_token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "gitlab_token",
        r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}",
        false,
        Check::Format,
    ),
    rule(
        "slack_token",
        r"(?-u:\b)xox[abposre]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}",
        false,
        Check::Format,
    ),
    rule(
        "discord_webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_-]{40,}",
        false,
        Check::Format,
    ),
    rule(
        "stripe_key",
        r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
        false,
        Check::Format,
    ),
    rule(
        "anthropic_key",
        r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}",
        false,
        Check::Format,
    ),
    rule(
        "openai_key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        false,
        Check::Format,
    ),
    rule(
        "google_key",
        r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?-u:\b)|(?-u:\b)ya29\.[0-9A-Za-z_-]{20,}",
        false,
        Check::Format,
    ),
    rule(
        "npm_token",
        r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "huggingface_token",
        r"(?-u:\b)hf_[A-Za-z0-9]{30,}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "sendgrid_key",
        r"(?-u:\b)SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}",
        false,
        Check::Format,
    ),
    rule(
        "databricks_token",
        r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9]+)?(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "azure_storage_key",
        r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,}={0,2})",
        true,
        Check::Format,
    ),
    rule(
        "pypi_token",
        r"(?-u:\b)pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        false,
        Check::Format,
    ),
    rule(
        "shopify_token",
        r"(?-u:\b)shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "digitalocean_token",
        r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "vault_token",
        r"(?-u:\b)hv[sbr]\.[A-Za-z0-9_-]{24,}",
        false,
        Check::Format,
    ),
    rule(
        "postman_key",
        r"(?-u:\b)PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "linear_key",
        r"(?-u:\b)lin_api_[A-Za-z0-9]{40}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "grafana_token",
        r"(?-u:\b)(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        false,
        Check::Format,
    ),
    rule(
        "doppler_token",
        r"(?-u:\b)dp\.pt\.[A-Za-z0-9]{40,}",
        false,
        Check::Format,
    ),
    rule(
        "age_secret_key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        false,
        Check::Format,
    ),
    rule(
        "twilio_key",
        r"(?-u:\b)SK[0-9a-f]{32}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "mailgun_key",
        r"(?-u:\b)key-[0-9a-z]{32}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "square_token",
        r"(?-u:\b)sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}",
        false,
        Check::Format,
    ),
    rule(
        "telegram_bot_token",
        r"(?-u:\b)[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?-u:\b)",
        false,
        Check::Format,
    ),
    rule(
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        false,
        Check::Format,
    ),
    rule(
        "bearer_token",
        r"(?i)(?-u:\b)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
        true,
        Check::Assignment,
    ),
    rule(
        "url_password",
        r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@",
        true,
        Check::Format,
    ),
    rule(
        "url_token",
        r"(?i)[?&#](?:access_token|id_token|refresh_token|token|api_?key|apikey|auth|client_secret|password|passwd|secret|sig|signature|x-amz-signature|code)=([^&#\s]{8,})",
        true,
        Check::Assignment,
    ),
    rule(
        "cli_password",
        r#"(?-u:\b)(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH)=["']?([^\s"']{3,})|(?-u:\b)mysql(?:dump|admin)?\s(?:[^\n|;&]*?\s)?-p([^\s"'-][^\s"']{2,})|--password[= ]["']?([^\s"'-][^\s"']{2,})"#,
        true,
        Check::Assignment,
    ),
    rule(
        "password",
        r#"(?i)(?-u:\b)(?:[A-Za-z0-9]+_)*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key)["']?\s*[:=]\s*(?:"([^"\n]{4,200})"|'([^'\n]{4,200})'|([^\s"'`,;)\]}]{4,}))"#,
        true,
        Check::Assignment,
    ),
    rule(
        "generic_secret",
        r#"(?i)(?-u:\b)(?:[A-Za-z0-9]+[_-])+(?:key|token|credentials?|auth)["']?\s*[:=]\s*["']?([A-Za-z0-9+/_.=-]{16,200})"#,
        true,
        Check::Entropy,
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
    let alts: Vec<String> = RULES
        .iter()
        .map(|r| format!("(?P<{}>{})", r.kind, r.pattern))
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

/// Whether a value under a vague name (`cache_key`, `sort_token`) looks like a random credential
/// rather than a word or an identifier: letters and digits mixed, and a Shannon entropy of at
/// least 3.5 bits per character (an English identifier sits near 3, a base64 key near 5). A hex
/// string is a hash or an id far more often than a credential under such a name: left alone.
fn looks_random(v: &str) -> bool {
    let has_digit = v.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = v.bytes().any(|b| b.is_ascii_alphabetic());
    let hex = v.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    if !has_digit || !has_alpha || hex {
        return false;
    }
    let mut counts = [0u32; 256];
    for b in v.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = v.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum();
    entropy >= 3.5
}

/// Whether an assignment's value looks like a real secret rather than code, a word or a
/// placeholder; `quoted` values are string literals, so the code shapes (dotted names,
/// SCREAMING_CASE) do not apply to them.
fn looks_secret(v: &str, quoted: bool) -> bool {
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
    // A word or an identifier (`ollama`, `proxy-handled`, `apiKeyValue`, the prefix `sk-ant-`): no
    // digit, no symbol. A passphrase has spaces and stays a secret.
    if v.bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
    {
        return false;
    }
    if quoted {
        return true;
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
