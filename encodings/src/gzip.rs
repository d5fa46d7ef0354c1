//! gzip for bodies: a request inflated under a limit on its inflated size (a small body can
//! inflate a thousandfold, so the limit is what stops a gzip bomb), and an answer deflated at
//! zlib's fastest level, as servers compress what they make per request (nginx's default).

use std::io::{Read as _, Write as _};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

/// Why a gzip body was not read.
#[derive(Debug, thiserror::Error)]
pub enum InflateError {
    #[error("the body inflates past {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the body is not gzip: {0}")]
    Corrupt(std::io::Error),
}

/// Inflates `body` into `out` (cleared first), refusing at `limit` bytes of output.
pub fn inflate(body: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), InflateError> {
    out.clear();
    let mut reader = GzDecoder::new(body).take(limit as u64 + 1);
    reader.read_to_end(out).map_err(InflateError::Corrupt)?;
    if out.len() > limit {
        return Err(InflateError::TooLarge { limit });
    }
    Ok(())
}

/// Appends `bytes` gzipped to `out`.
pub fn deflate(bytes: &[u8], out: &mut Vec<u8>) {
    let mut encoder = GzEncoder::new(out, Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    let _ = encoder.finish();
}
