//! `loadgen merge`'s command line, read by the same getopt words as a run's.

use std::path::PathBuf;

use super::{Grammar, JsonOut, UsageError, Word, json_out, words};

/// `loadgen merge [--json FILE] [-e FILE] FILE.json ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    pub json: Option<JsonOut>,
    pub csv_file: Option<PathBuf>,
    pub files: Vec<PathBuf>,
}

/// `loadgen merge`'s usage line.
pub const MERGE_USAGE: &str =
    "usage: loadgen merge [--json FILE] [-e FILE] FILE.json [FILE.json ...]";

/// merge's options: `-e` and `--json` as in a run, anywhere among the files.
const MERGE: Grammar = Grammar {
    letter: |letter| matches!(letter, b'e' | b'g').then_some(true),
    long_flag: |_| false,
    positional_ends_options: false,
    unknown_letter: |letter| {
        UsageError::usage(format!(
            "unknown option -{}; {MERGE_USAGE}",
            char::from(letter)
        ))
    },
};

/// Parses `loadgen merge`'s arguments (after the word `merge`).
pub fn parse_merge(args: &[String]) -> Result<MergeOptions, UsageError> {
    let mut options = MergeOptions {
        json: None,
        csv_file: None,
        files: Vec::new(),
    };
    for arg in args {
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            if name != "json" {
                return Err(UsageError::usage(format!(
                    "unknown option --{name}; {MERGE_USAGE}"
                )));
            }
        }
    }
    let words = words(args, &MERGE).map_err(|error| {
        // getopt's words name the tool; merge's errors are said with merge's usage.
        let reason = error.message.trim_start_matches("loadgen: ");
        let reason = reason.trim_start_matches("ab: ");
        match args.last().map(String::as_str) {
            Some(last @ ("--json" | "-e")) => {
                UsageError::usage(format!("{last} needs a file; {MERGE_USAGE}"))
            }
            _ => UsageError::usage(format!("{reason}; {MERGE_USAGE}")),
        }
    })?;
    for word in words {
        match word {
            Word::Letter(b'e', file) => options.csv_file = Some(PathBuf::from(file)),
            Word::Letter(b'g', _) => {
                return Err(UsageError::usage(
                    "-g needs each request's times, and --json files keep histograms only (-e and --json work)",
                ));
            }
            Word::Long(_, value) => options.json = value.as_deref().map(json_out),
            Word::Positional(file) => options.files.push(PathBuf::from(file)),
            Word::Flag(_) | Word::Letter(..) => unreachable!("merge's grammar has only -e and -g"),
        }
    }
    if options.files.is_empty() {
        return Err(UsageError::usage(MERGE_USAGE));
    }
    Ok(options)
}
