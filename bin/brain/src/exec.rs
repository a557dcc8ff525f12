//! Finding and running stage binaries, libexec-style (like git's exec-path): the folder of this
//! executable first, then `<prefix>/libexec/brain/` beside `<prefix>/bin/brain`, then PATH. Stages
//! never shadow an interactive shell's `fmt`: they are not on the user's PATH.

use std::path::PathBuf;
use std::process::Command;

use brain_cli::{Exit, Failure};
use brain_doc::ErrorCode;

/// Where the stage `name` is, in lookup order (shared with `explain`, `doctor` and the stop hook).
pub fn locate(name: &str) -> Option<PathBuf> {
    brain_ops::bins::locate(name)
}

/// Run `argv[0]` as a stage with the rest as arguments, passing its exit code through.
pub fn run(argv: &[String]) -> anyhow::Result<Exit> {
    let Some((name, args)) = argv.split_first() else {
        return Err(Failure::new(ErrorCode::BadQuery, "no command given")
            .with_fix("see `brain --help`")
            .into());
    };
    if name.contains('/') || name == "brain" {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("`{name}` is not a brain command"),
        )
        .into());
    }
    let Some(bin) = locate(name) else {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("`{name}` is not a brain command or stage"),
        )
        .with_fix("see `brain --help`; stages live beside `brain` or in <prefix>/libexec/brain")
        .into());
    };
    let status = Command::new(&bin).args(args).status()?;
    let code = status.code().unwrap_or(99);
    Ok(
        match ErrorCode::ALL
            .iter()
            .find(|c| i32::from(c.exit_code()) == code)
        {
            _ if code == 0 => Exit::Success,
            Some(c) => Exit::Code(*c),
            None => Exit::Code(ErrorCode::Internal),
        },
    )
}
