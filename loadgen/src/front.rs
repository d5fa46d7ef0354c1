//! The two commands of the `loadgen` binary that are loadgen's own, each a few small steps
//! around the library: [`run`] (ab's front end: banner, progress, Ctrl-C, report and files
//! around [`crate::load`]) and [`merge()`] (`loadgen merge`, around [`crate::merge`]). Both
//! print and write files; nothing below them does.

mod ab;
mod files;
mod merge;
mod progress;

pub use ab::run;
pub use merge::merge;

/// Raises the open-file limit so that `concurrency` connections fit (the default 1024 would
/// fail `-c 2000` with "Too many open files"), and says so when it cannot.
pub fn allow_connections(concurrency: u32) {
    if let Err(limit) = host::raise_open_file_limit(u64::from(concurrency) + 64) {
        eprintln!("loadgen: -c {concurrency} {limit}");
    }
}
