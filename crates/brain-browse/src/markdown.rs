//! Markdown as HTML that cannot run anything: CommonMark (with tables, strikethrough and task
//! lists) by pulldown-cmark, where every raw HTML block or inline tag of the source is shown as
//! text, every link destination goes through [`crate::url::safe_href`], and images become links
//! (the page loads nothing from elsewhere: offline, and no tracking pixel in a pasted page).
//! The page's Content-Security-Policy forbids scripts besides; this is the first line.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// `text` (a document body) as safe HTML.
pub fn to_html(text: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, opts).map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        // A link keeps its text and loses an unsafe destination; an image becomes such a link.
        Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            },
        ) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// One line of text (a message that names a command in backticks) as safe inline HTML: the
/// same rendering, without the paragraph around it.
pub fn inline(text: &str) -> String {
    let html = to_html(text);
    let trimmed = html.trim_end();
    trimmed
        .strip_prefix("<p>")
        .and_then(|h| h.strip_suffix("</p>"))
        .unwrap_or(trimmed)
        .to_string()
}

fn safe(dest: CowStr<'_>) -> CowStr<'_> {
    match crate::url::safe_href(&dest) {
        "#" => CowStr::Borrowed("#"),
        _ => dest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_line_shows_its_commands_as_code_and_runs_nothing() {
        assert_eq!(
            inline("nothing is indexed yet: run `lexindex --all`"),
            "nothing is indexed yet: run <code>lexindex --all</code>"
        );
        let html = inline("brain.yaml: <script>alert(1)</script> `<b>`");
        assert!(!html.contains("<script") && !html.contains("<b>"), "{html}");
    }

    #[test]
    fn nothing_in_a_document_becomes_markup_that_runs() {
        let html = to_html(
            "# T\n\n<script>alert(1)</script>\n\ntext <img src=x onerror=alert(2)> and \
             [x](javascript:alert(3)) ![i](https://evil.example/p.png) [ok](https://a.org)\n\n\
             ```html\n<script>alert(4)</script>\n```\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(2)&gt;"),
            "{html}"
        );
        assert!(html.contains(r#"<a href="https://a.org">ok</a>"#), "{html}");
        assert!(
            html.contains(r#"<a href="https://evil.example/p.png">i</a>"#),
            "{html}"
        );
        assert!(
            html.contains("<pre><code class=\"language-html\">"),
            "{html}"
        );
    }
}
