use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = wsperf::Args::parse();
    match wsperf::run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wsperf: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
