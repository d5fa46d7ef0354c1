//! wstest-server: parses the command line, binds, and runs the WSTest service until SIGINT or
//! SIGTERM.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser as _;

// jemalloc, with its background thread on (the `background_threads` feature; without it,
// freed pages go back only when the server allocates again): it answers as fast as mimalloc did (faster on
// EchoVoid and the 100-sized echoes), and gives freed memory back to the system while the
// server is idle, so that RSS returns to near its idle value within 10 s of a burst of 10,000
// connections closing; mimalloc and glibc kept all of it (docs/results/connections.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let args = server::config::Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wstest-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &server::config::Args) -> anyhow::Result<()> {
    let config = args.config()?;
    let listener =
        server::bind(args.addr).with_context(|| format!("listening on {}", args.addr))?;
    let addr = listener.local_addr()?;
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    eprintln!(
        "{} ({} threads, binding {}); try: ab -k -c 30 -n 100000 -T 'text/xml; charset=utf-8' -H 'SOAPAction: \"uri:WSTestWeb-TestService/GetOrder\"' -p post_files/getorder20.xml {scheme}://{addr}/WSTest",
        host::listening::line("wstest-server", format_args!("{scheme}://{addr}/WSTest")),
        config.n_threads,
        config.binding.binding().name()
    );
    if let (Some(metrics_addr), Some(metrics)) = (args.metrics, &config.metrics) {
        let metrics_listener = std::net::TcpListener::bind(metrics_addr)
            .with_context(|| format!("listening for --metrics on {metrics_addr}"))?;
        let bound = metrics_listener.local_addr()?;
        server::metrics::serve(metrics_listener, metrics.registry())
            .context("starting the metrics thread")?;
        eprintln!(
            "{}",
            host::listening::line(
                "wstest-server metrics",
                format_args!("http://{bound}/metrics")
            )
        );
    }
    let served = server::run(listener, config, server::shutdown_signal())?;
    eprintln!("wstest-server: stopped: {served}");
    Ok(())
}
