//! wsperf: measures each binding and encoding of the WSTest messages in memory (work in progress).
fn main() {}
