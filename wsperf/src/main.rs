use clap::Parser as _;

/// The exit code of a run where some row was wrong, as `loadgen suite`'s for a wrong answer.
const WRONG_EXIT_CODE: u8 = 3;

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
        wsperf::relay(&args.listen).map(|()| wsperf::Outcome::default())
    } else {
        wsperf::run(&wsperf::Args::parse())
    };
    match outcome {
        Ok(outcome) if outcome.wrong_rows > 0 => {
            eprintln!(
                "wsperf: {} row(s) wrong: an implementation misread a document (the rows say why)",
                outcome.wrong_rows
            );
            std::process::ExitCode::from(WRONG_EXIT_CODE)
        }
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wsperf: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
