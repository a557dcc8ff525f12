//! Browsers, profiles, and where their History files live.
//!
//! Default user-data folders (a profile is a sub-folder `Default` or `Profile N` holding `History`):
//!
//! | browser  | Linux (`~/…`)                          | macOS (`~/Library/Application Support/…`) | Windows (`%LOCALAPPDATA%\…`)         |
//! |----------|----------------------------------------|-------------------------------------------|--------------------------------------|
//! | chrome   | `.config/google-chrome` (`-beta`, `-unstable`), flatpak `.var/app/com.google.Chrome/config/google-chrome` | `Google/Chrome` (`Chrome Beta`, `Chrome Canary`) | `Google\Chrome\User Data` |
//! | chromium | `.config/chromium`, `snap/chromium/common/chromium`, flatpak `.var/app/org.chromium.Chromium/config/chromium` | `Chromium` | `Chromium\User Data` |
//! | brave    | `.config/BraveSoftware/Brave-Browser`, flatpak `.var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser` | `BraveSoftware/Brave-Browser` | `BraveSoftware\Brave-Browser\User Data` |
//! | edge     | `.config/microsoft-edge` (`-beta`, `-dev`) | `Microsoft Edge`                      | `Microsoft\Edge\User Data`           |
//! | vivaldi  | `.config/vivaldi` (`-snapshot`)        | `Vivaldi`                                 | `Vivaldi\User Data`                  |

use std::path::{Path, PathBuf};

/// A Chromium-based browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Browser {
    Chrome,
    Chromium,
    Brave,
    Edge,
    Vivaldi,
}

impl Browser {
    /// Every browser, in discovery order.
    pub const ALL: [Browser; 5] = [
        Browser::Chrome,
        Browser::Chromium,
        Browser::Brave,
        Browser::Edge,
        Browser::Vivaldi,
    ];

    /// The lower-case id (`source.agent`, `meta.browser`, profile slugs).
    pub fn id(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Brave => "brave",
            Browser::Edge => "edge",
            Browser::Vivaldi => "vivaldi",
        }
    }

    /// The name people know (`Chrome`).
    pub fn display(self) -> &'static str {
        match self {
            Browser::Chrome => "Chrome",
            Browser::Chromium => "Chromium",
            Browser::Brave => "Brave",
            Browser::Edge => "Edge",
            Browser::Vivaldi => "Vivaldi",
        }
    }

    /// Parse an id (case-insensitive).
    pub fn from_id(s: &str) -> Option<Browser> {
        Browser::ALL
            .into_iter()
            .find(|b| b.id().eq_ignore_ascii_case(s))
    }

    /// Guess the browser from where a History file lives; Chrome when nothing says otherwise.
    pub fn guess(path: &Path) -> Browser {
        let p = path.to_string_lossy().to_lowercase().replace('\\', "/");
        if p.contains("brave") {
            Browser::Brave
        } else if p.contains("microsoft-edge")
            || p.contains("microsoft edge")
            || p.contains("microsoft/edge")
        {
            Browser::Edge
        } else if p.contains("vivaldi") {
            Browser::Vivaldi
        } else if p.contains("chromium") {
            Browser::Chromium
        } else {
            Browser::Chrome
        }
    }

    /// User-data folders relative to the home folder (Linux and macOS).
    fn home_dirs(self) -> &'static [&'static str] {
        match self {
            Browser::Chrome => &[
                ".config/google-chrome",
                ".config/google-chrome-beta",
                ".config/google-chrome-unstable",
                ".var/app/com.google.Chrome/config/google-chrome",
                "Library/Application Support/Google/Chrome",
                "Library/Application Support/Google/Chrome Beta",
                "Library/Application Support/Google/Chrome Canary",
            ],
            Browser::Chromium => &[
                ".config/chromium",
                "snap/chromium/common/chromium",
                ".var/app/org.chromium.Chromium/config/chromium",
                "Library/Application Support/Chromium",
            ],
            Browser::Brave => &[
                ".config/BraveSoftware/Brave-Browser",
                ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser",
                "Library/Application Support/BraveSoftware/Brave-Browser",
            ],
            Browser::Edge => &[
                ".config/microsoft-edge",
                ".config/microsoft-edge-beta",
                ".config/microsoft-edge-dev",
                "Library/Application Support/Microsoft Edge",
            ],
            Browser::Vivaldi => &[
                ".config/vivaldi",
                ".config/vivaldi-snapshot",
                "Library/Application Support/Vivaldi",
            ],
        }
    }

    /// User-data folders relative to `%LOCALAPPDATA%` (Windows).
    fn local_app_data_dir(self) -> &'static str {
        match self {
            Browser::Chrome => "Google/Chrome/User Data",
            Browser::Chromium => "Chromium/User Data",
            Browser::Brave => "BraveSoftware/Brave-Browser/User Data",
            Browser::Edge => "Microsoft/Edge/User Data",
            Browser::Vivaldi => "Vivaldi/User Data",
        }
    }
}

