//! `loadgen`: parses the command line, runs ab's front end, `loadgen merge` or `loadgen
//! suite`, and maps the outcome to an exit code.
//!
//! # Map
//! - `front`: the commands that are loadgen's own, each a few steps around the library: ab's
//!   front end (banner, progress, Ctrl-C, report and files around `loadgen::load`) and `loadgen
//!   merge` (around `loadgen::merge`). They print and write files; the library does not.
//! - `usage`: the usage text of `-h` and of a usage error.

mod front;
mod usage;

use std::process::ExitCode;

use loadgen::cli::{self, Invocation};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("suite") => suite::run(&args[1..]),
        Some("merge") => match cli::parse_merge(&args[1..]) {
            Ok(options) => front::merge(&options, &args),
            Err(error) => {
                eprintln!("loadgen: {error}");
                return exit_code(error.exit_code);
            }
        },
        _ => match cli::parse(&args) {
            Ok(Invocation::Run(options)) => front::run(&options, &args),
            Ok(Invocation::Version) => {
                host::out!("{}", loadgen::report::banner(false));
                return ExitCode::SUCCESS;
            }
            Ok(Invocation::Help) => {
                eprint!("{}", usage::usage("loadgen"));
                return exit_code(cli::USAGE_EXIT_CODE);
            }
            Err(error) => {
                eprintln!("{error}");
                // As ab: the usage text after a usage error, not after a bad value.
                if error.exit_code == cli::USAGE_EXIT_CODE {
                    eprint!("{}", usage::usage("loadgen"));
                }
                return exit_code(error.exit_code);
            }
        },
    };
    match outcome {
        Ok(code) => exit_code(code),
        Err(error) => {
            eprintln!("loadgen: {error:#}");
            // A template, its data or a check that cannot be used is the user's input, refused
            // before the first request: 2, apart from a run that failed (1).
            let input = error.chain().any(|cause| {
                cause.is::<loadgen::template::TemplateError>()
                    || cause.is::<loadgen::check::CheckError>()
            });
            exit_code(if input { INPUT_EXIT_CODE } else { 1 })
        }
    }
}

/// The exit code of a template, a data file or a check that cannot be used.
const INPUT_EXIT_CODE: i32 = 2;

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from((code & 0xff) as u8)
}
