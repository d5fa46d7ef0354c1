//! ceiling: parses the command line, binds, and serves canned WSTest responses until killed.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser as _;

fn main() -> ExitCode {
    let args = ceiling::Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ceiling: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &ceiling::Args) -> anyhow::Result<()> {
    let listener = std::net::TcpListener::bind(args.addr)
        .with_context(|| format!("listening on {}", args.addr))?;
    eprintln!(
        "ceiling listening on http://{}/WSTest",
        listener.local_addr()?
    );
    ceiling::run(listener, args.n_threads())
}
