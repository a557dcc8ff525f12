//! Where things live outside `$BRAIN_HOME`: the running executable, Claude Code's folder, the scheduler
//! folders and commands. Read once from the environment ([`Host::from_env`]); tests build one by hand,
//! so nothing here ever touches the real crontab or `~/.claude` of the machine running them.

use std::path::PathBuf;

use brain_doc::env;

/// The machine-side facts `explain`, `doctor` and the installers need.
#[derive(Debug, Clone)]
pub struct Host {
    /// `$HOME`.
    pub user_home: PathBuf,
    /// The running `brain` (or MCP server) executable, if known.
    pub exe: Option<PathBuf>,
    /// Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (settings.json, skills/).
    pub claude_dir: PathBuf,
    /// Codex's folder: `$CODEX_HOME`, else `~/.codex` (hooks.json).
    pub codex_dir: PathBuf,
    /// Gemini CLI's folder: `~/.gemini` (settings.json).
    pub gemini_dir: PathBuf,
    /// The crontab command: `$BRAIN_CRONTAB`, else `crontab` (called as `CMD -l` and `CMD -`).
    pub crontab: String,
    /// The systemctl command: `$BRAIN_SYSTEMCTL`, else `systemctl` (called with `--user …`).
    pub systemctl: String,
    /// The launchctl command: `$BRAIN_LAUNCHCTL`, else `launchctl`.
    pub launchctl: String,
    /// systemd user units: `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    pub systemd_dir: PathBuf,
    /// launchd agents: `~/Library/LaunchAgents`.
    pub launchd_dir: PathBuf,
    /// `$BRAIN_PIPELINES`: the pipelines folder, overriding the search next to the executable.
    pub pipelines: Option<PathBuf>,
}

fn var(v: brain_doc::env::Var) -> Option<String> {
    brain_doc::env::get(v).map(str::to_string)
}

impl Host {
    /// The host as the environment describes it.
    pub fn from_env() -> Host {
        let user_home = brain_store::home_dir().unwrap_or_else(|| PathBuf::from("."));
        let config_home = var(env::XDG_CONFIG_HOME)
            .map(PathBuf::from)
            .unwrap_or_else(|| user_home.join(".config"));
        Host {
            exe: std::env::current_exe().ok(),
            claude_dir: var(env::CLAUDE_CONFIG_DIR)
                .map(PathBuf::from)
                .unwrap_or_else(|| user_home.join(".claude")),
            codex_dir: var(env::CODEX_HOME)
                .map(PathBuf::from)
                .unwrap_or_else(|| user_home.join(".codex")),
            gemini_dir: user_home.join(".gemini"),
            crontab: var(env::BRAIN_CRONTAB).unwrap_or_else(|| "crontab".into()),
            systemctl: var(env::BRAIN_SYSTEMCTL).unwrap_or_else(|| "systemctl".into()),
            launchctl: var(env::BRAIN_LAUNCHCTL).unwrap_or_else(|| "launchctl".into()),
            systemd_dir: config_home.join("systemd").join("user"),
            launchd_dir: user_home.join("Library").join("LaunchAgents"),
            pipelines: var(env::BRAIN_PIPELINES).map(PathBuf::from),
            user_home,
        }
    }

    /// Claude Code's user settings file.
    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir.join("settings.json")
    }

    /// Claude Code's user skills folder.
    pub fn claude_skills(&self) -> PathBuf {
        self.claude_dir.join("skills")
    }
}
