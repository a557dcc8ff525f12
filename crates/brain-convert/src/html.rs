//! A saved web page → its readable text, title, address and date.
//!
//! html5ever's tokenizer, not its tree builder: tokens stream through one pass and nothing nests,
//! so a page of 100,000 nested tags costs what 100,000 flat ones do and cannot overflow a stack.
//! Scripts, styles, navigation, footers, asides, forms and hidden elements are left out; headings
//! start sections (anchored by their `id`, else their slug); lists, tables and `<pre>` keep their
//! shape in markdown.

use std::cell::RefCell;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use crate::Converted;
use crate::sections::Sections;

/// Elements whose content is not the page's text.
const SKIPPED: [&str; 15] = [
    "script", "style", "noscript", "template", "svg", "nav", "footer", "aside", "form", "button",
    "select", "iframe", "object", "canvas", "textarea",
];

/// Elements that never have content (no end tag to wait for).
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements that end the line of text before them.
const BLOCKS: [&str; 24] = [
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "blockquote",
    "dl",
    "dt",
    "dd",
    "figure",
    "figcaption",
    "address",
    "hr",
    "body",
    "html",
    "caption",
    "details",
    "summary",
];

/// Classes and ids of the parts of a page around its text: tables of contents, navigation bars,
/// sidebars, breadcrumbs, site headers and footers (DocBook's, Sphinx's and the usual names).
const AROUND_TEXT: [&str; 16] = [
    "toc",
    "navheader",
    "navfooter",
    "sidebar",
    "sphinxsidebar",
    "related",
    "breadcrumb",
    "breadcrumbs",
    "navbar",
    "nav",
    "menu",
    "footer",
    "site-footer",
    "site-header",
    "cookie-banner",
    "skip-link",
];

/// Open skipped elements deeper than this are not tracked (their content is read): a page of
/// 100,000 unclosed `<nav>`s keeps a bounded stack.
const MAX_SKIP_DEPTH: usize = 256;

/// `<meta>` names and properties that give a page's date, most specific first.
const DATE_META: [&str; 8] = [
    "article:published_time",
    "datepublished",
    "date",
    "dc.date",
    "dc.date.issued",
    "dcterms.created",
    "pubdate",
    "article:modified_time",
];

/// Read the page in `bytes`.
pub fn read(bytes: &[u8]) -> Converted {
    let (text, encoding) = crate::decode::text(bytes, declared_charset(bytes).as_deref());
    let sink = Sink::default();
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(text.as_str()));
    let tok = Tokenizer::new(sink, TokenizerOpts::default());
    while let TokenizerResult::Script(()) = tok.feed(&input) {}
    tok.end();
    let mut page = tok.sink.state.into_inner();
    page.flush();
    let meta = page.meta;
    Converted {
        title: meta.title.filter(|t| !t.is_empty()),
        date: meta.date.map(|(_, d)| d),
        url: meta.saved_from.or(meta.canonical).or(meta.og_url),
        author: meta.author,
        encoding,
        sections: page.sections.finish(),
        ..Converted::default()
    }
}

/// The charset a page declares in its first 1,024 bytes (`<meta charset=…>` or the
/// `http-equiv` form), as the HTML standard's prescan looks for it.
fn declared_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(1024)];
    let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
    let at = lower.find("charset=")? + "charset=".len();
    let value: String = lower[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    (!value.is_empty()).then_some(value)
}

#[derive(Default)]
struct Sink {
    state: RefCell<Page>,
}

#[derive(Default)]
struct Meta {
    title: Option<String>,
    /// (rank in DATE_META, value)
    date: Option<(usize, String)>,
    saved_from: Option<String>,
    canonical: Option<String>,
    og_url: Option<String>,
    author: Option<String>,
}

