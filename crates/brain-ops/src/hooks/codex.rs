//! Codex runs the hooks of its `hooks.json` only with its hooks feature on: `[features]
//! codex_hooks = true` in `config.toml` beside it (Codex's hooks documentation, read 2026-11-27;
//! later releases name the flag `hooks` and still read `codex_hooks` as its alias). `brain hook
//! install --codex` turns it on — the rest of the file kept as it is, comments included, backed up
//! first and written atomically — and doctor checks it.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, value};

use crate::OpsError;
use crate::settings::backup;

/// The flag brain writes.
pub const FLAG: &str = "codex_hooks";
/// The flag's later name, read as well.
pub const FLAG_NEW: &str = "hooks";

/// Codex's `config.toml` beside its hooks file.
pub fn config_file(hooks: &Path) -> PathBuf {
    hooks.with_file_name("config.toml")
}

fn parse(path: &Path, text: &str) -> Result<DocumentMut, OpsError> {
    text.parse::<DocumentMut>()
        .map_err(|e| OpsError::BadSettings {
            path: path.to_path_buf(),
            reason: format!("not valid TOML: {}", e.message()),
        })
}

/// Whether `config` turns the hooks feature on (a missing file: no).
pub fn enabled(config: &Path) -> Result<bool, OpsError> {
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(OpsError::io(config)(e)),
    };
    let doc = parse(config, &text)?;
    let on = |k: &str| {
        doc.get("features")
            .and_then(|f| f.get(k))
            .and_then(Item::as_bool)
            .unwrap_or(false)
    };
    Ok(on(FLAG) || on(FLAG_NEW))
}

/// Turn the hooks feature on in `config`: `Ok(None)` when it already was, else the backup of the
/// previous file (`None` inside when there was no file). A `features` that is not a table (an
/// inline table or a dotted key) is edited in place all the same; a file that is not TOML is
/// refused, untouched.
pub fn enable(config: &Path) -> Result<Option<Option<PathBuf>>, OpsError> {
    if enabled(config)? {
        return Ok(None);
    }
    let text = match std::fs::read_to_string(config) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(OpsError::io(config)(e)),
    };
    let mut doc = parse(config, text.as_deref().unwrap_or(""))?;
    match doc.get_mut("features") {
        Some(Item::Table(t)) => {
            t.insert(FLAG, value(true));
        }
        Some(Item::Value(toml_edit::Value::InlineTable(t))) => {
            t.insert(FLAG, true.into());
        }
        Some(_) => {
            return Err(OpsError::BadSettings {
                path: config.to_path_buf(),
                reason: "`features` is not a table; set `[features] codex_hooks = true` by hand"
                    .into(),
            });
        }
        None => {
            let mut t = Table::new();
            t.insert(FLAG, value(true));
            doc.insert("features", Item::Table(t));
        }
    }
    let out = doc.to_string();
    if parse(config, &out).is_err() {
        return Err(OpsError::BadSettings {
            path: config.to_path_buf(),
            reason: "the edited file did not read back; nothing written".into(),
        });
    }
    let saved = match &text {
        Some(_) => Some(backup(config)?),
        None => None,
    };
    if let Some(dir) = config.parent() {
        std::fs::create_dir_all(dir).map_err(OpsError::io(dir))?;
    }
    let mode = std::fs::metadata(config).ok().map(|m| m.permissions());
    brain_doc::atomic::write(config, out.as_bytes()).map_err(OpsError::io(config))?;
    if let Some(perm) = mode {
        std::fs::set_permissions(config, perm).map_err(OpsError::io(config))?;
    }
    Ok(Some(saved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_turned_on_keeping_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let c = dir.path().join("config.toml");
        assert!(!enabled(&c).expect("missing is off"));
        assert_eq!(enable(&c).expect("enable"), Some(None));
        assert!(enabled(&c).expect("on"));
        let text = "# mine\nmodel = \"o3\" # keep\n\n[features]\nweb_search = true\n";
        std::fs::write(&c, text).expect("write");
        let backup = enable(&c)
            .expect("enable")
            .expect("changed")
            .expect("backup");
        let now = std::fs::read_to_string(&c).expect("read");
        assert!(
            now.contains("# mine") && now.contains("model = \"o3\" # keep"),
            "{now}"
        );
        assert!(
            now.contains("web_search = true") && now.contains("codex_hooks = true"),
            "{now}"
        );
        assert_eq!(std::fs::read_to_string(backup).expect("backup"), text);
        assert_eq!(enable(&c).expect("again"), None, "idempotent");
        std::fs::write(&c, "[features]\nhooks = true\n").expect("write");
        assert!(enabled(&c).expect("new name"));
        std::fs::write(&c, "features = { x = true }\n").expect("write");
        enable(&c).expect("inline");
        assert!(enabled(&c).expect("inline on"));
        std::fs::write(&c, "[features\nbroken").expect("write");
        assert!(enable(&c).is_err());
        assert_eq!(
            std::fs::read_to_string(&c).expect("read"),
            "[features\nbroken"
        );
    }
}
