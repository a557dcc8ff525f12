//! The one gate every YAML text passes before it is parsed (frontmatter, `brain.yaml`, the strategy
//! file, the URL policy): a bound on flow nesting. The parser refuses deep nesting by itself, but
//! only after scanning the whole flow collection: a 50,000-deep `[[[…` took 4–8 s to refuse
//! (issue 37). Block nesting (indentation) is refused by the parser at once and needs no gate.

/// The deepest flow nesting (`[`, `{`) a YAML text may have: far past any real file (a strategy
/// file nests 3 deep, frontmatter 2–4), far below the parser's own limit of 128.
pub const MAX_FLOW_DEPTH: usize = 64;

/// `Err(reason)` when `text` nests flow collections deeper than [`MAX_FLOW_DEPTH`]; linear in the
/// text, quotes and comments skipped.
pub fn check_nesting(text: &str) -> Result<(), String> {
    let (mut depth, mut line) = (0usize, 1usize);
    let mut chars = text.chars().peekable();
    let mut prev = '\n';
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '#' if prev.is_whitespace() => {
                // A comment, to the end of its line.
                for n in chars.by_ref() {
                    if n == '\n' {
                        line += 1;
                        break;
                    }
                }
                prev = '\n';
                continue;
            }
            '"' => {
                while let Some(n) = chars.next() {
                    match n {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => line += 1,
                        _ => {}
                    }
                }
            }
            '\'' if !prev.is_alphanumeric() => {
                while let Some(n) = chars.next() {
                    match n {
                        '\'' if chars.peek() == Some(&'\'') => {
                            chars.next();
                        }
                        '\'' => break,
                        '\n' => line += 1,
                        _ => {}
                    }
                }
            }
            '[' | '{' => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Err(format!(
                        "nested more than {MAX_FLOW_DEPTH} brackets deep at line {line}: not read"
                    ));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = c;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_flow_nesting_is_refused_at_once_and_real_yaml_passes() {
        let deep = format!("k: {}{}", "[".repeat(50_000), "]".repeat(50_000));
        let said = check_nesting(&deep).expect_err("too deep");
        assert!(said.contains("line 1"), "{said}");
        for ok in [
            "rrf:\n  k: 60\nweights: {lex: 1.0, vec: [0.5, 0.25]}\n",
            "title: \"[[[[[ a quoted [ title\"\ntags: ['it''s [', x]\n",
            "# a comment [[[[[[[[\nkey: value # and [[[[ here\n",
        ] {
            assert_eq!(check_nesting(ok), Ok(()), "{ok}");
        }
        let at_limit = format!("k: {}{}", "[".repeat(64), "]".repeat(64));
        assert_eq!(check_nesting(&at_limit), Ok(()));
        assert!(check_nesting(&format!("k: {}", "{".repeat(65))).is_err());
    }
}
