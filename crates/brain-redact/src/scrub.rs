//! Scrubbing what is not a secret but must not reach the corpus either: `<private>…</private>`
//! spans and base64 blobs.

use std::sync::LazyLock;

use regex::Regex;

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
