//! Checks on each answer beyond ab's: `--check-xpath` (a subset of XPath, in `check/path.rs`),
//! `--check-regex`, and `--faults` (a SOAP 1.1 or 1.2 fault is a failure, counted by its
//! code). They need the whole body, so a run with any of them keeps each answer's body (up to
//! [`MAX_CHECKED_BODY`]) and judges it once it is complete.

mod path;
mod xml;
pub use path::{PathCheck, PathError, Scratch};
