use clap::Parser as _;

/// The exit code of a run where some row was wrong, as `loadgen suite`'s for a wrong answer.
const WRONG_EXIT_CODE: u8 = 3;

fn main() -> std::process::ExitCode {
    let args = wsperf::Args::parse();
    let outcome = match &args.command {
        Some(wsperf::Command::Relay(relay)) => {
            wsperf::relay(&relay.addr).map(|()| wsperf::Outcome::default())
        }
        None => wsperf::run(&args),
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
