//! The two commands of the `loadgen` binary that are loadgen's own, each a few small steps
//! around the library: [`run`] (ab's front end: banner, progress, Ctrl-C, report and files
//! around [`loadgen::load`]) and [`merge()`] (`loadgen merge`, around [`loadgen::merge`]). Both
//! print and write files; nothing below them does.

mod ab;
mod files;
mod merge;
mod progress;
mod remote_write;

pub(crate) use ab::run;
pub(crate) use merge::merge;

/// Raises the open-file limit so that `concurrency` connections fit, and says so when it
/// cannot.
fn allow_connections(concurrency: u32) {
    if let Err(limit) = loadgen::load::allow_connections(concurrency) {
        eprintln!("loadgen: -c {concurrency} {limit}");
    }
}
