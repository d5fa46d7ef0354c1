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
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(tls::server_config(cert, key)?),
        _ => None,
    };
    let listener = std::net::TcpListener::bind(args.addr)
        .with_context(|| format!("listening on {}", args.addr))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://{}/WSTest", listener.local_addr()?);
    eprintln!("{}", host::listening::line("ceiling", url));
    ceiling::run(listener, args.n_threads(), tls)
}
