//! Writing a store generation: rows are streamed to `g<N>.*` files, then [`Writer::commit`] syncs them
//! and swaps the manifest atomically (see [`crate::store`] for the layout).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::VecError;
use crate::embed::Fingerprint;
use crate::scan::quantize;
use crate::store::{ChunkRec, DocEntry, Manifest, Rate, day_number, file, q8_rows_bytes};
use crate::texts::{TextWriter, Written};

/// Builds the next generation; nothing is visible until [`Writer::commit`].
pub struct Writer {
    dir: PathBuf,
    generation: u64,
    fingerprint: Fingerprint,
    chunks: BufWriter<std::fs::File>,
    text: TextWriter<BufWriter<std::fs::File>>,
    q8: BufWriter<std::fs::File>,
    /// Per row: int8 scale and error bound, appended to `q8` at commit.
    q8_params: Vec<[f32; 2]>,
    q8_row: Vec<i8>,
    rows: u64,
    docs: Vec<DocEntry>,
    rate: Option<Rate>,
}

impl Writer {
    /// Start generation `previous + 1` in `dir`, removing leftovers of unfinished generations.
    pub fn create(
        dir: &Path,
        previous: Option<u64>,
        fingerprint: Fingerprint,
    ) -> Result<Writer, VecError> {
        std::fs::create_dir_all(dir).map_err(VecError::io(dir))?;
        let generation = previous.map_or(1, |g| g + 1);
        let keep = previous.map(|g| format!("g{g}."));
        for e in std::fs::read_dir(dir).map_err(VecError::io(dir))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('g') && keep.as_ref().is_none_or(|k| !name.starts_with(k.as_str()))
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
        let create = |ext: &str| -> Result<BufWriter<std::fs::File>, VecError> {
            let p = file(dir, generation, ext);
            Ok(BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(&p).map_err(VecError::io(&p))?,
            ))
        };
        Ok(Writer {
            dir: dir.to_path_buf(),
            generation,
            chunks: create("chunks")?,
            text: TextWriter::new(create("text")?),
            q8: create("q8")?,
            q8_params: Vec::new(),
            rate: None,
            q8_row: Vec::new(),
            fingerprint,
            rows: 0,
            docs: Vec::new(),
        })
    }

    /// Append a document with its rows: (body line, text, unit vector) each.
    pub fn push(
        &mut self,
        mut entry: DocEntry,
        rows: &[(u64, &str, &[f32])],
    ) -> Result<(), VecError> {
        let doc = self.docs.len() as u32;
        let day = day_number(&entry.date);
        entry.first = self.rows;
        entry.count = rows.len() as u64;
        let (dir, generation) = (self.dir.clone(), self.generation);
        let io = move |ext: &str| VecError::io(file(&dir, generation, ext));
        for (line, text, v) in rows {
            if v.len() != self.fingerprint.dims {
                return Err(VecError::Inference(format!(
                    "vector of {} dims, store has {}",
                    v.len(),
                    self.fingerprint.dims
                )));
            }
            // The int8 row is the vector (schema 3), its scale set so that it keeps the length of
            // `v` (a unit vector stays one: cosines stay ≤ 1); its bound to itself is 0. A row
            // with a non-finite value keeps ∞ (always rescored).
            self.q8_row.clear();
            let [scale, bound] = quantize(v, &mut self.q8_row);
            let norm = |xs: &mut dyn Iterator<Item = f64>| xs.map(|x| x * x).sum::<f64>().sqrt();
            let (vn, qn) = (
                norm(&mut v.iter().map(|&x| f64::from(x))),
                norm(&mut self.q8_row.iter().map(|&x| f64::from(x))),
            );
            let kept = (vn / qn) as f32;
            self.q8_params.push(if !bound.is_finite() {
                [scale, bound]
            } else if qn > 0.0 && kept.is_finite() {
                [kept, 0.0]
            } else {
                [scale, 0.0]
            });
            self.q8
                .write_all(bytemuck::cast_slice(&self.q8_row))
                .map_err(io("q8"))?;
            let text_off = self.text.push(text.as_bytes()).map_err(io("text"))?;
            let rec = ChunkRec {
                doc,
                line: *line as u32,
                day,
                text_len: text.len() as u32,
                text_off,
            };
            self.chunks
                .write_all(&rec.to_bytes())
                .map_err(io("chunks"))?;
            self.rows += 1;
        }
        self.docs.push(entry);
        Ok(())
    }

    /// Record the embedding rate in the manifest this generation commits.
    pub fn set_rate(&mut self, rate: Option<Rate>) {
        self.rate = rate;
    }

    /// Flush, sync, write the docs table and swap the manifest; then remove the previous generation.
    pub fn commit(mut self) -> Result<Manifest, VecError> {
        let (dir, g) = (self.dir.clone(), self.generation);
        let dims = self.fingerprint.dims;
        let pad = q8_rows_bytes(self.rows as usize, dims) - self.rows as usize * dims;
        let mut q8_tail = || -> std::io::Result<()> {
            self.q8.write_all(&[0u8; 4][..pad])?;
            for p in &self.q8_params {
                for x in p {
                    self.q8.write_all(&x.to_le_bytes())?;
                }
            }
            Ok(())
        };
        q8_tail().map_err(VecError::io(file(&dir, g, "q8")))?;
        let Written { out, index, dict } = self
            .text
            .finish()
            .map_err(VecError::io(file(&dir, g, "text")))?;
        for (ext, bytes) in [("tblk", &index), ("tdict", &dict)] {
            let path = file(&dir, g, ext);
            brain_doc::atomic::write(&path, bytes).map_err(VecError::io(&path))?;
        }
        for (w, ext) in [(self.chunks, "chunks"), (out, "text"), (self.q8, "q8")] {
            let f = w
                .into_inner()
                .map_err(|e| VecError::io(file(&dir, g, ext))(e.into_error()))?;
            f.sync_all().map_err(VecError::io(file(&dir, g, ext)))?;
        }
        let docs = crate::docs::encode(&self.docs);
        let dpath = file(&dir, g, "docs");
        brain_doc::atomic::write(&dpath, &docs).map_err(VecError::io(&dpath))?;
        let ipath = file(&dir, g, "ids");
        brain_doc::atomic::write(&ipath, &crate::docs::encode_ids(&self.docs))
            .map_err(VecError::io(&ipath))?;
        let manifest = Manifest {
            schema: crate::store::SCHEMA,
            generation: g,
            fingerprint: self.fingerprint,
            chunks: self.rows,
            docs: self.docs.len() as u64,
            int8: true,
            rate: self.rate,
        };
        let mpath = dir.join("manifest.json");
        let text =
            serde_json::to_vec_pretty(&manifest).map_err(|e| VecError::Inference(e.to_string()))?;
        brain_doc::atomic::write(&mpath, &text).map_err(VecError::io(&mpath))?;
        let current = format!("g{g}.");
        for e in std::fs::read_dir(&dir)
            .map_err(VecError::io(&dir))?
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('g') && !name.starts_with(&current) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        Ok(manifest)
    }
}
