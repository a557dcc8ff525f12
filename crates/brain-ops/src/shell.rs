//! The little shell quoting the installers need: commands written into settings.json, crontab lines and
//! unit files are single-quoted, and read back by the same rules.

/// `s` as one shell word in single quotes (`'` written as `'\''`).
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Split a command into words: single quotes, double quotes (with `\"`/`\\`) and backslash escapes.
/// Enough to read back what [`quote`] wrote and the usual hand edits; no expansions.
pub fn split(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// The `NAME=value` assignments leading a command, and the rest of its words.
pub fn assignments(words: &[String]) -> (Vec<(String, String)>, &[String]) {
    let mut env = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.split_once('=') {
            Some((k, v))
                if !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
            {
                env.push((k.to_string(), v.to_string()));
                i += 1;
            }
            _ => break,
        }
    }
    (env, &words[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_split_back() {
        let tricky = "/tmp/it's a \"dir\"/brain";
        let cmd = format!(
            "BRAIN_BIN={} {} --x",
            quote(tricky),
            quote("/a b/stop-hook.sh")
        );
        let words = split(&cmd);
        let (env, rest) = assignments(&words);
        assert_eq!(env, vec![("BRAIN_BIN".to_string(), tricky.to_string())]);
        assert_eq!(rest, ["/a b/stop-hook.sh", "--x"]);
        assert_eq!(split(r#"a "b \"c\"" d\ e"#), ["a", "b \"c\"", "d e"]);
    }
}
