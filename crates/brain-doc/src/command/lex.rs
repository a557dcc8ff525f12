//! A shell command line as words and operators, read the way a POSIX shell reads it for our one
//! purpose — finding the programs it runs: quotes and escapes resolved, `$(…)` and backticks kept
//! inside their word, redirections and their targets dropped, here-document bodies skipped,
//! comments ignored. Bounded: only the first [`MAX_BYTES`] of a command are read.

/// Most bytes of a command read (a pasted script past it says nothing more about what ran first).
pub const MAX_BYTES: usize = 16 * 1024;

/// Most words kept (a word flood is no command anyone typed).
const MAX_WORDS: usize = 4_096;

/// A piece of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Word(String),
    /// `|`, `||`, `&&`, `;`, `&`, a newline, `(`, `)`: where one simple command ends.
    Sep,
}

/// The words and separators of `line`.
pub fn lex(line: &str) -> Vec<Tok> {
    let mut end = line.len().min(MAX_BYTES);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let mut l = Lexer {
        chars: line[..end].chars().collect(),
        i: 0,
        out: Vec::new(),
        word: String::new(),
        in_word: false,
        drop_next: false,
        heredocs: Vec::new(),
        pending_heredoc: false,
    };
    l.run();
    l.out
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    out: Vec<Tok>,
    word: String,
    /// A word has begun (an empty quoted string is a word).
    in_word: bool,
    /// The next word is a redirection's target.
    drop_next: bool,
    /// Delimiters of here-documents whose bodies start after the next newline.
    heredocs: Vec<String>,
    /// The next word is a here-document's delimiter.
    pending_heredoc: bool,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn finish_word(&mut self) {
        if !self.in_word {
            return;
        }
        let w = std::mem::take(&mut self.word);
        self.in_word = false;
        if self.pending_heredoc {
            self.pending_heredoc = false;
            self.heredocs.push(w.trim_start_matches('-').to_string());
            return;
        }
        if self.drop_next {
            self.drop_next = false;
            return;
        }
        if self.out.len() < MAX_WORDS {
            self.out.push(Tok::Word(w));
        }
    }

    fn sep(&mut self) {
        self.finish_word();
        if !matches!(self.out.last(), Some(Tok::Sep) | None) {
            self.out.push(Tok::Sep);
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '\n' => {
                    self.sep();
                    self.i += 1;
                    self.skip_heredoc_bodies();
                }
                ' ' | '\t' | '\r' => {
                    self.finish_word();
                    self.i += 1;
                }
                '#' if !self.in_word => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '|' | ';' | '&' | '(' | ')' => {
                    // `&>` and `>&` are redirections, not separators.
                    if c == '&' && self.peek(1) == Some('>') {
                        self.redirect();
                        continue;
                    }
                    self.sep();
                    self.i += 1;
                    if matches!(self.peek(0), Some('|' | '&' | ';')) && c != '(' && c != ')' {
                        self.i += 1;
                    }
                }
                '<' | '>' => self.redirect(),
                '\'' => {
                    self.in_word = true;
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        self.i += 1;
                        if c == '\'' {
                            break;
                        }
                        self.word.push(c);
                    }
                }
                '"' => {
                    self.in_word = true;
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        self.i += 1;
                        match c {
                            '"' => break,
                            '\\' if matches!(self.peek(0), Some('"' | '\\' | '$' | '`')) => {
                                self.word.push(self.peek(0).unwrap_or('\\'));
                                self.i += 1;
                            }
                            '$' if self.peek(0) == Some('(') => self.substitution(),
                            _ => self.word.push(c),
                        }
                    }
                }
                '\\' => {
                    self.i += 1;
                    match self.peek(0) {
                        // A line continuation joins the lines.
                        Some('\n') => self.i += 1,
                        Some(c) => {
                            self.in_word = true;
                            self.word.push(c);
                            self.i += 1;
                        }
                        None => {}
                    }
                }
                '$' if self.peek(1) == Some('(') => {
                    self.in_word = true;
                    self.i += 1;
                    self.substitution();
                }
                '`' => {
                    self.in_word = true;
                    self.word.push('`');
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        self.i += 1;
                        self.word.push(c);
                        if c == '`' {
                            break;
                        }
                    }
                }
                _ => {
                    self.in_word = true;
                    self.word.push(c);
                    self.i += 1;
                }
            }
        }
        self.finish_word();
        if matches!(self.out.last(), Some(Tok::Sep)) {
            self.out.pop();
        }
    }

    /// `$(` … `)` into the current word, nested parentheses counted (at `(`).
    fn substitution(&mut self) {
        self.word.push('$');
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            self.word.push(c);
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }

    /// A redirection at `<`, `>` or `&>`: a file descriptor number before it is no word, the
    /// target after it is dropped (`2>&1` has none), `<<` opens a here-document.
    fn redirect(&mut self) {
        if self.in_word && self.word.chars().all(|c| c.is_ascii_digit()) {
            self.word.clear();
            self.in_word = false;
        } else {
            self.finish_word();
        }
        let first = self.peek(0);
        if first == Some('<') && self.peek(1) == Some('<') && self.peek(2) != Some('<') {
            self.i += 2;
            if self.peek(0) == Some('-') {
                self.i += 1;
            }
            self.pending_heredoc = true;
            return;
        }
        while matches!(self.peek(0), Some('<' | '>' | '&' | '|')) {
            self.i += 1;
        }
        // `>&2`, `2>&1`: the target is a descriptor, already consumed with its digits.
        if self.chars.get(self.i.wrapping_sub(1)) == Some(&'&')
            && self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-')
        {
            while self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-') {
                self.i += 1;
            }
            return;
        }
        self.drop_next = true;
    }

    /// After a newline: the bodies of the here-documents opened on the line before, each up to
    /// its delimiter line.
    fn skip_heredoc_bodies(&mut self) {
        for delim in std::mem::take(&mut self.heredocs) {
            loop {
                let start = self.i;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.chars[start..self.i].iter().collect();
                if self.peek(0).is_some() {
                    self.i += 1;
                }
                if line.trim() == delim || self.peek(0).is_none() {
                    break;
                }
            }
        }
    }
}

