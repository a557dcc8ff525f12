//! `brain forget <ref> [--restore | --purge]` — archive a record (hidden from every search, kept on
//! disk), make it active again, or purge it after confirmation: [`brain_ops::forget`] does it; this
//! command asks at the terminal and says what was done.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_ops::forget::{Action, ForgetError, Forgotten};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// The record: a path inside a collection, brain://collection/path or #docid.
    reference: String,
    /// Make an archived record active again.
    #[arg(long, conflicts_with = "purge")]
    restore: bool,
    /// Delete the file and every trace of the record in the indexes (asks first).
    #[arg(long)]
    purge: bool,
    /// With --purge: do not ask (required when stdin is not a terminal).
    #[arg(long, requires = "purge")]
    yes: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let action = match (a.restore, a.purge) {
        (true, _) => Action::Restore,
        (_, true) => Action::Purge,
        _ => Action::Archive,
    };
    let yes = a.yes;
    let confirm = |id: &str, file: &std::path::Path| confirmed(id, file, yes);
    let warn = |w: String| eprintln!("brain forget: warning: {w}");
    let done = brain_ops::forget::forget(home, &a.reference, action, &confirm, &warn)
        .map_err(Failure::from)?;
    let mut out = Stdout::new();
    match done {
        Forgotten::Restored { id } => writeln!(out, "restored {id}: active, searchable again")?,
        Forgotten::Archived { id } => writeln!(
            out,
            "archived {id}: hidden from searches, kept on disk (`brain ask --include-superseded` finds it; `brain forget --restore {id}` undoes it)"
        )?,
        Forgotten::Purged(done) => {
            writeln!(
                out,
                "purged {}: file {}, passages removed from the lexical index{}, reads and listings forgotten{}",
                done.id,
                if done.file_deleted {
                    "deleted"
                } else {
                    "already gone"
                },
                if done.vectors > 0 {
                    ", vectors removed"
                } else {
                    ""
                },
                if done.log_rows > 0 {
                    format!(", {} usage-log rows scrubbed", done.log_rows)
                } else {
                    String::new()
                }
            )?;
            for line in &done.team {
                writeln!(out, "{line}")?;
            }
            if done.conversation {
                writeln!(
                    out,
                    "the session is remembered as purged (a hash of its agent and id, in {}): converting its transcript again, even with new turns, leaves it out",
                    brain_store::display_path(&home.state_file(brain_store::purged::FILE))
                )?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Ask at the terminal, or refuse without `--yes` when there is none to ask.
fn confirmed(id: &str, file: &std::path::Path, yes: bool) -> Result<bool, ForgetError> {
    use std::io::IsTerminal;
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        let mut e = ForgetError::new(
            ErrorCode::BadQuery,
            "brain forget --purge deletes for good and asks first; stdin is not a terminal",
        );
        e.fix = format!("brain forget --purge --yes {id}");
        return Err(e);
    }
    eprint!(
        "This deletes {} and every trace of {id} in the indexes; it cannot be undone.\nType the id to confirm: ",
        brain_store::display_path(file)
    );
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| ForgetError::new(ErrorCode::Internal, format!("stdin: {e}")))?;
    Ok(line.trim() == id)
}
