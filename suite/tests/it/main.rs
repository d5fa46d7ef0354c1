//! Integration tests of the suite: `loadgen suite` end to end (the workspace's loadgen and
//! wstest-server binaries, misbehaving test servers, bad manifests, ab beside loadgen), and
//! `--baseline` with the report page; `loadgen suite cases` from WSDLs.

mod cases;
mod placement;
mod report;
mod runs;
