//! Files a user names (a mix file, a request body, a WSDL), read whole only when they are
//! regular files within a limit: `/dev/zero` would fill memory, and a FIFO would block the
//! read until someone writes to it.

use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path}: not a regular file (a device, a FIFO, a socket or a folder): only files are read"
    )]
    NotRegular { path: String },
    #[error("{path}: larger than {limit} bytes, the most it may be")]
    TooLarge { path: String, limit: u64 },
}

/// The bytes of the regular file at `path` (a link to one is followed), refused when it holds
/// more than `limit` bytes.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let name = || path.display().to_string();
    let io = |source| FileError::Io {
        path: name(),
        source,
    };
    let (file, len) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(len as usize);
    // A file that grows while it is read stops at the limit too.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: name(),
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_limited`], as UTF-8 text.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, FileError> {
    let bytes = read_limited(path, limit)?;
    String::from_utf8(bytes).map_err(|_| FileError::Io {
        path: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// The regular file at `path`, open to be read as a stream, and its length; refused as
/// [`read_limited`] refuses. A reader that must not pass `limit` either takes
/// `limit + 1` bytes of it and refuses the last.
pub fn open_regular(path: &Path, limit: u64) -> Result<(std::fs::File, u64), FileError> {
    let name = || path.display().to_string();
    let io = |source| FileError::Io {
        path: name(),
        source,
    };
    // Opened without blocking (a FIFO's open waits for a writer otherwise), then judged by
    // what was opened, so that a file swapped after a look cannot pass.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(FileError::NotRegular { path: name() });
    }
    if metadata.len() > limit {
        return Err(FileError::TooLarge {
            path: name(),
            limit,
        });
    }
    Ok((file, metadata.len()))
}

/// A stream of the regular file at `path` ([`open_regular`]) that fails, rather than stops,
/// should the file grow past `limit` while it is read: nothing is silently cut off.
pub fn stream_limited(path: &Path, limit: u64) -> Result<impl std::io::Read, FileError> {
    let (file, _) = open_regular(path, limit)?;
    Ok(Capped {
        inner: file.take(limit + 1),
        left: limit,
    })
}

/// [`stream_limited`]'s reader.
struct Capped {
    inner: std::io::Take<std::fs::File>,
    left: u64,
}

impl std::io::Read for Capped {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buffer)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "grew past its limit while read",
            )
        })?;
        Ok(n)
    }
}
