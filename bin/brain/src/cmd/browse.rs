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
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn();
        match spawned {
            Err(e) => {
                eprintln!("brain browse: warning: cannot run {opener} ({e}); open the URL above")
            }
            // Waited for on a thread: its failure is said (issue 59: `--open` failed silently),
            // and it is reaped (no zombie left for the server's lifetime).
            Ok(mut child) => {
                std::thread::spawn(move || {
                    use std::io::Read;
                    // Its first 4 KiB said, the rest drained (a browser it became may talk on).
                    let mut said = Vec::new();
                    if let Some(mut err) = child.stderr.take() {
                        let _ = err.by_ref().take(4096).read_to_end(&mut said);
                        let _ = std::io::copy(&mut err, &mut std::io::sink());
                    }
                    match child.wait() {
                        Ok(status) if !status.success() => {
                            let why = brain_doc::bytes::lossy(&said);
                            let why = why.lines().next().unwrap_or("no message");
                            eprintln!(
                                "brain browse: warning: {opener} failed ({status}: {why}); open the URL above"
                            );
                        }
                        Ok(_) => {}
                        Err(e) => {
                            eprintln!("brain browse: warning: {opener}: {e}; open the URL above")
                        }
                    }
                });
            }
        }
    }
    listener.run(home.clone())?;
    Ok(Exit::Success)
}
