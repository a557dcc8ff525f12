//! `brain browse` — the memory browser: a loopback-only, token-guarded, read-only web view of the
//! home (brain_browse). Prints its URL, token included, on stdout; runs until stopped.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, value_name = "N", default_value_t = brain_browse::DEFAULT_PORT)]
    port: u16,
    /// Open the URL in the default browser (xdg-open, open) as well as printing it.
    #[arg(long)]
    open: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let listener = brain_browse::bind(a.port).map_err(Failure::from)?;
    let url = listener.url();
    let mut out = Stdout::new();
    writeln!(out, "{url}")?;
    out.flush()?;
    eprintln!(
        "brain browse: serving {} read-only on 127.0.0.1:{} (the token in the URL is this run's; Ctrl-C stops)",
        home.root().display(),
        listener.addr().port()
    );
    if let Err(e) = brain_browse::running::record(home, &listener) {
        eprintln!("brain browse: warning: cannot record the server for `brain ask --link`: {e}");
    }
    if a.open {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        let spawned = std::process::Command::new(opener)
            .arg(&url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = spawned {
            eprintln!("brain browse: warning: cannot run {opener} ({e}); open the URL above");
        }
    }
    listener.run(home.clone())?;
    Ok(Exit::Success)
}
