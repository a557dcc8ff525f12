//! Editing a JSON settings file safely: read it (refusing anything but a JSON object), back it up,
//! write it back validated and atomically, keeping its mode.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::OpsError;

/// Read a settings file: a missing one is an empty object; anything but a JSON object is refused.
pub(crate) fn read(path: &Path) -> Result<Option<Map<String, Value>>, OpsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(OpsError::io(path)(e)),
    };
    if text.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    let bad = |reason: String| OpsError::BadSettings {
        path: path.to_path_buf(),
        reason,
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(bad("not a JSON object".into())),
        Err(e) => Err(bad(format!("not valid JSON: {e}"))),
    }
}

/// Copy `path` to `<path>.brain-backup-<unix secs>[-N]` and return the backup's path.
pub(crate) fn backup(path: &Path) -> Result<PathBuf, OpsError> {
    let secs = jiff::Timestamp::now().as_second();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut target = path.with_file_name(format!("{name}.brain-backup-{secs}"));
    let mut i = 1;
    while target.exists() {
        target = path.with_file_name(format!("{name}.brain-backup-{secs}-{i}"));
        i += 1;
    }
    std::fs::copy(path, &target).map_err(OpsError::io(&target))?;
    Ok(target)
}

/// Serialize, check it parses back to the same value, write atomically keeping the file's mode.
pub(crate) fn write(path: &Path, root: &Map<String, Value>) -> Result<(), OpsError> {
    let value = Value::Object(root.clone());
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| OpsError::BadSettings {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&value) {
        return Err(OpsError::BadSettings {
            path: path.to_path_buf(),
            reason: "the edited settings did not read back identically; nothing written".into(),
        });
    }
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions());
    brain_doc::atomic::write(path, text.as_bytes()).map_err(OpsError::io(path))?;
    if let Some(perm) = mode {
        std::fs::set_permissions(path, perm).map_err(OpsError::io(path))?;
    }
    Ok(())
}
