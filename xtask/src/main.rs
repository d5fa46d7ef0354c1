//! `cargo xtask`: the workspace's measurement loops, in Rust beside the code they measure, with
//! one process supervisor (the suite's) and one median (`host::median`); and the layout check CI
//! runs. What only the operating system can do (network namespaces, Kubernetes, images, PGO's
//! toolchain) stays in `scripts/`.
//!
//! # Map
//! - [`bench_server`]: wstest-server against the HTTP ceiling, as ratios per round.
//! - [`bench_protocols`]: what TLS and HTTP/2 cost wstest-server against what they cost the
//!   ceiling, the protocols interleaved in each round.
//! - [`bench_scale`]: ours and the ceiling on 1, 2, 4, ... server cores, loadgen on the rest.
//! - [`bench_loadgen`]: loadgen beside ab, wrk, oha and the syscall floor: CPU per request.
//! - [`bench_bindings`]: the four XML bindings through the server, interleaved.
//! - [`bench_wsperf`]: every binding and encoding in memory, pinned, into docs/results.
//! - [`suite_vs_direct`]: the suite's figure for a cell against a direct loadgen run of it.
//! - [`delay_line`]: a link's delay in user space, for kernels without netem.
//! - [`layout`]: in every crate, no module cycles, no overlong files or functions.
//! - [`docs`]: every file, script and xtask command the documentation names exists.
//! - [`check_shutdown`]: SIGTERM under full load, round after round: every request read answered.
//! - [`check_connections`]: the server's memory with 10,000 and 50,000 connections, and after.
//! - [`check_soak`]: millions of requests of every post file, hostile ones among them: memory
//!   flat, nothing failed.
//! - `conventions` (tests only): every binary's exit codes and `--help`, as GUIDE.md says.
//! - [`peak_rss`]: a program's peak memory, measured from a helper process.
//! - [`workspace`]: the workspace's paths, release builds, pinned children, dates, results files.

mod bench_bindings;
mod bench_loadgen;
mod bench_protocols;
mod bench_scale;
mod bench_server;
mod bench_wsperf;
mod check_connections;
mod check_shutdown;
mod check_soak;
#[cfg(test)]
mod conventions;
mod delay_line;
mod docs;
mod layout;
mod peak_rss;
mod suite_vs_direct;
mod workspace;

use std::process::ExitCode;

use clap::Parser as _;

/// The workspace's measurement loops and layout check.
#[derive(Debug, clap::Parser)]
#[command(name = "cargo xtask", version, about)]
enum Task {
    BenchServer(bench_server::Args),
    BenchProtocols(bench_protocols::Args),
    BenchLoadgen(bench_loadgen::Args),
    BenchScale(bench_scale::Args),
    BenchBindings(bench_bindings::Args),
    BenchWsperf(bench_wsperf::Args),
    SuiteVsDirect(suite_vs_direct::Args),
    CheckLayout(layout::Args),
    CheckDocs(docs::Args),
    CheckShutdown(check_shutdown::Args),
    CheckConnections(check_connections::Args),
    CheckSoak(check_soak::Args),
    DelayLine(delay_line::Args),
    /// Runs a program and prints its peak resident memory in kB (a helper of bench-loadgen).
    #[command(hide = true)]
    PeakRss(peak_rss::Args),
}

fn main() -> ExitCode {
    let outcome = match Task::parse() {
        Task::BenchServer(args) => bench_server::run(&args),
        Task::BenchProtocols(args) => bench_protocols::run(&args),
        Task::BenchLoadgen(args) => bench_loadgen::run(&args),
        Task::BenchScale(args) => bench_scale::run(&args),
        Task::BenchBindings(args) => bench_bindings::run(&args),
        Task::BenchWsperf(args) => bench_wsperf::run(&args),
        Task::SuiteVsDirect(args) => suite_vs_direct::run(&args),
        Task::CheckLayout(args) => layout::run(&args),
        Task::CheckDocs(args) => docs::run(&args),
        Task::CheckShutdown(args) => check_shutdown::run(&args),
        Task::CheckConnections(args) => check_connections::run(&args),
        Task::CheckSoak(args) => check_soak::run(&args),
        Task::DelayLine(args) => delay_line::run(&args),
        Task::PeakRss(args) => peak_rss::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cargo xtask: {error:#}");
            ExitCode::FAILURE
        }
    }
}
