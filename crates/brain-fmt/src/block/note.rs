//! A working-memory note as a block carries it (`brain wm`'s store is brain-context's): its text,
//! tags, turns left or pinned, a deadline, and the one line it is shown as.

use serde::{Deserialize, Serialize};

/// Hours before a deadline at which an item is `due soon`.
pub const DUE_SOON_HOURS: i64 = 24;

/// One note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub id: u32,
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default)]
    pub pinned: bool,
    /// Turns left (ignored while pinned).
    pub ttl: u8,
    /// RFC 3339.
    pub created: String,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<String>,
}

impl Note {
    /// `due soon` / `overdue` at `now` (Unix seconds), when it has a deadline that near.
    pub fn due(&self, now: i64) -> Option<&'static str> {
        let d = brain_doc::file::parse_date(self.deadline.as_deref()?)?;
        if d < now {
            Some("overdue")
        } else if d - now <= DUE_SOON_HOURS * 3600 {
            Some("due soon")
        } else {
            None
        }
    }

    /// The item as one line of a context block or a listing.
    pub fn line(&self, now: i64) -> String {
        let mut marks = Vec::new();
        if self.pinned {
            marks.push("pinned".to_string());
        } else {
            marks.push(format!(
                "{} turn{} left",
                self.ttl,
                if self.ttl == 1 { "" } else { "s" }
            ));
        }
        if let Some(d) = &self.deadline {
            let date = d.get(..10).unwrap_or(d);
            match self.due(now) {
                Some(mark) => marks.push(format!("{mark}: {date}")),
                None => marks.push(format!("due {date}")),
            }
        }
        if !self.tags.is_empty() {
            marks.push(
                self.tags
                    .iter()
                    .map(|t| format!("#{t}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        let text: String = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        format!("- [wm {}] {text} ({})", self.id, marks.join(", "))
    }
}