#[derive(Default)]
struct Page {
    meta: Meta,
    sections: Sections,
    /// The line being read.
    line: String,
    /// What starts the line (`- ` in a list item, `> ` in a quote).
    prefix: &'static str,
    /// Open skipped elements, innermost last.
    skipping: Vec<String>,
    title: Option<String>,
    heading: Option<(u8, Option<String>, String)>,
    pre: Option<String>,
    quote: u32,
    /// Open tables; the outermost one's rows and cells (a table in a cell is text of its cell).
    tables: u32,
    rows: Vec<Vec<String>>,
    cell: Option<String>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut page = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => return page.tag(&tag),
            Token::CharacterTokens(t) => page.chars(&t),
            Token::CommentToken(c) => page.comment(&c),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

impl Page {
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        let raw = match name {
            "script" => Some(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
            "title" | "textarea" => Some(RawKind::Rcdata),
            _ => None,
        };
        if !start {
            self.end_tag(name);
            return TokenSinkResult::Continue;
        }
        if name == "title" && self.skipping.is_empty() {
            self.title = Some(String::new());
        } else if name == "meta" {
            self.meta_tag(tag);
        } else if name == "link" {
            self.link_tag(tag);
        }
        let hidden = tag.attrs.iter().any(|a| {
            let (k, v): (&str, &str) = (&a.name.local, &a.value);
            k == "hidden"
                || (k == "aria-hidden" && v.eq_ignore_ascii_case("true"))
                || (k == "role" && v.eq_ignore_ascii_case("navigation"))
                || ((k == "class" || k == "id")
                    && v.split_ascii_whitespace()
                        .any(|c| AROUND_TEXT.iter().any(|a| c.eq_ignore_ascii_case(a))))
        });
        let void = VOID.contains(&name) || tag.self_closing;
        if (SKIPPED.contains(&name) || hidden) && !void {
            if self.skipping.len() < MAX_SKIP_DEPTH {
                self.skipping.push(name.to_string());
            }
        } else if self.skipping.is_empty() {
            self.start_tag(name, tag);
        }
        match raw {
            Some(kind) if !tag.self_closing => TokenSinkResult::RawData(kind),
            _ => TokenSinkResult::Continue,
        }
    }

    fn start_tag(&mut self, name: &str, tag: &Tag) {
        if let Some(level) = heading_level(name) {
            self.flush();
            let id = tag
                .attrs
                .iter()
                .find(|a| &*a.name.local == "id")
                .map(|a| a.value.to_string())
                .filter(|v| !v.trim().is_empty());
            self.heading = Some((level, id, String::new()));
            return;
        }
        match name {
            "br" => {
                if let Some(pre) = &mut self.pre {
                    pre.push('\n');
                } else {
                    self.flush();
                }
            }
            "pre" => {
                self.flush();
                self.pre = Some(String::new());
            }
            "li" => {
                self.flush();
                self.prefix = "- ";
            }
            "blockquote" => {
                self.flush();
                self.quote += 1;
            }
            "table" => {
                self.flush();
                self.tables += 1;
            }
            "tr" if self.tables == 1 => self.rows.push(Vec::new()),
            "td" | "th" if self.tables == 1 => self.cell = Some(String::new()),
            _ if BLOCKS.contains(&name) => self.flush(),
            _ => {}
        }
    }

    fn end_tag(&mut self, name: &str) {
        if let Some(i) = self.skipping.iter().rposition(|s| s == name) {
            self.skipping.truncate(i);
            return;
        }
        if !self.skipping.is_empty() {
            return;
        }
        if name == "title" {
            if let Some(t) = self.title.take()
                && self.meta.title.is_none()
            {
                self.meta.title = Some(crate::squash(&t));
            }
            return;
        }
        if heading_level(name).is_some() {
            if let Some((level, id, text)) = self.heading.take() {
                self.sections.heading(level, id, &text);
            }
            return;
        }
        match name {
            "pre" => {
                if let Some(pre) = self.pre.take() {
                    let code = pre.trim_matches('\n');
                    if !code.trim().is_empty() {
                        let fence = fence_for(code);
                        self.sections.block(&format!("{fence}\n{code}\n{fence}"));
                    }
                }
            }
            "blockquote" => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            "td" | "th" if self.tables == 1 => {
                if let Some(cell) = self.cell.take() {
                    let cell = crate::squash(&cell);
                    match self.rows.last_mut() {
                        Some(row) => row.push(cell),
                        None => self.rows.push(vec![cell]),
                    }
                }
            }
            "table" if self.tables > 0 => {
                self.tables -= 1;
                if self.tables == 0
                    && let Some(t) = crate::sections::table(&std::mem::take(&mut self.rows))
                {
                    self.sections.block(&t);
                }
            }
            _ if BLOCKS.contains(&name) => self.flush(),
            _ => {}
        }
    }

    fn chars(&mut self, text: &str) {
        if let Some(t) = &mut self.title {
            t.push_str(text);
            return;
        }
        if !self.skipping.is_empty() {
            return;
        }
        if let Some((_, _, h)) = &mut self.heading {
            h.push_str(text);
        } else if let Some(cell) = &mut self.cell {
            cell.push_str(text);
        } else if let Some(pre) = &mut self.pre {
            pre.push_str(text);
        } else {
            self.line.push_str(text);
        }
    }

    fn comment(&mut self, text: &str) {
        // What a browser's "Save page as" writes: `<!-- saved from url=(0043)https://… -->`.
        if let Some(at) = text.find("saved from url=") {
            let rest = &text[at + "saved from url=".len()..];
            let rest = rest.split_once(')').map_or(rest, |(_, r)| r);
            let url = rest.split_whitespace().next().unwrap_or_default();
            if url.starts_with("http") && self.meta.saved_from.is_none() {
                self.meta.saved_from = Some(url.to_string());
            }
        }
    }