/// One browser profile's History.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The History file.
    pub history: PathBuf,
    /// Which browser.
    pub browser: Browser,
    /// The profile folder's name (`Default`, `Profile 1`).
    pub name: String,
}

impl Profile {
    /// A profile for an explicit History file: browser guessed from the path unless given, name from
    /// its folder unless given.
    pub fn for_file(history: &Path, browser: Option<Browser>, name: Option<&str>) -> Profile {
        let folder = history
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        Profile {
            history: history.to_path_buf(),
            browser: browser.unwrap_or_else(|| Browser::guess(history)),
            name: name
                .map(str::to_string)
                .or(folder)
                .unwrap_or_else(|| "Default".into()),
        }
    }

    /// `<browser>-<profile>`, lower case, runs of anything but letters and digits turned into `-`
    /// (`chrome-default`, `brave-profile-1`).
    pub fn slug(&self) -> String {
        let mut s = format!("{}-", self.browser.id());
        for c in self.name.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                s.push(c);
            } else if !s.ends_with('-') {
                s.push('-');
            }
        }
        s.trim_end_matches('-').to_string()
    }
}

/// Every profile with a History file under the default folders of every browser, for a user whose
/// home is `home` (and, on Windows, whose local app data is `local_app_data`). Also returns the
/// folders looked in, for the error message when nothing is found.
pub fn discover(
    home: Option<&Path>,
    local_app_data: Option<&Path>,
) -> (Vec<Profile>, Vec<PathBuf>) {
    let mut found = Vec::new();
    let mut looked = Vec::new();
    for browser in Browser::ALL {
        let mut roots: Vec<PathBuf> = home
            .map(|h| browser.home_dirs().iter().map(|d| h.join(d)).collect())
            .unwrap_or_default();
        if let Some(l) = local_app_data {
            roots.push(l.join(browser.local_app_data_dir()));
        }
        for root in roots {
            looked.push(root.clone());
            let Ok(entries) = std::fs::read_dir(&root) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n == "Default" || n.starts_with("Profile "))
                .filter(|n| root.join(n).join("History").is_file())
                .collect();
            names.sort_by_key(|n| (n != "Default", n.len(), n.clone()));
            for name in names {
                found.push(Profile {
                    history: root.join(&name).join("History"),
                    browser,
                    name,
                });
            }
        }
    }
    (found, looked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_guesses() {
        let p = Profile::for_file(
            Path::new("/h/.config/BraveSoftware/Brave-Browser/Profile 1/History"),
            None,
            None,
        );
        assert_eq!(
            (p.browser, p.name.as_str(), p.slug().as_str()),
            (Browser::Brave, "Profile 1", "brave-profile-1")
        );
        let p = Profile::for_file(
            Path::new("/tmp/x/History"),
            Some(Browser::Edge),
            Some("Work Stuff!"),
        );
        assert_eq!(p.slug(), "edge-work-stuff");
        assert_eq!(
            Browser::guess(Path::new("/a/chromium.sqlite")),
            Browser::Chromium
        );
    }

    #[test]
    fn discovery_finds_profiles_in_default_places() {
        let home = tempfile::tempdir().expect("tempdir");
        for p in [
            ".config/google-chrome/Profile 2",
            ".config/google-chrome/Default",
            ".config/vivaldi/Default",
            ".config/chromium/System Profile",
        ] {
            std::fs::create_dir_all(home.path().join(p)).expect("mkdir");
            std::fs::write(home.path().join(p).join("History"), b"").expect("write");
        }
        let (found, looked) = discover(Some(home.path()), None);
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|p| (p.browser.id(), p.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("chrome", "Default"),
                ("chrome", "Profile 2"),
                ("vivaldi", "Default")
            ]
        );
        assert!(looked.len() > 10);
    }
}
