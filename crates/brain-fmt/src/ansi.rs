//! A tiny ANSI writer: SGR colours and OSC 8 hyperlinks, each a no-op when disabled.

/// Paints text when enabled; otherwise returns it unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct Paint {
    pub color: bool,
    pub hyperlinks: bool,
}

impl Paint {
    fn sgr(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn bold(&self, s: &str) -> String {
        self.sgr("1", s)
    }
    pub fn dim(&self, s: &str) -> String {
        self.sgr("2", s)
    }
    pub fn cyan(&self, s: &str) -> String {
        self.sgr("36", s)
    }
    pub fn green(&self, s: &str) -> String {
        self.sgr("32", s)
    }
    pub fn yellow(&self, s: &str) -> String {
        self.sgr("33", s)
    }
    pub fn magenta(&self, s: &str) -> String {
        self.sgr("35", s)
    }

    /// `text` as an OSC 8 hyperlink to the local `file` (terminals that don't know OSC 8 show `text`).
    pub fn link(&self, file: Option<&str>, text: &str) -> String {
        match file {
            Some(f) if self.hyperlinks && f.starts_with('/') => {
                format!(
                    "\x1b]8;;file://{}\x1b\\{text}\x1b]8;;\x1b\\",
                    f.replace('%', "%25").replace(' ', "%20")
                )
            }
            _ => text.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_paint_is_identity() {
        let p = Paint::default();
        assert_eq!(p.bold("x"), "x");
        assert_eq!(p.link(Some("/a b"), "x"), "x");
    }

    #[test]
    fn enabled_paint_wraps() {
        let p = Paint {
            color: true,
            hyperlinks: true,
        };
        assert_eq!(p.bold("x"), "\x1b[1mx\x1b[0m");
        assert_eq!(
            p.link(Some("/a b.md"), "x"),
            "\x1b]8;;file:///a%20b.md\x1b\\x\x1b]8;;\x1b\\"
        );
        assert_eq!(
            p.link(Some("relative.md"), "x"),
            "x",
            "only absolute paths become links"
        );
    }
}
