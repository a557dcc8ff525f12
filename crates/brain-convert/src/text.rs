//! Plain text: decoded, its lines kept as they are, one section.

use crate::{Converted, Section};

/// `bytes` as one section of text.
pub(crate) fn read(bytes: &[u8]) -> Converted {
    let (text, encoding) = crate::decode::text(bytes, None);
    // NUL and other control bytes (a binary file named .txt) are not text to index.
    let text: String = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    Converted {
        encoding,
        sections: vec![Section {
            text: text.trim_end().to_string(),
            ..Section::default()
        }],
        ..Converted::default()
    }
}
