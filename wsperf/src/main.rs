use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let mut argv = std::env::args_os();
    let outcome = if std::env::args_os()
        .nth(1)
        .is_some_and(|word| word == "relay")
    {
        argv.next();
        let args = wsperf::RelayArgs::parse_from(
            std::iter::once("wsperf relay".into()).chain(argv.skip(1)),
        );
        wsperf::relay(&args.listen)
    } else {
        wsperf::run(&wsperf::Args::parse())
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wsperf: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
