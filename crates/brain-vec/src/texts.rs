//! The chunk texts of a store generation, schema 4 (issue 55: uncompressed they were two thirds of
//! a store's bytes): LZ4 blocks of about [`TEXT_BLOCK`] bytes of text, each closed between two
//! chunks and compressed against one dictionary, the generation's first [`TEXT_DICT`] bytes of text.
//!
//! * `g<N>.text` — the blocks, one after the other;
//! * `g<N>.tblk` — per block, where its compressed bytes start in `g<N>.text` and where its texts
//!   start in the texts' concatenation (two little-endian u64), then the ends of both;
//! * `g<N>.tdict` — the dictionary, as it is.
//!
//! A row's text offset is in the concatenation, so a row is read by decompressing the one block
//! that holds it. Small blocks keep a snippet cheap (one block per hit); the dictionary gives them
//! the ratio of large ones: on a real Claude Code home's texts LZ4 made 2.00× of 16 KiB blocks
//! alone, 2.23× of 64 KiB blocks, and 2.28× of 16 KiB blocks with the dictionary (2.06×, 2.37×
//! and 2.55× on bench/gen_corpus.py's sessions; measured with the lz4 tool, 2026-11-29).

use std::io::Write;

/// Bytes of text a block holds before it is closed.
pub const TEXT_BLOCK: usize = 8 << 10;

/// Bytes of the dictionary: LZ4 looks back at most 64 KiB.
pub const TEXT_DICT: usize = 64 << 10;

/// Writes the texts of one generation (the writer's side of the format above).
pub(crate) struct TextWriter<W: Write> {
    out: W,
    /// Texts of the block being filled, and where they start in the concatenation.
    block: Vec<u8>,
    block_at: u64,
    /// Blocks filled before the dictionary was (its bytes are the first blocks' texts).
    waiting: Vec<(u64, Vec<u8>)>,
    dict: Option<Vec<u8>>,
    index: Vec<[u64; 2]>,
    stored: u64,
    /// The concatenation's length so far: the next text's offset.
    at: u64,
}

/// What [`TextWriter::finish`] leaves: the text file's writer, the block index and the dictionary.
pub(crate) struct Written<W> {
    pub out: W,
    pub index: Vec<u8>,
    pub dict: Vec<u8>,
}

impl<W: Write> TextWriter<W> {
    pub fn new(out: W) -> TextWriter<W> {
        TextWriter {
            out,
            block: Vec::new(),
            block_at: 0,
            waiting: Vec::new(),
            dict: None,
            index: Vec::new(),
            stored: 0,
            at: 0,
        }
    }

    /// Append one chunk's text; its offset in the concatenation.
    pub fn push(&mut self, text: &[u8]) -> std::io::Result<u64> {
        let offset = self.at;
        if self.block.is_empty() {
            self.block_at = offset;
        }
        self.block.extend_from_slice(text);
        self.at += text.len() as u64;
        if self.block.len() >= TEXT_BLOCK {
            self.close_block()?;
        }
        Ok(offset)
    }

    /// Close the block being filled: compressed once the dictionary is known, else kept for it.
    fn close_block(&mut self) -> std::io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        self.waiting
            .push((self.block_at, std::mem::take(&mut self.block)));
        if self.dict.is_none() {
            let held: usize = self.waiting.iter().map(|(_, b)| b.len()).sum();
            if held < TEXT_DICT {
                return Ok(());
            }
            self.dict = Some(self.first_texts());
        }
        self.write_waiting()
    }

    /// The first [`TEXT_DICT`] bytes of the texts held.
    fn first_texts(&self) -> Vec<u8> {
        let mut d: Vec<u8> = Vec::with_capacity(TEXT_DICT);
        for (_, b) in &self.waiting {
            let room = TEXT_DICT - d.len();
            d.extend_from_slice(&b[..b.len().min(room)]);
        }
        d
    }

    fn write_waiting(&mut self) -> std::io::Result<()> {
        let dict = self.dict.as_deref().unwrap_or(&[]);
        for (at, raw) in self.waiting.drain(..) {
            let packed = lz4_flex::block::compress_with_dict(&raw, dict);
            self.out.write_all(&packed)?;
            self.index.push([self.stored, at]);
            self.stored += packed.len() as u64;
        }
        Ok(())
    }

    /// Close the last block; the block index with its closing pair, and the dictionary.
    pub fn finish(mut self) -> std::io::Result<Written<W>> {
        self.close_block()?;
        if self.dict.is_none() {
            self.dict = Some(self.first_texts());
        }
        self.write_waiting()?;
        let mut index = Vec::with_capacity((self.index.len() + 1) * 16);
        for [stored, at] in self.index.iter().chain([&[self.stored, self.at]]) {
            index.extend_from_slice(&stored.to_le_bytes());
            index.extend_from_slice(&at.to_le_bytes());
        }
        Ok(Written {
            out: self.out,
            index,
            dict: self.dict.unwrap_or_default(),
        })
    }
}

/// Bytes the reader's side maps: the block index or the dictionary, as the store mapped them.
pub(crate) type Bytes = Box<dyn AsRef<[u8]> + Send + Sync>;

/// The block index and dictionary of a generation's texts (the reader's side), read in place: an
/// open checks only their sizes, the first pair and the last (a store of 100,000 documents has
/// 250,000 blocks, and a lexical ask peeks the store); every pair a read uses is checked when it
/// is used, so a damaged index gives no text, never a read out of bounds.
pub(crate) struct TextBlocks {
    /// `[compressed start, text start]` per block, then `[compressed end, text end]` (u64 LE).
    index: Bytes,
    dict: Bytes,
    /// The last block decompressed (rows are read a few at a time, mostly in order).
    last: std::sync::Mutex<Option<(usize, Vec<u8>)>>,
}

