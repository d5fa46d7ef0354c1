//! loadgen: an ApacheBench-compatible load generator (HTTP/1.x, TLS, HTTP/2), as a library. It knows nothing
//! about SOAP, and nothing of the suite above it; the `loadgen` binary (package `loadgen-cli`)
//! holds the commands' front ends (progress, Ctrl-C, the report and files) above [`cli`],
//! [`load`] and the `suite` crate.
//!
//! # Map
//! Leaves (they use no other module): [`url`], [`pace`], [`http`], [`http2`].
//! - [`options`]: what a run is asked to do, in typed groups; [`options::TestIdentity`].
//! - [`cli`]: ab's command line (and loadgen's long options, and merge's) into [`options`];
//!   [`cli::flags`], the one table of every option, from which the grammar, the usage text
//!   and GUIDE.md's table come.
//! - [`url`]: `[http://]host[:port]/path` and `host:port`, as ab reads them.
//! - [`pace`]: `--rate R` and `--rate A..B` (a ramp), and the send times they make.
//! - [`mix`]: `--mix FILE` and `-p FILE@W`: several kinds of request by weight, and the
//!   seeded order that numbers them ([`mix::Picker`]).
//! - [`flow`]: a mix's `[flow]` as each connection walks it: its steps in order, values saved
//!   from an answer (`--save`) for the later steps' templates, a pass failed at its step.
//! - [`shard`]: `--shard`: a test's shares of `-n`, `-c` and `--rate`.
//! - [`clock`]: `--start-at`'s forms, and times as reports print them.
//! - `field`: what may go on the wire in a request's head (a field's name and value, a path),
//!   checked where it is read and where a request is built.
//! - `request`: the request bytes, built once, or the request's templates.
//! - [`template`]: `--template` and `--data FILE`: placeholders in the path, header values
//!   and body, filled for each request from a data file's row or a function, rendered into
//!   the connection's buffer.
//! - [`check`]: `--check-xpath` (a subset of XPath 1.0 walked over an answer's bytes),
//!   `--check-regex`, `--soap-faults`: each whole answer judged, failures counted by name.
//! - [`exchange`]: one request and its whole answer on a blocking socket (TLS for https).
//! - [`http`]: a sans-IO response parser (Content-Length, chunked, close-delimited).
//! - [`http2`]: a sans-IO HTTP/2 client for one request sent again and again: frames, flow
//!   control, HPACK (the request's block encoded once).
//! - `engine`: one mio event loop per thread acting on its connections' outcomes; a
//!   connection turns readiness into an outcome and counts nothing, over TCP or TLS (rustls by
//!   hand); `--http2` on [`http2`], a tokio runtime a thread; the plan and shared state.
//! - `schedule`: which request a thread sends next and when (claims, warm-up, time limit,
//!   `--rate`); no IO, no clock, unit-tested with made-up instants.
//! - [`stats`]: samples, counters and histograms; ab's accounting of each outcome
//!   ([`stats::ThreadStats::count_complete`]) and ab's arithmetic ([`stats::Table`]).
//! - [`report`]: ab's text and HTML reports, `-e`, `-g`, and loadgen's extended section.
//! - [`live`]: `--metrics`' and `--prom-remote-write`'s counts while the run goes, as
//!   Prometheus text or a remote-write request.
//! - [`json`]: `--json` files (or `--json -` on stdout) and reading them back.
//! - [`merge`](mod@merge): runs of one test added up on the wall clock, exactly.
//! - [`load`]: the load and nothing else: a plan from the options, [`load::execute`] to
//!   [`stats::Results`]; no files, signals or progress (the engine's [`load::Plan`] and
//!   [`load::Shared`] are named here); engine, schedule and request are the crate's own.

pub mod check;
pub mod cli;
pub mod clock;
mod engine;
pub mod exchange;
mod field;
pub mod flow;
pub mod http;
pub mod http2;
pub mod json;
pub mod live;
pub mod load;
pub mod merge;
pub mod mix;
pub mod options;
pub mod pace;
pub mod report;
mod request;
mod schedule;
pub mod shard;
pub mod stats;
pub mod template;
pub mod url;
