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

/// Raises the open-file limit as far as `concurrency` connections need, and says so when it
/// cannot (the default 1024 would fail `-c 2000` with "Too many open files").
pub fn raise_open_file_limit(concurrency: u32) {
    if let Err(host::FileLimit { needed, limit }) =
        host::raise_open_file_limit(u64::from(concurrency) + 64)
    {
        eprintln!(
            "loadgen: -c {concurrency} needs about {needed} open files, but the limit is {limit} (ulimit -n)"
        );
    }
}
