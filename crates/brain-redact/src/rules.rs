//! The rule set: every secret pattern, how a match is confirmed, and what is never a secret.
//! Audit it here; [`crate::redact`] applies it.

/// How a match of a [`Rule`] is confirmed before it is redacted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// A vendor format: the shape is the proof.
    Format,
    /// A `name = value` assignment: the value must not be code or a placeholder ([`looks_secret`]).
    Assignment,
    /// A `name = value` assignment under a vaguer name (`…_key`, `…_token`): the value must also
    /// look random ([`looks_random`]).
    Entropy,
    /// A value whose place says it is a password whatever it looks like (`mysql -pVALUE`,
    /// `--password VALUE`): only placeholders and variables are left ([`is_placeholder`]).
    Credential,
    /// A token after `Bearer`: anything but a placeholder or a plain identifier (`dev-user-token`
    /// in a test is a name; a dotted, digit-bearing or base64 value is a token).
    Token,
}

/// One secret rule: its kind (the `[REDACTED:<kind>]` label), its pattern, whether the secret is
/// the pattern's first inner group (the prefix — `Bearer `, `password=`, `https://user:` — stays),
/// and how a match is confirmed.
pub(crate) struct Rule {
    pub(crate) kind: &'static str,
    pub(crate) pattern: &'static str,
    pub(crate) inner: bool,
    pub(crate) check: Check,
}

pub(crate) const fn rule(
    kind: &'static str,
    pattern: &'static str,
    inner: bool,
    check: Check,
) -> Rule {
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
pub(crate) const RULES: &[Rule] = &[
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
        Check::Token,
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
        r#"(?-u:\b)(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH)=["']?([^\s"'\[\]()<>`]{3,})|(?-u:\b)mysql(?:dump|admin)?\s(?:[^\n|;&]*?\s)?-p([^\s"'\[\]()<>`-][^\s"'\[\]()<>`]{2,})|--password[= ]["']?([^\s"'\[\]()<>`-][^\s"'\[\]()<>`]{2,})"#,
        true,
        Check::Credential,
    ),
    // A credential's name, then its value: `password`, `api_key`, … with any `prefix_`; `pass`
    // only as the end of one (`DB_PASS`): alone it is prose ("make sure they all pass:").
    rule(
        "password",
        r#"(?i)(?-u:\b)(?:(?:[A-Za-z0-9]+_)*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key)|(?:[A-Za-z0-9]+_)+pass)["']?\s*[:=]\s*(?:"([^"\n]{4,200})"|'([^'\n]{4,200})'|([^\s"'`,;)\]}]{4,}))"#,
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
pub(crate) const NOT_SECRETS: &[&str] = &[
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

/// Whether a value under a vague name (`cache_key`, `sort_token`) looks like a random credential
/// rather than a word or an identifier: letters and digits mixed, and a Shannon entropy of at
/// least 3.5 bits per character (an English identifier sits near 3, a base64 key near 5). A hex
/// string is a hash or an id far more often than a credential under such a name: left alone.
pub(crate) fn looks_random(v: &str) -> bool {
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

/// Whether a credential's value is a stand-in rather than the secret: a placeholder word
/// ([`NOT_SECRETS`], `your…`, `<…>`) or a variable or template (`$PASSWORD`, `{{ pw }}`, `%(pw)s`).
pub(crate) fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    NOT_SECRETS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.starts_with('<')
        || v.starts_with('$')
        || v.starts_with('{')
        || v.starts_with('%')
        || v.starts_with('*')
}

/// Whether an assignment's value looks like a real secret rather than code, a word or a
/// placeholder; `quoted` values are string literals, so the code shapes (dotted names,
/// SCREAMING_CASE) do not apply to them.
pub(crate) fn looks_secret(v: &str, quoted: bool) -> bool {
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
    // `process.env.API_KEY`, `self.password`, `config.secret_key`: dotted identifiers are code —
    // every part an identifier (a letter or `_` first; so `Summer.2024` is a password) read from a
    // known holder or naming a field ([`is_code_path`]; so `Hunter.Two` is a password too).
    let dotted_ident = v.contains('.')
        && v.split('.').all(|p| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && p.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        });
    if dotted_ident
        && v.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic())
        && is_code_path(v)
    {
        return false;
    }
    // SCREAMING_CASE names (`API_KEY=OPENAI_API_KEY`) and lower-case identifiers used as variables.
    if v.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_') {
        return false;
    }
    true
}

/// Objects code reads settings and secrets from (`self.password`, `os.environ`, `cfg.token`).
const HOLDERS: &[&str] = &[
    "self",
    "this",
    "cls",
    "os",
    "process",
    "env",
    "environ",
    "config",
    "cfg",
    "conf",
    "settings",
    "options",
    "opts",
    "args",
    "argv",
    "params",
    "ctx",
    "context",
    "app",
    "request",
    "req",
    "credentials",
    "creds",
    "secrets",
    "vars",
    "import",
    "window",
    "global",
    "globals",
    "vault",
    "keyring",
    "user",
    "account",
    "auth",
    "data",
    "payload",
    "body",
    "form",
    "props",
    "state",
];

/// Whether the dotted identifier `v` reads like code rather than a passphrase of words joined by
/// dots (`Hunter.Two`, `correct.horse.battery`): its first part is a known holder ([`HOLDERS`]), or
/// its last part names a field (`snake_case`, `SCREAMING`, or a credential word: `user.password`,
/// `Config.SECRET_KEY`).
fn is_code_path(v: &str) -> bool {
    let first = v.split('.').next().unwrap_or_default().to_ascii_lowercase();
    let last = v.rsplit('.').next().unwrap_or_default();
    let lower = last.to_ascii_lowercase();
    HOLDERS.contains(&first.as_str())
        || last.contains('_')
        || (last.len() > 1
            && last
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        || ["pass", "pwd", "secret", "key", "token", "cred", "auth"]
            .iter()
            .any(|w| lower.contains(w))
}