/// The simple commands of `line`: each its words, in order.
pub fn commands(line: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for t in lex(line) {
        match t {
            Tok::Word(w) => {
                if let Some(last) = out.last_mut() {
                    last.push(w);
                }
            }
            Tok::Sep => out.push(Vec::new()),
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::commands;

    fn words(line: &str) -> Vec<String> {
        commands(line).into_iter().map(|c| c.join(" ")).collect()
    }

    #[test]
    fn quotes_operators_redirections_and_heredocs() {
        assert_eq!(
            words("cd /w && uv run pytest -m \"not (tui or browser)\" 2>&1 | head -5"),
            ["cd /w", "uv run pytest -m not (tui or browser)", "head -5"]
        );
        assert_eq!(
            words("claude --help 2>/dev/null | grep -A5 'x|y' || true"),
            ["claude --help", "grep -A5 x|y", "true"]
        );
        assert_eq!(
            words("git commit -m \"$(cat <<'EOF'\nmsg; rm -rf /\nEOF\n)\" && git push"),
            [
                "git commit -m $(cat <<'EOF'\nmsg; rm -rf /\nEOF\n)",
                "git push"
            ]
        );
        assert_eq!(
            words("cat <<EOF > out.txt\nline one\nrm everything\nEOF\nmake build"),
            ["cat", "make build"]
        );
        assert_eq!(
            words("(source .venv/bin/activate && pytest -x) # run"),
            ["source .venv/bin/activate", "pytest -x"]
        );
        assert_eq!(words("a \\\n b &> log; c >>x d"), ["a b", "c d"]);
        assert_eq!(words("echo ''"), ["echo "]);
        assert!(words("").is_empty());
        // Unclosed quotes and parentheses end with the line.
        assert_eq!(words("echo \"abc"), ["echo abc"]);
        assert_eq!(words("x $(y"), ["x $(y"]);
    }

    #[test]
    fn bounded() {
        let long = "a ".repeat(1_000_000);
        assert!(commands(&long)[0].len() <= 4_096);
    }
}
