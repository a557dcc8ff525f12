//! The team index's mapping: the configset brain uploads (conf/schema.xml, conf/solrconfig.xml),
//! its version, and creating the index on an engine that lacks it.
//!
//! The schema's name *is* the mapping: `brain-<MAPPING_VERSION>-<dims>-<model>`. Vectors made by
//! two models never meet in one index: before every push and every vector query, brain reads the
//! index's schema name and refuses one made for another mapping or model (exit 65 with the fix).

use std::io::Write;

use crate::{Engine, TeamError};

/// Bumped when a field is added, removed or analyzed differently. 2: lexical passages and
/// chunks as records of their own (`unit`; 1 had chunks alone, searched by words too).
pub const MAPPING_VERSION: u32 = 2;

const SCHEMA: &str = include_str!("../conf/schema.xml");
const SOLRCONFIG: &str = include_str!("../conf/solrconfig.xml");

/// What an index is made for: the vector size and the model that makes its vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub dims: usize,
    pub model: String,
}

impl Mapping {
    /// The mapping of vectors made by `model_id` (`local:bge-small-en-v1.5`), `dims` long.
    pub fn new(model_id: &str, dims: usize) -> Mapping {
        Mapping {
            dims,
            model: model_id.to_string(),
        }
    }

    /// `brain-2-384-bge-small-en-v1.5`: the schema's and the configset's name.
    pub fn name(&self) -> String {
        let model = self.model.strip_prefix("local:").unwrap_or(&self.model);
        let slug: String = model
            .chars()
            .map(|c| c.to_ascii_lowercase())
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .take(80)
            .collect();
        format!("brain-{MAPPING_VERSION}-{}-{slug}", self.dims)
    }

    /// schema.xml with the name and the vector size filled in.
    pub fn schema(&self) -> String {
        SCHEMA
            .replace("@NAME@", &self.name())
            .replace("@DIMS@", &self.dims.to_string())
    }

    /// The configset as the engine's upload API takes it: a zip of solrconfig.xml and schema.xml.
    pub fn configset_zip(&self) -> Result<Vec<u8>, TeamError> {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let io = |e: std::io::Error| TeamError::Io {
            path: "configset.zip".into(),
            source: e,
        };
        for (name, text) in [
            ("solrconfig.xml", SOLRCONFIG.to_string()),
            ("schema.xml", self.schema()),
        ] {
            zip.start_file(name, opts)
                .map_err(|e| io(std::io::Error::other(e)))?;
            zip.write_all(text.as_bytes()).map_err(io)?;
        }
        zip.finish().map_err(|e| io(std::io::Error::other(e)))?;
        Ok(buf.into_inner())
    }
}

/// The schema name of `engine`'s index, or `None` when the engine has no such index.
pub fn read(engine: &Engine) -> Result<Option<String>, TeamError> {
    let list = engine.get("admin/collections", &[("action", "LIST")])?;
    let exists = list["collections"]
        .as_array()
        .is_some_and(|c| c.iter().any(|n| n.as_str() == Some(engine.index())));
    if !exists {
        return Ok(None);
    }
    let v = engine.get(&format!("{}/schema/name", engine.index()), &[])?;
    Ok(v["name"].as_str().map(str::to_string))
}

/// Refuse an index made for another mapping or model; `Ok(false)` when it does not exist.
pub fn check(engine: &Engine, mapping: &Mapping) -> Result<bool, TeamError> {
    match read(engine)? {
        None => Ok(false),
        Some(name) if name == mapping.name() => Ok(true),
        Some(name) => Err(TeamError::Mapping(format!(
            "the engine's index `{}` was made for `{}`, and this home's vectors are `{}`",
            engine.index(),
            name.chars().take(120).collect::<String>(),
            mapping.name()
        ))),
    }
}

/// Make sure the index exists with this mapping: upload the configset when the engine lacks it,
/// create the index with `shards` × `replicas`. `Ok(true)` when it was created by this call.
/// Two runs creating it at once both succeed (the second finds it made).
pub fn ensure(
    engine: &Engine,
    mapping: &Mapping,
    shards: u32,
    replicas: u32,
) -> Result<bool, TeamError> {
    if check(engine, mapping)? {
        return Ok(false);
    }
    let name = mapping.name();
    let sets = engine.get("admin/configs", &[("action", "LIST")])?;
    let uploaded = sets["configSets"]
        .as_array()
        .is_some_and(|c| c.iter().any(|n| n.as_str() == Some(name.as_str())));
    if !uploaded {
        let zip = mapping.configset_zip()?;
        match engine.post_bytes(
            "admin/configs",
            &[("action", "UPLOAD"), ("name", &name)],
            &zip,
        ) {
            Ok(_) => {}
            // Uploaded meanwhile by another run: the same bytes.
            Err(TeamError::Engine { detail, .. }) if detail.contains("already exists") => {}
            Err(e) => return Err(e),
        }
    }
    let (s, r) = (shards.to_string(), replicas.to_string());
    let created = engine.get(
        "admin/collections",
        &[
            ("action", "CREATE"),
            ("name", engine.index()),
            ("numShards", &s),
            ("replicationFactor", &r),
            ("collection.configName", &name),
            ("router.name", "compositeId"),
            ("waitForFinalState", "true"),
        ],
    );
    match created {
        Ok(_) => Ok(true),
        Err(TeamError::Engine { detail, .. }) if detail.contains("already exists") => {
            check(engine, mapping).map(|_| false)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_holds_version_size_and_model() {
        let m = Mapping::new("local:bge-small-en-v1.5", 384);
        assert_eq!(m.name(), "brain-2-384-bge-small-en-v1.5");
        assert!(m.schema().contains("vectorDimension=\"384\""));
        assert!(
            m.schema()
                .contains("name=\"brain-2-384-bge-small-en-v1.5\"")
        );
        let remote = Mapping::new("openai:http://h/x#Text Emb", 8).name();
        assert_eq!(remote, "brain-2-8-openai-http---h-x-text-emb");
        let zip = m.configset_zip().expect("test setup");
        assert_eq!(&zip[..2], b"PK");
    }
}
