//! Finding and running stage binaries, libexec-style (like git's exec-path): the folder of this
//! executable first, then `<prefix>/libexec/brain/` beside `<prefix>/bin/brain`, then PATH. Stages
//! never shadow an interactive shell's `fmt`: they are not on the user's PATH.

use std::path::PathBuf;
use std::process::Command;

use brain_cli::{Exit, Failure};
use brain_doc::ErrorCode;

/// Where the stage `name` is, in lookup order; `None` when it is nowhere.
pub fn locate(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let mut candidates = vec![dir.join(name)];
    if let Some(prefix) = dir.parent() {
        candidates.push(prefix.join("libexec").join("brain").join(name));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|p| p.join(name)));
    }
    candidates.into_iter().find(|p| p.is_file())
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
