//! Bytes to text: a byte-order mark decides, else the label the document gives (an HTML page's
//! `<meta charset>`), else UTF-8 when the bytes are UTF-8, else Windows-1252 (what a Latin-1
//! file's bytes read as) — and the document says which when it was not UTF-8.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// `bytes` as text, and the encoding's name when it was not UTF-8. `label` is the charset the
/// document declares, if any; an unknown label is ignored. Never fails: bytes that do not decode
/// become U+FFFD.
pub(crate) fn text(bytes: &[u8], label: Option<&str>) -> (String, Option<String>) {
    if let Some((enc, bom)) = Encoding::for_bom(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom..]);
        return (text.into_owned(), name(enc));
    }
    let declared = label.and_then(|l| Encoding::for_label(l.trim().as_bytes()));
    let enc = match declared {
        // A page that says UTF-16 without a mark is ASCII-compatible bytes in practice (the
        // HTML standard's rule); one that says UTF-8 and is not falls back below.
        Some(e) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => UTF_8,
        Some(e) => e,
        None => UTF_8,
    };
    if enc == UTF_8 {
        if let Ok(s) = std::str::from_utf8(bytes) {
            return (s.to_string(), None);
        }
        let (text, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
        return (text.into_owned(), name(WINDOWS_1252));
    }
    let (text, _) = enc.decode_without_bom_handling(bytes);
    (text.into_owned(), name(enc))
}

fn name(enc: &'static Encoding) -> Option<String> {
    (enc != UTF_8).then(|| enc.name().to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_labels_and_the_latin_1_fallback() {
        assert_eq!(text("héllo".as_bytes(), None), ("héllo".into(), None));
        assert_eq!(
            text(b"\xef\xbb\xbfhi", None),
            ("hi".into(), None),
            "a UTF-8 mark is dropped"
        );
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("hé".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(text(&utf16, None), ("hé".into(), Some("utf-16le".into())));
        assert_eq!(
            text(b"caf\xe9", None),
            ("café".into(), Some("windows-1252".into()))
        );
        assert_eq!(
            text(b"\xcf\xf0\xe8", Some("windows-1251")),
            ("При".into(), Some("windows-1251".into()))
        );
        assert_eq!(
            text(b"plain", Some("no-such-charset")),
            ("plain".into(), None)
        );
    }
}
