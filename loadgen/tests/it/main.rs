//! Integration tests of loadgen: the command line, the response parser, ab's accounting, the
//! report's text, the binary against misbehaving test servers and beside ab, shards and
//! merging, the Kubernetes manifests and scripts/k8s-run.sh, and `loadgen suite`.

mod ab;
mod cli;
mod deploy;
mod http;
mod report;
mod runs;
mod servers;
mod shards;
mod stats;
mod suite;

/// Compares `actual` with the file at `path`; `UPDATE_EXPECT=1` rewrites the file first.
#[track_caller]
pub(crate) fn check_expected(path: &std::path::Path, actual: &str) {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs; run UPDATE_EXPECT=1 cargo test -p loadgen and review the diff\n--- expected\n{expected}--- actual\n{actual}",
        path.display()
    );
}