    fn meta_tag(&mut self, tag: &Tag) {
        let attr = |k: &str| {
            tag.attrs
                .iter()
                .find(|a| &*a.name.local == k)
                .map(|a| a.value.trim().to_string())
        };
        let Some(content) = attr("content").filter(|c| !c.is_empty()) else {
            return;
        };
        let key = attr("property")
            .or_else(|| attr("name"))
            .or_else(|| attr("itemprop"))
            .unwrap_or_default()
            .to_ascii_lowercase();
        if let Some(rank) = DATE_META.iter().position(|k| *k == key)
            && self.meta.date.as_ref().is_none_or(|(r, _)| rank < *r)
        {
            self.meta.date = Some((rank, content));
        } else if key == "og:url" {
            self.meta.og_url.get_or_insert(content);
        } else if key == "author" || key == "article:author" {
            self.meta.author.get_or_insert(content);
        } else if key == "og:title" && self.meta.title.is_none() {
            self.meta.title = Some(content);
        }
    }

    fn link_tag(&mut self, tag: &Tag) {
        let rel = tag.attrs.iter().find(|a| &*a.name.local == "rel");
        let href = tag.attrs.iter().find(|a| &*a.name.local == "href");
        if let (Some(rel), Some(href)) = (rel, href)
            && rel.value.eq_ignore_ascii_case("canonical")
            && href.value.starts_with("http")
        {
            self.meta.canonical.get_or_insert(href.value.to_string());
        }
    }

    /// End the line being read: a paragraph of its own.
    fn flush(&mut self) {
        let line = crate::squash(&self.line);
        self.line.clear();
        if !line.is_empty() {
            let quote = "> ".repeat(self.quote.min(8) as usize);
            let block = format!("{quote}{}{line}", self.prefix);
            self.sections.block(&block);
        }
        self.prefix = "";
    }
}

fn heading_level(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// A code fence longer than any run of backticks in `code`.
fn fence_for(code: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_text_headings_and_the_page_facts() {
        let page = br#"<!DOCTYPE html>
<!-- saved from url=(0031)https://example.org/post/42 -->
<html><head><meta charset="utf-8"><title>A  post
 title</title>
<meta property="article:published_time" content="2024-05-01T10:00:00Z">
<meta name="author" content="Ada">
<script>var x = "<p>not text</p>";</script><style>p { color: red }</style></head>
<body><nav><a href="/">Home</a> <a href="/a">About</a></nav>
<h1 id="top">Why  caches fail</h1><p>First <b>bold</b> line.</p>
<ul><li>one</li><li>two</li></ul>
<h2>Keys &amp; values</h2><pre>let x = 1;
  indented</pre>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<div hidden>secret menu</div><div class="toc x">1. Why</div><footer>(c) site</footer></body></html>"#;
        let c = read(page);
        assert_eq!(c.title.as_deref(), Some("A post title"));
        assert_eq!(c.url.as_deref(), Some("https://example.org/post/42"));
        assert_eq!(c.date.as_deref(), Some("2024-05-01T10:00:00Z"));
        assert_eq!(c.author.as_deref(), Some("Ada"));
        let anchors: Vec<&str> = c.sections.iter().map(|s| s.anchor.as_str()).collect();
        assert_eq!(anchors, ["top", "keys--values"]);
        assert_eq!(c.sections[0].text, "First bold line.\n\n- one\n- two");
        assert_eq!(
            c.sections[1].text,
            "```\nlet x = 1;\n  indented\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |"
        );
        let all: String = c.sections.iter().map(|s| s.text.as_str()).collect();
        for hidden in ["not text", "color", "Home", "secret", "(c)", "1. Why"] {
            assert!(!all.contains(hidden), "{hidden} leaked into {all}");
        }
    }

    #[test]
    fn deep_nesting_and_unclosed_tags_are_linear_and_bounded() {
        let mut page = "<div>".repeat(100_000);
        page.push_str("deep text");
        page.push_str(&"<nav>".repeat(100_000));
        page.push_str("in nav");
        let c = read(page.as_bytes());
        let all: String = c.sections.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(all, "deep text");
    }

    #[test]
    fn a_declared_charset_and_a_canonical_link() {
        let page = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">\
<link rel=\"canonical\" href=\"https://example.org/c\"></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2</p></body></html>";
        let c = read(page);
        assert_eq!(c.encoding.as_deref(), Some("windows-1251"));
        assert_eq!(c.url.as_deref(), Some("https://example.org/c"));
        assert_eq!(c.sections[0].text, "Привет");
    }
}
