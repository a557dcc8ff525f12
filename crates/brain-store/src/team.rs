//! brain.yaml's `team:` section (docs/team.md): the search engines a team shares, and which of this
//! home's collections may be sent to them. Nothing is shared unless named here.
//!
//! ```yaml
//! team:
//!   engines:                          # name → the engine's base URL (no credentials in it)
//!     team: http://solr.internal:8983/solr
//!   shared: [decisions, notes]        # the only collections teamindex ever sends
//!   index: brain                      # the engine-side index (a Solr collection)
//!   shards: 2                         # when brain creates the index
//!   replicas: 2
//!   credentials: ~/.config/brain/engine.cred   # `user:password`, a file only its owner may read
//!   author: ana                       # who this home's documents are from (default: $USER)
//!   ca: ~/.config/brain/team-ca.pem   # the CA of an https:// engine (default: Mozilla's roots)
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `team:` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Team {
    #[serde(default)]
    pub engines: BTreeMap<String, String>,
    /// The allow-list of collections sent to an engine.
    #[serde(default)]
    pub shared: Vec<String>,
    #[serde(default = "default_index")]
    pub index: String,
    #[serde(default = "two")]
    pub shards: u32,
    #[serde(default = "two")]
    pub replicas: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// A PEM file of the certificate authority an `https://` engine's certificate is signed by
    /// (default: Mozilla's roots; `BRAIN_ENGINE_CA` overrides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<String>,
}

impl Default for Team {
    fn default() -> Self {
        Team {
            engines: BTreeMap::new(),
            shared: Vec::new(),
            index: default_index(),
            shards: 2,
            replicas: 2,
            credentials: None,
            author: None,
            ca: None,
        }
    }
}

fn default_index() -> String {
    "brain".into()
}
fn two() -> u32 {
    2
}

/// The most shards or replicas brain asks an engine to create.
pub const MAX_SPREAD: u32 = 64;

impl Team {
    /// Why the section cannot be used, if it cannot: names, counts and every engine URL.
    pub fn check(&self) -> Result<(), String> {
        check_index(&self.index)?;
        for (what, n) in [("shards", self.shards), ("replicas", self.replicas)] {
            if n == 0 || n > MAX_SPREAD {
                return Err(format!("team.{what}: {n} is not in 1-{MAX_SPREAD}"));
            }
        }
        for (name, url) in &self.engines {
            check_engine_name(name)?;
            engine_url(url).map_err(|e| format!("team.engines.{name}: {e}"))?;
        }
        Ok(())
    }

    /// The engine URL `arg` names: a URL as given, or the name of one of `engines`; with no
    /// argument, the only engine configured.
    pub fn engine(&self, arg: Option<&str>) -> Result<String, String> {
        let url = match arg {
            Some(a) if a.contains("://") => a.to_string(),
            Some(name) => self.engines.get(name).cloned().ok_or_else(|| {
                format!(
                    "no engine `{}` in brain.yaml's team.engines{}",
                    shown(name),
                    self.known()
                )
            })?,
            None => match self.engines.len() {
                1 => self.engines.values().next().cloned().unwrap_or_default(),
                0 => return Err(
                    "no engine given: pass --engine URL, or name one in brain.yaml's team.engines"
                        .into(),
                ),
                _ => {
                    return Err(format!(
                        "several engines configured: pass --engine NAME{}",
                        self.known()
                    ));
                }
            },
        };
        engine_url(&url)
    }

    fn known(&self) -> String {
        if self.engines.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = self.engines.keys().map(String::as_str).collect();
            format!(" (configured: {})", names.join(", "))
        }
    }
}

/// An engine's base URL, checked: `http://` or `https://`, a host, no credentials (they come from
/// the environment or a file, never a URL that lands in shell history and logs), no query or
/// fragment. The trailing `/` is dropped.
pub fn engine_url(url: &str) -> Result<String, String> {
    if url.chars().any(char::is_control) {
        return Err(format!("`{}` holds control characters", shown(url)));
    }
    let u = url.trim();
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"))
        .ok_or_else(|| format!("`{}` is not an http:// or https:// URL", shown(u)))?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return Err("credentials do not belong in the engine URL: set BRAIN_ENGINE_USER and BRAIN_ENGINE_PASSWORD, or team.credentials".into());
    }
    if authority.is_empty()
        || u.contains(['?', '#'])
        || u.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "`{}` is not an engine base URL (scheme://host[:port]/path)",
            shown(u)
        ));
    }
    Ok(u.trim_end_matches('/').to_string())
}

/// An engine-side index name: what Solr accepts for a collection and nothing that could reach
/// another path: `[a-z0-9_-]`, 1 to 64 characters, starting with a letter or digit.
pub fn check_index(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if ok {
        Ok(())
    } else {
        Err(format!(
            "team.index `{}` is not valid: 1-64 of a-z, 0-9, `_` and `-`, starting with a letter or digit",
            shown(name)
        ))
    }
}

fn check_engine_name(name: &str) -> Result<(), String> {
    crate::check_name(name).map_err(|_| {
        format!(
            "team.engines: `{}` is not a valid engine name (a-z, 0-9, `-`, `_`)",
            shown(name)
        )
    })
}

/// A user-given value in a message: at most 80 characters, control characters dropped.
fn shown(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert_eq!(
            engine_url("http://127.0.0.1:8983/solr/").expect("test setup"),
            "http://127.0.0.1:8983/solr"
        );
        assert!(engine_url("https://solr.example/solr").is_ok());
        for bad in [
            "ftp://x",
            "http://u:p@host/solr",
            "http://",
            "http://h/solr?q=1",
            "http://h/a b",
            "solr",
            "http://h/\n",
        ] {
            assert!(engine_url(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn index_names_never_escape() {
        for ok in ["brain", "team-2", "a_b"] {
            assert!(check_index(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "a/b",
            "Brain",
            "-x",
            "a b",
            "x%2f",
            &"a".repeat(65),
        ] {
            assert!(check_index(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn engines_by_name_url_or_the_only_one() {
        let mut t = Team::default();
        assert!(t.engine(None).is_err());
        t.engines.insert("team".into(), "http://h:1/solr".into());
        assert_eq!(t.engine(None).expect("test setup"), "http://h:1/solr");
        assert_eq!(
            t.engine(Some("team")).expect("test setup"),
            "http://h:1/solr"
        );
        assert_eq!(
            t.engine(Some("http://o:2/solr")).expect("test setup"),
            "http://o:2/solr"
        );
        assert!(
            t.engine(Some("nope"))
                .expect_err("an error")
                .contains("configured: team")
        );
        t.engines.insert("b".into(), "http://b/solr".into());
        assert!(t.engine(None).is_err());
        t.shards = 0;
        assert!(t.check().is_err());
    }
}
