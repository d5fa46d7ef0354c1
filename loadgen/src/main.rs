//! `loadgen`: parse the command line, run (or merge, or run the suite), map the outcome to an
//! exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = if args.first().map(String::as_str) == Some("merge") {
        loadgen::merge(&args[1..])
    } else if args.first().map(String::as_str) == Some("suite") {
        suite::run(&args[1..], &loadgen::cell::Loadgen)
    } else {
        match loadgen::cli::parse(&args) {
            Ok(settings) => loadgen::run(&settings, &args),
            Err(error) => {
                eprintln!("{error}");
                eprint!("{}", loadgen::cli::usage("loadgen"));
                return exit_code(error.exit_code);
            }
        }
    };
    match outcome {
        Ok(code) => exit_code(code),
        Err(error) => {
            eprintln!("loadgen: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from((code & 0xff) as u8)
}
