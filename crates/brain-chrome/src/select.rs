//! From what a command line selects to the run's [`Options`]: profile discovery (a History file, a
//! profile folder, or `auto`: every profile of every Chromium-based browser in its default place on
//! Linux, macOS and Windows), the policy file, the time zone, the state file, the lock and the
//! snapshot cache of the home.

use std::path::PathBuf;

use brain_store::Home;

use crate::ChromeError;
use crate::policy::Policy;
use crate::profiles::{Browser, Profile};
use crate::run::Options;

/// What the command line selected: the flags of `chrome2md` (their doc comments are its `--help`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Selection {
    /// A History file to read (e.g. ~/.config/google-chrome/Default/History).
    #[arg(long, value_name = "PATH", conflicts_with = "profile")]
    pub history: Option<PathBuf>,
    /// `auto` (the default): every profile of every Chromium-based browser in its default place
    /// (Linux, macOS, Windows); or a profile folder holding a History file.
    #[arg(long, value_name = "auto|DIR")]
    pub profile: Option<String>,
    /// The browser of --history/--profile DIR (default: guessed from the path, else chrome).
    #[arg(long, value_name = "chrome|chromium|brave|edge|vivaldi", value_parser = parse_browser)]
    pub browser: Option<Browser>,
    /// The profile name of --history (default: the name of its folder).
    #[arg(long, value_name = "NAME")]
    pub profile_name: Option<String>,
    /// A YAML policy file extending the built-in policy (allow, only_allowed, deny, nsfw, nsfw_words,
    /// nsfw_hosts, keep_local, strip_params, max_search_chars, max_search_words).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The IANA time zone days are cut in (default: the system's, i.e. $TZ or /etc/localtime).
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    /// Only days on or after this local date.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub since: Option<jiff::civil::Date>,
    /// The state file (default: $BRAIN_HOME/state/chrome2md.json).
    #[arg(long, value_name = "FILE", conflicts_with = "no_state")]
    pub state: Option<PathBuf>,
    /// Neither read nor write the state: emit every selected day.
    #[arg(long)]
    pub no_state: bool,
    /// Write DIR/<YYYY-MM-DD>.md (DIR/<browser-profile>/<YYYY-MM-DD>.md for several profiles)
    /// instead of NDJSON on stdout.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

fn parse_browser(s: &str) -> Result<Browser, String> {
    Browser::from_id(s)
        .ok_or_else(|| format!("unknown browser `{s}` (chrome, chromium, brave, edge, vivaldi)"))
}

impl Options {
    /// The options a command line selects: which profiles (a History file, a profile folder, or
    /// every profile of every browser in its default place), the policy, the zone, the state file,
    /// the lock and the snapshot cache of `home`.
    pub fn resolve(args: &Selection, home: &Home) -> Result<Options, ChromeError> {
        let profiles = match (&args.history, args.profile.as_deref()) {
            (Some(h), _) => vec![Profile::for_file(
                h,
                args.browser,
                args.profile_name.as_deref(),
            )],
            (None, Some(dir)) if dir != "auto" => {
                vec![Profile::for_file(
                    &PathBuf::from(dir).join("History"),
                    args.browser,
                    args.profile_name.as_deref(),
                )]
            }
            (None, _) => {
                let local = brain_doc::env::os(brain_doc::env::LOCALAPPDATA).map(PathBuf::from);
                let (found, looked) =
                    crate::profiles::discover(brain_store::home_dir().as_deref(), local.as_deref());
                let found: Vec<Profile> = found
                    .into_iter()
                    .filter(|p| args.browser.is_none_or(|b| b == p.browser))
                    .collect();
                if found.is_empty() {
                    let looked = looked
                        .iter()
                        .map(|p| brain_store::display_path(p))
                        .collect::<Vec<_>>()
                        .join(", ");
                    return Err(ChromeError::NoProfile { looked });
                }
                found
            }
        };
        let policy = match &args.policy {
            Some(p) => Policy::load(p)?,
            None => Policy::default(),
        };
        let tz = match &args.tz {
            Some(name) => jiff::tz::TimeZone::get(name).map_err(|e| ChromeError::TimeZone {
                name: name.clone(),
                reason: e.to_string(),
            })?,
            None => jiff::tz::TimeZone::system(),
        };
        let state = if args.no_state {
            None
        } else {
            Some(
                args.state
                    .clone()
                    .unwrap_or_else(|| home.state_file("chrome2md.json")),
            )
        };
        Ok(Options {
            profiles,
            policy,
            tz,
            since: args.since,
            state,
            lock: home.lock_file("chrome2md"),
            snapshots: Some(home.root().join("cache").join("chrome2md")),
            out_dir: args.out_dir.clone(),
        })
    }
}
