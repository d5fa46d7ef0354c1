//! Integration tests of the `loadgen` binary: runs against misbehaving test servers (testkit's),
//! over plain TCP, TLS and HTTP/2, the same runs beside ab, weighted mixes, templates fed from data files (WS-Security
//! headers among them), shards, `--start-at` and `loadgen merge` as
//! processes, and deploy/ rendered and scripts/k8s-run.sh end to end. `loadgen suite`'s tests
//! live with the suite.

mod ab;
mod checks;
mod deploy;
mod flows;
mod h2;
mod metrics;
mod mix;
mod runs;
mod shards;
mod templates;
mod tls;
mod wsse;
