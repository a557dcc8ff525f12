//! `chrome2md`: browser history → one markdown document per day (doc NDJSON on stdout).

use std::path::PathBuf;
use std::process::ExitCode;

use brain_chrome::{Browser, ChromeError, Options, Policy, Profile};
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_store::Home;
use clap::Parser;

/// Browser history (Chrome, Chromium, Brave, Edge, Vivaldi) → one markdown document per local day.
///
/// Reads a profile's `History` SQLite database through a private copy (with its -wal/-journal files,
/// so a running browser never blocks the read), applies the policy (internal, local, ad, NSFW and
/// denied pages dropped; junk searches and tracking parameters removed) and prints one doc record
/// per day as NDJSON, or writes `<YYYY-MM-DD>.md` files with `--out-dir`. A state file remembers the
/// last visit per profile, so the next run emits only the days that changed (each whole).
///
/// With the state in use, the copy is kept in $BRAIN_HOME/cache/chrome2md/ (mode 0700) and rewritten
/// in place on the next run, which is several times cheaper than a fresh copy of a large History.
///
/// Exit codes: 0 ok (also when no day changed) · 64 bad input (missing, non-SQLite or corrupt file,
/// not a History database, bad policy, time zone or state file) · 65 no browser profile found ·
/// 70 the database or the chrome2md lock is held · 99 internal.
#[derive(Debug, Parser)]
#[command(name = "chrome2md", version)]
struct Args {
    /// A History file to read (e.g. ~/.config/google-chrome/Default/History).
    #[arg(long, value_name = "PATH", conflicts_with = "profile")]
    history: Option<PathBuf>,
    /// `auto` (the default): every profile of every Chromium-based browser in its default place
    /// (Linux, macOS, Windows); or a profile folder holding a History file.
    #[arg(long, value_name = "auto|DIR")]
    profile: Option<String>,
    /// The browser of --history/--profile DIR (default: guessed from the path, else chrome).
    #[arg(long, value_name = "chrome|chromium|brave|edge|vivaldi", value_parser = parse_browser)]
    browser: Option<Browser>,
    /// The profile name of --history (default: the name of its folder).
    #[arg(long, value_name = "NAME")]
    profile_name: Option<String>,
    /// A YAML policy file extending the built-in policy (allow, only_allowed, deny, nsfw, nsfw_words,
    /// nsfw_hosts, keep_local, strip_params, max_search_chars, max_search_words).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// The IANA time zone days are cut in (default: the system's, i.e. $TZ or /etc/localtime).
    #[arg(long, value_name = "ZONE")]
    tz: Option<String>,
    /// Only days on or after this local date.
    #[arg(long, value_name = "YYYY-MM-DD")]
    since: Option<jiff::civil::Date>,
    /// The state file (default: $BRAIN_HOME/state/chrome2md.json).
    #[arg(long, value_name = "FILE", conflicts_with = "no_state")]
    state: Option<PathBuf>,
    /// Neither read nor write the state: emit every selected day.
    #[arg(long)]
    no_state: bool,
    /// Write DIR/<YYYY-MM-DD>.md (DIR/<browser-profile>/<YYYY-MM-DD>.md for several profiles)
    /// instead of NDJSON on stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// No warnings or summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_browser(s: &str) -> Result<Browser, String> {
    Browser::from_id(s)
        .ok_or_else(|| format!("unknown browser `{s}` (chrome, chromium, brave, edge, vivaldi)"))
}

fn main() -> ExitCode {
    brain_cli::main("chrome2md", |args: Args| {
        let warnings = Warnings::new("chrome2md", args.quiet);
        let opts = options(&args).map_err(failure)?;
        let stats = brain_chrome::run(&opts, &mut Stdout::new(), &|m| warnings.warn(m)).map_err(
            |e| match e {
                ChromeError::Output(io) => anyhow::Error::new(io),
                other => failure(other),
            },
        )?;
        if !args.quiet {
            eprintln!("chrome2md: {}", stats.summary());
        }
        Ok(Exit::Success)
    })
}

fn failure(e: ChromeError) -> anyhow::Error {
    anyhow::Error::new(Failure::new(e.code(), e.to_string()).with_fix(e.fix()))
}

fn options(args: &Args) -> Result<Options, ChromeError> {
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
            let local = std::env::var_os("LOCALAPPDATA").map(PathBuf::from);
            let (found, looked) = brain_chrome::profiles::discover(
                brain_store::home_dir().as_deref(),
                local.as_deref(),
            );
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
    let home = Home::from_env();
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
