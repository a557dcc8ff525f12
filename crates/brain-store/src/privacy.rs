//! The home is private: readable by its owner alone (DESIGN: trust and privacy). Every process
//! starts with umask 077 (`brain_cli::main`), so what brain creates is 0700 / 0600 whatever the
//! user's umask; this module finds (`brain doctor`) and repairs (`brain doctor --fix`) anything in
//! the home that is not — a home made by an older version, a file copied in by hand.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Group and other permission bits: none may be set inside the home.
const SHARED_BITS: u32 = 0o077;

/// Something in the home others can read, write or enter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exposed {
    pub path: PathBuf,
    /// Its mode (permission bits only).
    pub mode: u32,
    pub is_dir: bool,
}

impl Exposed {
    /// The mode it should have: the owner's bits kept, group and other cleared.
    pub fn private_mode(&self) -> u32 {
        self.mode & !SHARED_BITS
    }
}

/// Every folder and file under `root` (itself included) with a group or other bit set. Symbolic
/// links are not followed (a collection that lives outside the home is the user's own folder).
pub fn exposed(root: &Path) -> Vec<Exposed> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode() & 0o7777;
        if mode & SHARED_BITS != 0 {
            out.push(Exposed {
                path: p.clone(),
                mode,
                is_dir: meta.is_dir(),
            });
        }
        if meta.is_dir() {
            for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                stack.push(e.path());
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Clear the group and other bits of everything [`exposed`] finds under `root`; the paths fixed,
/// or the first error.
pub fn make_private(root: &Path) -> std::io::Result<Vec<Exposed>> {
    let found = exposed(root);
    for e in &found {
        std::fs::set_permissions(&e.path, std::fs::Permissions::from_mode(e.private_mode()))?;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_bits_are_found_and_cleared_and_links_are_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("home");
        std::fs::create_dir_all(root.join("index")).expect("mkdir");
        std::fs::write(root.join("index/seg"), b"x").expect("write");
        std::fs::write(root.join("own"), b"x").expect("write");
        let outside = dir.path().join("notes");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::os::unix::fs::symlink(&outside, root.join("notes")).expect("link");
        for (p, m) in [
            ("", 0o755),
            ("index", 0o755),
            ("index/seg", 0o644),
            ("own", 0o600),
        ] {
            std::fs::set_permissions(root.join(p), std::fs::Permissions::from_mode(m))
                .expect("chmod");
        }
        let found: Vec<(String, u32)> = exposed(&root)
            .iter()
            .map(|e| {
                (
                    e.path
                        .strip_prefix(&root)
                        .expect("inside")
                        .display()
                        .to_string(),
                    e.mode,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("".to_string(), 0o755),
                ("index".into(), 0o755),
                ("index/seg".into(), 0o644)
            ]
        );
        assert_eq!(make_private(&root).expect("fix").len(), 3);
        assert!(exposed(&root).is_empty());
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("index/seg")), 0o600);
        assert_eq!(
            mode(&outside),
            0o755,
            "a linked folder outside the home is not touched"
        );
    }
}
