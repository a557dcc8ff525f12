//! The attic: where an automatic repair puts a file it would otherwise delete. No fix brain makes
//! by itself destroys a document the user cannot get back (issue 37): it moves the file to
//! `$BRAIN_HOME/attic/<YYYY-MM-DD>/<collection>/<path>` (UTC day of the move) and says where.
//! The attic is outside every collection, so nothing in it is indexed; putting a file back is a
//! `mv` into its collection and `lexindex --all`.

use std::path::{Path, PathBuf};

use crate::Home;

/// The attic folder of `home`.
pub fn dir(home: &Home) -> PathBuf {
    home.root().join("attic")
}

/// Move `file` (document `rel` of `collection`) into today's attic folder, keeping its path; a
/// name already taken there gets `.1`, `.2`, … appended. Folders are made private (0700) and the
/// move is a rename (a copy and delete when the attic is on another file system). Returns where
/// the file is now.
pub fn move_aside(
    home: &Home,
    file: &Path,
    collection: &str,
    rel: &str,
) -> std::io::Result<PathBuf> {
    let day = crate::clock::now().strftime("%Y-%m-%d").to_string();
    let safe: PathBuf = Path::new(collection)
        .join(rel)
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect();
    let mut dest = dir(home).join(day).join(&safe);
    let mut n = 0u32;
    while dest.symlink_metadata().is_ok() {
        n += 1;
        let name = safe
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        dest.set_file_name(format!("{name}.{n}"));
    }
    if let Some(parent) = dest.parent() {
        private_dirs(parent)?;
    }
    match std::fs::rename(file, &dest) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(18) => {
            // EXDEV: another file system.
            std::fs::copy(file, &dest)?;
            std::fs::File::open(&dest)?.sync_all()?;
            std::fs::remove_file(file)?;
        }
        Err(e) => {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{} -> {}: {e}", file.display(), dest.display()),
            ));
        }
    }
    if let Some(parent) = dest.parent() {
        let _ = std::fs::File::open(parent).and_then(|d| d.sync_all());
    }
    Ok(dest)
}

/// `create_dir_all` with every folder it makes 0700.
fn private_dirs(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_moved_aside_keeps_its_bytes_and_never_overwrites_another() {
        let root = tempfile::tempdir().expect("tempdir");
        let home = Home::at(root.path());
        for i in 0..3 {
            let f = root.path().join(format!("src{i}.md"));
            std::fs::write(&f, format!("copy {i}")).expect("write");
            let to = move_aside(&home, &f, "brain", "2026/01/a.md").expect("move");
            assert!(!f.exists());
            assert_eq!(
                std::fs::read_to_string(&to).expect("read"),
                format!("copy {i}")
            );
            assert!(to.starts_with(dir(&home)), "{}", to.display());
        }
        let day = std::fs::read_dir(dir(&home))
            .expect("attic")
            .flatten()
            .next()
            .expect("a day")
            .path();
        let folder = day.join("brain/2026/01");
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .expect("folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.md", "a.md.1", "a.md.2"]);
        let mode = std::fs::metadata(&folder)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn a_path_that_tries_to_escape_stays_in_the_attic() {
        let root = tempfile::tempdir().expect("tempdir");
        let home = Home::at(root.path().join("home"));
        let f = root.path().join("x.md");
        std::fs::write(&f, "x").expect("write");
        let to = move_aside(&home, &f, "..", "../../../etc/x.md").expect("move");
        assert!(to.starts_with(dir(&home)), "{}", to.display());
    }
}
