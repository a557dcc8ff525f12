//! The index as a process that writes nothing opens it (`brain mcp --read-only`,
//! [`brain_doc::atomic::read_only`]): tantivy's mmap directory with every write refused, and the
//! reader's meta lock taken as usual where it can be, skipped on a read-only file system (a home
//! on a read-only mount or a snapshot, where no writer can run either). A reader opening the lock
//! file of a home it can write changes no byte of it (the file exists; the lock is `flock`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

#[derive(Clone, Debug)]
pub(crate) struct ReadOnlyDir(MmapDirectory);

impl ReadOnlyDir {
    pub(crate) fn open(dir: &Path) -> Result<ReadOnlyDir, tantivy::TantivyError> {
        Ok(ReadOnlyDir(MmapDirectory::open(dir)?))
    }
}

fn refused(path: &Path) -> Arc<io::Error> {
    Arc::new(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{}: not written (a read-only session)", path.display()),
    ))
}

impl Directory for ReadOnlyDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: refused(path),
            filepath: PathBuf::from(path),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: refused(path),
            filepath: PathBuf::from(path),
        })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            refused(path).to_string(),
        ))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        match self.0.acquire_lock(lock) {
            Err(LockError::IoError(e)) if e.kind() == io::ErrorKind::ReadOnlyFilesystem => {
                Ok(DirectoryLock::from(Box::new(())))
            }
            other => other,
        }
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(watch_callback)
    }
}
