//! Atomic, durable file writes: write a temp file beside the target, fsync it, rename it over the
//! target, fsync the folder.
//!
//! A reader sees either the old file or the new one, never a torn one; a crash mid-write leaves the old
//! file in place and at most a stray temp file (named `.<name>.*.tmp`) that the next write ignores.
//! The folder's fsync makes the rename itself durable: without it a power cut after "saved" can bring
//! back the old file (or none), on ext4 and others. New files are 0600 (tempfile's mode), whatever the
//! umask.

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set for a process that must write nothing at all (`brain mcp --read-only`).
static READ_ONLY: AtomicBool = AtomicBool::new(false);

/// Make this process write nothing: every [`write`] fails with `PermissionDenied`, and the other
/// writers of the home (telemetry, the access log, working memory, locks) check [`read_only`] and
/// skip their write. For a server that promised its client not to change the memory.
pub fn set_read_only() {
    READ_ONLY.store(true, Ordering::Relaxed);
}

/// Whether [`set_read_only`] was called in this process.
pub fn read_only() -> bool {
    READ_ONLY.load(Ordering::Relaxed)
}

/// Write `bytes` to `path` atomically, creating parent folders as needed.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if read_only() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{}: not written (a read-only session)", path.display()),
        ));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| annotate(e, dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| annotate(e, dir))?;
    tmp.write_all(bytes).map_err(|e| annotate(e, path))?;
    tmp.as_file().sync_data().map_err(|e| annotate(e, path))?;
    tmp.persist(path).map_err(|e| annotate(e.error, path))?;
    sync_dir(dir).map_err(|e| annotate(e, dir))
}

/// fsync a folder, so a rename into it survives a power cut.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

fn annotate(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_leave_no_temp_behind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a/b/c.md");
        write(&p, b"first").expect("write");
        write(&p, b"second").expect("write");
        assert_eq!(std::fs::read(&p).expect("read"), b"second");
        let names: Vec<_> = std::fs::read_dir(p.parent().expect("parent"))
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("c.md")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_written_file_is_private_whatever_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("secret.md");
        write(&p, b"x").expect("write");
        let mode = std::fs::metadata(&p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
