//! The incremental-run state: the last visit id emitted per History file, so a nightly run only
//! re-emits the days that gained visits since (a changed day is re-emitted whole).
//!
//! ```json
//! {"schema":1,"profiles":{"~/.config/google-chrome/Default/History":{"browser":"chrome","profile":"Default","last_visit_id":48213}}}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ChromeError;

/// The state file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Format version (1).
    #[serde(default = "one")]
    pub schema: u32,
    /// Per History file (home shown as `~`).
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileState>,
}

fn one() -> u32 {
    1
}

/// What we remember of one History file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileState {
    /// The browser id.
    pub browser: String,
    /// The profile name.
    pub profile: String,
    /// The largest `visits.id` already emitted.
    pub last_visit_id: i64,
}

impl State {
    /// Read the state at `path`; a missing file is an empty state.
    pub fn load(path: &Path) -> Result<State, ChromeError> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| ChromeError::State {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State {
                schema: 1,
                ..State::default()
            }),
            Err(e) => Err(ChromeError::State {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        }
    }

    /// Write the state to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), ChromeError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| ChromeError::State {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        text.push('\n');
        brain_doc::atomic::write(path, text.as_bytes()).map_err(|source| ChromeError::Write {
            path: PathBuf::from(path),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("state/chrome2md.json");
        assert_eq!(State::load(&p).expect("load").profiles.len(), 0);
        let mut s = State {
            schema: 1,
            ..State::default()
        };
        s.profiles.insert(
            "~/h".into(),
            ProfileState {
                browser: "chrome".into(),
                profile: "Default".into(),
                last_visit_id: 9,
            },
        );
        s.save(&p).expect("save");
        assert_eq!(State::load(&p).expect("load"), s);
        std::fs::write(&p, "{not json").expect("write");
        assert!(matches!(State::load(&p), Err(ChromeError::State { .. })));
    }
}
