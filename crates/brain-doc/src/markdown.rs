//! Splitting and rendering markdown with YAML frontmatter.

use serde_json::{Map, Value};

use crate::DocError;

/// A heading's anchor, GitHub's way: lower case, letters, digits, `-` and `_` kept, spaces to
/// `-`, the rest dropped; at most 80 characters.
pub fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if c.is_whitespace() {
            out.push('-');
        }
        if out.chars().count() >= 80 {
            break;
        }
    }
    out
}

/// The anchor of a heading's text: the `{#id}` it ends with (the attribute form doc2md writes
/// when a page's id is not the heading's slug), else its [`slug`].
pub fn anchor(heading: &str) -> String {
    let h = heading.trim();
    if let Some(rest) = h.strip_suffix('}')
        && let Some((_, id)) = rest.rsplit_once("{#")
        && !id.is_empty()
        && !id.contains(char::is_whitespace)
    {
        return id.to_string();
    }
    slug(h)
}

/// Render `frontmatter` as YAML between `---` lines, then `body` verbatim.
pub fn render(frontmatter: &Map<String, Value>, body: &str) -> String {
    let yaml = serde_norway::to_string(frontmatter).unwrap_or_default();
    let mut out = String::with_capacity(yaml.len() + body.len() + 8);
    out.push_str("---\n");
    out.push_str(&yaml);
    if !yaml.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

/// A record's markdown: `frontmatter` as YAML, then `body` and a newline; and the line the body
/// starts on. Fields that do not write as YAML are an error, not an empty frontmatter.
pub fn record(frontmatter: &Map<String, Value>, body: &str) -> Result<(String, u64), String> {
    let yaml = serde_norway::to_string(frontmatter)
        .map_err(|e| format!("the fields do not write as YAML: {e}"))?;
    let head = format!("---\n{yaml}---\n");
    let line = head.matches('\n').count() as u64 + 1;
    Ok((format!("{head}{body}\n"), line))
}

/// Split a markdown text into its frontmatter mapping (if it starts with `---`) and the body.
///
/// A text without frontmatter yields `(None, text)`. A text that opens a frontmatter but never closes it,
/// or whose frontmatter is not a YAML mapping, is an error.
pub fn split(text: &str) -> Result<(Option<Map<String, Value>>, &str), DocError> {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((None, text));
    };
    let (yaml, body) = find_close(rest).ok_or(DocError::UnclosedFrontmatter)?;
    if yaml.trim().is_empty() {
        return Ok((Some(Map::new()), body));
    }
    crate::yaml::check_nesting(yaml).map_err(|reason| DocError::Field {
        field: "frontmatter",
        reason,
    })?;
    let value: Value = serde_norway::from_str(yaml)?;
    match value {
        Value::Object(map) => Ok((Some(map), body)),
        Value::Null => Ok((Some(Map::new()), body)),
        _ => Err(DocError::NotAMapping),
    }
}

/// Find the closing `---` line; return (yaml, body after the closing line).
fn find_close(rest: &str) -> Option<(&str, &str)> {
    if let Some(after) = rest.strip_prefix("---\n") {
        return Some(("", after));
    }
    if rest == "---" {
        return Some(("", ""));
    }
    let mut from = 0;
    while let Some(pos) = memchr::memmem::find(&rest.as_bytes()[from..], b"\n---") {
        let at = from + pos;
        let after = &rest[at + 4..];
        if after.is_empty() {
            return Some((&rest[..at + 1], ""));
        }
        if let Some(body) = after.strip_prefix('\n') {
            return Some((&rest[..at + 1], body));
        }
        if let Some(body) = after.strip_prefix("\r\n") {
            return Some((&rest[..at + 1], body));
        }
        from = at + 4;
    }
    None
}

/// Line number (1-based) in the whole file at which the body starts.
pub fn body_start_line(text: &str, body: &str) -> u64 {
    let offset = text.len().saturating_sub(body.len());
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_slugs_or_the_id_a_heading_gives() {
        assert_eq!(slug("Keys & values"), "keys--values");
        assert_eq!(slug("  Page 3 "), "page-3");
        assert_eq!(anchor("Page 3"), "page-3");
        assert_eq!(anchor("TTLs & stampedes {#ttl}"), "ttl");
        assert_eq!(anchor("Braces {# not an id}"), "braces--not-an-id");
        assert_eq!(slug(&"x".repeat(200)).len(), 80);
    }

    #[test]
    fn text_without_frontmatter_is_all_body() {
        let (fm, body) = split("# Title\ntext\n").expect("split");
        assert!(fm.is_none());
        assert_eq!(body, "# Title\ntext\n");
    }

    #[test]
    fn yaml_strings_that_look_like_other_types_stay_strings() {
        let (fm, body) = split("---\na: 'no'\nb: '[x, y]'\nc: 3\n---\nbody\n").expect("split");
        let fm = fm.expect("frontmatter");
        assert_eq!(fm["a"], "no");
        assert_eq!(fm["b"], "[x, y]");
        assert_eq!(fm["c"], 3);
        assert_eq!(body, "body\n");
    }

    #[test]
    fn dashes_inside_a_value_do_not_close_the_frontmatter() {
        let (fm, body) = split("---\na: x---y\n---\n---\nbody\n").expect("split");
        assert_eq!(fm.expect("fm")["a"], "x---y");
        assert_eq!(body, "---\nbody\n");
    }

    #[test]
    fn unclosed_frontmatter_is_an_error() {
        assert!(matches!(
            split("---\na: 1\n"),
            Err(DocError::UnclosedFrontmatter)
        ));
    }

    #[test]
    fn yaml_errors_carry_a_position() {
        let err = split("---\na: [1, 2\n---\n").expect_err("bad yaml");
        assert!(err.to_string().contains("line"), "{err}");
    }

    #[test]
    fn body_start_line_counts_frontmatter_lines() {
        let text = "---\na: 1\n---\nbody\n";
        let (_, body) = split(text).expect("split");
        assert_eq!(body_start_line(text, body), 4);
    }
}
