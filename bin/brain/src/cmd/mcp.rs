//! `brain mcp` — the MCP server on stdin/stdout (newline-delimited JSON-RPC; logs on stderr), or on
//! loopback HTTP with `--http`; and `brain mcp install --claude`, the Claude Code configuration that
//! starts it.

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_mcp::install::{self, Written};
use brain_store::Home;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Serve MCP's Streamable HTTP transport instead of stdio: POST JSON-RPC to
    /// http://127.0.0.1:PORT/mcp. Bound to 127.0.0.1 only; requests with a non-loopback Origin or Host
    /// header are refused (403). Runs until stopped (Ctrl-C).
    #[arg(long)]
    http: bool,
    /// The port for --http (0: any free port; the URL is printed on stderr).
    #[arg(long, value_name = "N", default_value_t = brain_mcp::http::DEFAULT_PORT, requires = "http")]
    port: u16,
    /// Recall only: the `remember` tool is neither listed nor callable, so the agent cannot write
    /// to the memory (for agents that should only read).
    #[arg(long)]
    read_only: bool,
    /// List each tool's outputSchema in tools/list (for clients that validate structured
    /// results; every result carries structuredContent either way). Off by default: an agent
    /// session carries the whole list in its context.
    #[arg(long)]
    output_schemas: bool,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Print the MCP configuration that makes an agent start `brain mcp`, or merge it into the agent's
    /// config file with --write.
    Install(InstallArgs),
}

#[derive(clap::Args)]
struct InstallArgs {
    /// For Claude Code (the `mcpServers` map of `.mcp.json` / `~/.claude.json`).
    #[arg(long, required = true)]
    claude: bool,
    /// Merge the entry into the config file instead of printing it: idempotent, the previous file
    /// kept as `<file>.bak`, replaced atomically.
    #[arg(long)]
    write: bool,
    /// Which file --write changes: `user` is ~/.claude.json (every project, the default), `project`
    /// is ./.mcp.json (this folder only, shared with its repository).
    #[arg(long, value_name = "SCOPE", default_value = "user", value_parser = ["project", "user"])]
    scope: String,
    /// Write this file instead of the scope's.
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// The command the agent runs (default: this `brain` executable's absolute path, so the agent's
    /// PATH does not matter).
    #[arg(long, value_name = "CMD")]
    command: Option<String>,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let server = || {
        brain_mcp::Server::new(home.clone())
            .read_only(a.read_only)
            .output_schemas(a.output_schemas)
    };
    match a.command {
        None if a.http => {
            let listener = brain_mcp::http::bind(a.port).map_err(Failure::from)?;
            eprintln!(
                "brain mcp: listening on {} (loopback only; Ctrl-C stops)",
                listener.url()
            );
            listener.run(server())?;
            Ok(Exit::Success)
        }
        None => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            brain_mcp::serve(server(), stdin, stdout)?;
            Ok(Exit::Success)
        }
        Some(Command::Install(i)) => install_claude(i),
    }
}

fn install_claude(a: InstallArgs) -> anyhow::Result<Exit> {
    let command = match a.command {
        Some(c) => c,
        None => std::env::current_exe()?.display().to_string(),
    };
    let brain_home = brain_doc::env::os(brain_doc::env::BRAIN_HOME)
        .filter(|h| !h.is_empty())
        .and_then(|h| h.to_str())
        .map(str::to_string);
    let entry = install::entry(&command, brain_home.as_deref());
    if !a.write {
        let mut out = Stdout::new();
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&install::snippet(&entry))?
        )?;
        out.flush()?;
        eprintln!(
            "brain: add this to ~/.claude.json (every project) or a project's .mcp.json, or run with --write;"
        );
        eprintln!(
            "brain: or: claude mcp add {} -- {command} mcp",
            install::SERVER_NAME
        );
        return Ok(Exit::Success);
    }
    let path = match (a.file, a.scope.as_str()) {
        (Some(p), _) => p,
        (None, "user") => brain_store::home_dir()
            .ok_or_else(|| {
                Failure::new(ErrorCode::BadQuery, "HOME is not set").with_fix("use --file")
            })?
            .join(".claude.json"),
        (None, _) => PathBuf::from(".mcp.json"),
    };
    // Said as an absolute path: a relative one names nothing once the user has moved on.
    let path = std::path::absolute(&path).unwrap_or(path);
    let written = install::write(&path, &entry).map_err(Failure::from)?;
    match written {
        Written::Unchanged => eprintln!(
            "brain: {} already has the brain server; unchanged",
            path.display()
        ),
        Written::Created => eprintln!("brain: wrote {}", path.display()),
        Written::Updated { backup } => {
            eprintln!(
                "brain: updated {} (previous version in {})",
                path.display(),
                backup.display()
            );
        }
    }
    Ok(Exit::Success)
}