impl TextBlocks {
    /// Read from the block index `index` and dictionary `dict` of a text file of `stored` bytes.
    pub fn new(index: Bytes, dict: Bytes, stored: usize) -> Result<TextBlocks, String> {
        let (n, dict_len) = ((*index).as_ref().len(), (*dict).as_ref().len());
        let blocks = TextBlocks {
            index,
            dict,
            last: std::sync::Mutex::new(None),
        };
        let ends = blocks.pair(blocks.pairs().saturating_sub(1));
        if n % 16 != 0 || n == 0 || dict_len > TEXT_DICT {
            return Err(format!(
                "a block index of {n} bytes, a dictionary of {dict_len}"
            ));
        }
        if blocks.pair(0) != Some([0, 0]) || ends.map(|e| e[0]) != Some(stored as u64) {
            return Err(format!(
                "text blocks that do not cover the {stored} bytes of texts"
            ));
        }
        Ok(blocks)
    }

    /// Pairs in the index, the closing one included.
    fn pairs(&self) -> usize {
        (*self.index).as_ref().len() / 16
    }

    /// Pair `i` of the index.
    fn pair(&self, i: usize) -> Option<[u64; 2]> {
        let b = (*self.index)
            .as_ref()
            .get(i.checked_mul(16)?..i.checked_mul(16)? + 16)?;
        let le = |r: std::ops::Range<usize>| b.get(r)?.try_into().ok().map(u64::from_le_bytes);
        Some([le(0..8)?, le(8..16)?])
    }

    /// The block holding the text at offset `a` of the concatenation (the last block starting at
    /// or before it; the closing pair's index past the texts).
    pub fn block_of(&self, a: u64) -> usize {
        let (mut lo, mut hi) = (0, self.pairs());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.pair(mid).is_some_and(|p| p[1] <= a) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }

    /// Block `k`'s start and end pairs, when they rise in both streams.
    fn bounds(&self, k: usize) -> Option<([u64; 2], [u64; 2])> {
        let (start, end) = (self.pair(k)?, self.pair(k.checked_add(1)?)?);
        (start[0] < end[0] && start[1] < end[1]).then_some((start, end))
    }

    /// Block `k` of `stored` decompressed, with where its texts start in the concatenation
    /// (`None` past the last block, for pairs that do not rise, or for a block that does not
    /// decompress to its length).
    pub fn decompress(&self, stored: &[u8], k: usize) -> Option<(u64, Vec<u8>)> {
        let (start, end) = self.bounds(k)?;
        let packed = stored.get(usize::try_from(start[0]).ok()?..usize::try_from(end[0]).ok()?)?;
        let mut raw = vec![0u8; usize::try_from(end[1] - start[1]).ok()?];
        let dict = (*self.dict).as_ref();
        match lz4_flex::block::decompress_into_with_dict(packed, &mut raw, dict) {
            Ok(n) if n == raw.len() => Some((start[1], raw)),
            _ => None,
        }
    }

    /// The text at `a..b` of the concatenation, from `stored` (`None` where it is not one block's,
    /// or the block does not decompress to its length).
    pub fn read(&self, stored: &[u8], a: u64, b: u64) -> Option<String> {
        if a == b {
            return Some(String::new());
        }
        let k = self.block_of(a);
        let (start, end) = self.bounds(k)?;
        if a < start[1] || b > end[1] {
            return None;
        }
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if last.as_ref().is_none_or(|(n, _)| *n != k) {
            let (_, raw) = self.decompress(stored, k)?;
            *last = Some((k, raw));
        }
        let (_, raw) = last.as_ref()?;
        let at = |x: u64| usize::try_from(x - start[1]).ok();
        let text = raw.get(at(a)?..at(b)?)?;
        std::str::from_utf8(text).ok().map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| match i % 7 {
                0 => Vec::new(),
                3 => format!("long {i} ").repeat(TEXT_BLOCK / 4).into_bytes(),
                k => format!("chunk {i} of kind {k}: some words again ")
                    .repeat(k * 10)
                    .into_bytes(),
            })
            .collect()
    }

    #[test]
    fn texts_read_back_from_their_blocks() {
        for n in [0, 1, 3, 40, 400] {
            let want = texts(n);
            let mut w = TextWriter::new(Vec::new());
            let offsets: Vec<u64> = want.iter().map(|t| w.push(t).expect("push")).collect();
            let Written { out, index, dict } = w.finish().expect("finish");
            let blocks =
                TextBlocks::new(Box::new(index), Box::new(dict), out.len()).expect("blocks");
            for (i, t) in want.iter().enumerate().rev() {
                let (a, b) = (offsets[i], offsets[i] + t.len() as u64);
                let got = blocks.read(&out, a, b).expect("read");
                assert_eq!(got.as_bytes(), t.as_slice(), "text {i} of {n}");
            }
            let raw: usize = want.iter().map(Vec::len).sum();
            if raw > 4 * TEXT_DICT {
                assert!(out.len() * 3 < raw, "{} of {raw}", out.len());
            }
        }
    }

    #[test]
    fn a_text_past_its_block_or_the_end_is_none() {
        let mut w = TextWriter::new(Vec::new());
        let a = w.push(&vec![b'a'; TEXT_BLOCK]).expect("push");
        let b = w.push(b"bbbb").expect("push");
        let Written { out, index, dict } = w.finish().expect("finish");
        let blocks = TextBlocks::new(Box::new(index), Box::new(dict), out.len()).expect("blocks");
        assert!(blocks.read(&out, a, b + 4).is_none(), "across two blocks");
        assert!(blocks.read(&out, b + 4, b + 8).is_none(), "past the end");
        assert_eq!(blocks.read(&out, b, b + 4).as_deref(), Some("bbbb"));
    }
}
