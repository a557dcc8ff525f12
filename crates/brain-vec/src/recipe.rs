//! How a model turns token states into a text's vector, read from its sentence-transformers folder:
//! the pooling (`1_Pooling/config.json`) and the texts put before queries and passages
//! (`config_sentence_transformers.json`'s `prompts`). all-MiniLM-L6-v2 pools by the mean and uses no
//! prompt; bge-small-en-v1.5 takes the `[CLS]` state and asks queries to be prefixed with
//! "Represent this sentence for searching relevant passages: "; e5 models prefix "query: " and
//! "passage: ". A folder without these files is read as mean pooling without prompts (the
//! sentence-transformers default). What the files say is checked: an unknown pooling or an absurd
//! prompt refuses the folder, so no model ever yields silently wrong vectors.

use std::path::Path;

use serde::Deserialize;

/// Longest prompt accepted (bytes): instructions of real models are under 200.
pub const MAX_PROMPT: usize = 512;

/// How token states become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pooling {
    /// The mean over the input's tokens.
    #[default]
    Mean,
    /// The first token's (`[CLS]`) state.
    Cls,
}

/// A model's pooling and prompts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recipe {
    pub pooling: Pooling,
    /// Put before every query.
    pub query: String,
    /// Put before every passage (document chunk).
    pub passage: String,
}

#[derive(Deserialize)]
struct PoolingFile {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

#[derive(Deserialize, Default)]
struct StConfig {
    #[serde(default)]
    prompts: std::collections::BTreeMap<String, String>,
}

impl Recipe {
    /// The recipe of the model folder `dir`; `Err(reason)` names the file and what is wrong.
    pub fn read(dir: &Path) -> Result<Recipe, String> {
        let pooling = match read_json::<PoolingFile>(&dir.join("1_Pooling").join("config.json"))? {
            None => Pooling::Mean,
            Some(p) => {
                let others = p.pooling_mode_max_tokens
                    || p.pooling_mode_mean_sqrt_len_tokens
                    || p.pooling_mode_weightedmean_tokens
                    || p.pooling_mode_lasttoken;
                match (p.pooling_mode_cls_token, p.pooling_mode_mean_tokens, others) {
                    (true, false, false) => Pooling::Cls,
                    (false, true, false) => Pooling::Mean,
                    _ => {
                        return Err("1_Pooling/config.json: brain pools by the mean or the [CLS] token, exactly one of them".into());
                    }
                }
            }
        };
        let st = read_json::<StConfig>(&dir.join("config_sentence_transformers.json"))?
            .unwrap_or_default();
        let prompt = |names: &[&str]| -> Result<String, String> {
            let p = names
                .iter()
                .find_map(|n| st.prompts.get(*n))
                .cloned()
                .unwrap_or_default();
            if p.len() > MAX_PROMPT || p.chars().any(|c| c.is_control() && c != ' ') {
                return Err(format!(
                    "config_sentence_transformers.json: the {} prompt is not a short line of text",
                    names[0]
                ));
            }
            Ok(p)
        };
        Ok(Recipe {
            pooling,
            query: prompt(&["query"])?,
            passage: prompt(&["passage", "document"])?,
        })
    }

    /// What the fingerprint adds for this recipe: nothing for mean pooling without prompts (so the
    /// stores of models that use neither keep their fingerprint), else the pooling and a hash of the
    /// prompts.
    pub fn tag(&self) -> String {
        if *self == Recipe::default() {
            return String::new();
        }
        let pool = match self.pooling {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        };
        let h = brain_doc::sha256_hex(format!("{}\n{}", self.query, self.passage).as_bytes());
        format!(";{pool};prompts-{}", &h[..8])
    }
}

/// A JSON file of the folder: `None` when absent, `Err` when unreadable or malformed.
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, String> {
    let name = path
        .strip_prefix(
            path.parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("")),
        )
        .unwrap_or(path)
        .display()
        .to_string();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{name}: {e}")),
        Ok(m) if m.len() > 1 << 20 => return Err(format!("{name}: larger than 1 MiB")),
        Ok(_) => {}
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{name}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(pool: Option<&str>, st: Option<&str>) -> tempfile::TempDir {
        let d = tempfile::tempdir().expect("tempdir");
        if let Some(p) = pool {
            std::fs::create_dir_all(d.path().join("1_Pooling")).expect("mkdir");
            std::fs::write(d.path().join("1_Pooling/config.json"), p).expect("write");
        }
        if let Some(s) = st {
            std::fs::write(d.path().join("config_sentence_transformers.json"), s).expect("write");
        }
        d
    }

    #[test]
    fn recipes_are_read_from_the_sentence_transformers_files() {
        let none = folder(None, None);
        assert_eq!(Recipe::read(none.path()), Ok(Recipe::default()));
        assert_eq!(Recipe::default().tag(), "");
        let mean = folder(
            Some(r#"{"word_embedding_dimension":384,"pooling_mode_mean_tokens":true}"#),
            Some(r#"{"__version__":{"sentence_transformers":"2.0.0"}}"#),
        );
        assert_eq!(Recipe::read(mean.path()), Ok(Recipe::default()));
        let bge = folder(
            Some(r#"{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":false}"#),
            Some(
                r#"{"prompts":{"query":"Represent this sentence for searching relevant passages: ","document":""}}"#,
            ),
        );
        let r = Recipe::read(bge.path()).expect("bge");
        assert_eq!(r.pooling, Pooling::Cls);
        assert!(r.query.starts_with("Represent"));
        assert_eq!(r.passage, "");
        assert!(r.tag().starts_with(";cls;prompts-"), "{}", r.tag());
        let e5 = folder(
            None,
            Some(r#"{"prompts":{"query":"query: ","passage":"passage: "}}"#),
        );
        let r = Recipe::read(e5.path()).expect("e5");
        assert_eq!(
            (r.query.as_str(), r.passage.as_str()),
            ("query: ", "passage: ")
        );
    }

    #[test]
    fn unknown_pooling_and_absurd_prompts_are_refused() {
        for (pool, st) in [
            (Some(r#"{"pooling_mode_max_tokens":true}"#), None),
            (
                Some(r#"{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":true}"#),
                None,
            ),
            (Some("{}"), None),
            (Some("not json"), None),
            (None, Some(r#"{"prompts":{"query":"a\u0000b"}}"#)),
            (None, Some(r#"{"prompts":"query"}"#)),
        ] {
            let d = folder(pool, st);
            assert!(Recipe::read(d.path()).is_err(), "{pool:?} {st:?}");
        }
        let long = format!(
            r#"{{"prompts":{{"query":"{}"}}}}"#,
            "x".repeat(MAX_PROMPT + 1)
        );
        let d = folder(None, Some(&long));
        assert!(Recipe::read(d.path()).is_err());
    }
}
