//! Request targets: the path split into decoded segments (refusing what could climb out or hide a
//! separator), the query string into decoded pairs, and percent-encoding for the links the pages
//! write.

/// Why a request target was refused (400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTarget(pub String);

/// `%XX` decoded; `plus` also reads `+` as a space (query strings). `None` for a malformed escape
/// or bytes that are not UTF-8.
pub fn decode(s: &str, plus: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The path's segments, decoded. Refused: a `.` or `..` segment, an empty one inside the path, and
/// one whose decoding holds a `/`, a `\`, a NUL or another control character (an encoded separator
/// or a smuggled byte) — so a segment list always names a place below the route, and the
/// collection walk's own checks see plain names.
pub fn segments(path: &str) -> Result<Vec<String>, BadTarget> {
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    trimmed
        .split('/')
        .map(|raw| {
            let seg = decode(raw, false)
                .ok_or_else(|| BadTarget(format!("`{raw}` is not a well-formed path segment")))?;
            if seg.is_empty() || seg == "." || seg == ".." {
                return Err(BadTarget(format!(
                    "the path segment `{raw}` is not allowed"
                )));
            }
            if seg.chars().any(|c| c == '/' || c == '\\' || c.is_control()) {
                return Err(BadTarget(format!(
                    "the path segment `{raw}` hides a separator or a control character"
                )));
            }
            Ok(seg)
        })
        .collect()
}

/// The query string's pairs, decoded, in order (a malformed pair is dropped).
pub fn query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((decode(k, true)?, decode(v, true)?))
        })
        .collect()
}

/// The first value of `key` in `pairs`, trimmed; `None` when absent or empty.
pub fn param<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// Percent-encode everything but unreserved characters (RFC 3986 §2.3); `/` is kept when
/// `keep_slash` (a path of segments).
pub fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `path` with `pairs` as its query string (empty values left out).
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    let q: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", encode(k, false), encode(v, false)))
        .collect();
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

/// The page of a document: `/doc/<collection>/<path>`.
pub fn doc(id: &str) -> String {
    format!("/doc/{}", encode(id, true))
}

/// The turn-by-turn page of a session document: `/session/<collection>/<path>`.
pub fn session(id: &str) -> String {
    format!("/session/{}", encode(id, true))
}

/// The file itself as plain text: `/raw/<collection>/<path>`.
pub fn raw(id: &str) -> String {
    format!("/raw/{}", encode(id, true))
}

/// An entity's page: `/entity/<name>` (its id, which is unique).
pub fn entity(id: &str) -> String {
    format!("/entity/{}", encode(id, false))
}

/// A link destination that is safe to put in a page: `http`, `https` and `mailto` URLs, fragments
/// and relative references; anything else (`javascript:`, `data:`, `vbscript:`, `file:`, …,
/// however spelled) becomes `#`.
pub fn safe_href(dest: &str) -> &str {
    // Browsers strip leading and trailing C0 controls and spaces before parsing.
    let d = dest.trim_matches(|c: char| c <= ' ');
    // What a browser reads as the scheme: up to the first `:` before any `/`, `?` or `#`, with
    // tabs and newlines removed (the URL parser strips them).
    let cleaned: String = d
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let end = cleaned.find(['/', '?', '#']).unwrap_or(cleaned.len());
    match cleaned[..end].find(':') {
        None => dest,
        Some(i) => {
            let scheme = cleaned[..i].to_ascii_lowercase();
            if matches!(scheme.as_str(), "http" | "https" | "mailto") {
                dest
            } else {
                "#"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_never_climb_or_hide_a_separator() {
        assert_eq!(
            segments("/doc/notes/a%20b.md").expect("ok"),
            ["doc", "notes", "a b.md"]
        );
        for bad in [
            "/doc/notes/../x",
            "/doc/notes/%2e%2e/x",
            "/doc/notes/a%2Fb",
            "/doc/notes/a%5Cb",
            "/doc//x",
            "/doc/notes/%00",
            "/doc/notes/%zz",
            "/doc/notes/%C0%AF",
            "/doc/./x",
        ] {
            assert!(segments(bad).is_err(), "{bad}");
        }
        assert!(segments("/").expect("root").is_empty());
    }

    #[test]
    fn queries_decode_and_links_encode() {
        let q = query("q=cargo+test&mode=lex&x=%3Cscript%3E&bad=%zz");
        assert_eq!(param(&q, "q"), Some("cargo test"));
        assert_eq!(param(&q, "x"), Some("<script>"));
        assert_eq!(param(&q, "bad"), None);
        assert_eq!(
            with_query("/search", &[("q", "a&b c"), ("mode", "")]),
            "/search?q=a%26b%20c"
        );
        assert_eq!(doc("notes/a b/c.md"), "/doc/notes/a%20b/c.md");
    }

    #[test]
    fn only_web_and_mail_links_survive() {
        for ok in [
            "https://x.org/a",
            "http://x",
            "mailto:a@b",
            "#top",
            "notes/a.md",
            "/doc/x",
        ] {
            assert_eq!(safe_href(ok), ok);
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:alert(1)",
            "\u{1}javascript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<script>",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert_eq!(safe_href(bad), "#", "{bad}");
        }
    }
}
