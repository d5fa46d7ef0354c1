//! Checks on each answer beyond ab's: `--check-xpath` (a subset of XPath 1.0, in
//! `check/path.rs`), `--check-regex`, and `--soap-faults` (an answer that is a SOAP 1.1 or 1.2
//! Fault fails, counted by its code). They need the whole body, so a run with any of them
//! keeps each answer's body (to [`MAX_CHECKED_BODY`]) and judges it once it is complete; a run
//! without them keeps nothing and costs nothing more.
//!
//! Each check is named by what the user wrote (`regex` before a regular expression), and its
//! failures are counted under that name in the report, the JSON and `merge`.

mod path;
mod xml;

pub use path::{PathCheck, PathError, Scratch};

/// The largest body a check reads: a longer answer fails every check of its kind (a fault is
/// not looked for in it), so that a server sending without end cannot fill the client's memory.
pub const MAX_CHECKED_BODY: usize = 8 << 20;

/// At most this many checks in a run (a kind's are a bit set).
pub const MAX_CHECKS: usize = 64;

/// SOAP 1.1's and 1.2's fault codes: the two paths `--soap-faults` reads.
const FAULT_CODE_PATHS: [&str; 2] = [
    "/Envelope/Body/Fault/faultcode",
    "/Envelope/Body/Fault/Code/Value",
];

/// A fault code is kept to this many characters in the counts.
const MAX_FAULT_CODE: usize = 100;

/// Why the checks could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    // The path's error is shown, not chained as a source, so that it is said once.
    #[error("--check-xpath: {0}")]
    Path(PathError),
    #[error("--check-regex {text:?}: {error}")]
    Regex { text: String, error: String },
    #[error("more than {MAX_CHECKS} checks")]
    TooMany,
}

#[derive(Debug)]
enum Matcher {
    Path(Box<PathCheck>),
    Regex(regex::bytes::Regex),
}

/// One check, named as the user wrote it.
#[derive(Debug)]
pub struct Check {
    pub name: String,
    matcher: Matcher,
}

/// Every check of a run, and whether faults are looked for.
#[derive(Debug, Default)]
pub struct AnswerChecks {
    pub checks: Vec<Check>,
    faults: Option<[PathCheck; 2]>,
}

/// What the checks made of one answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The checks that judged the answer and those that failed, a bit each by their index
    /// in [`AnswerChecks::checks`].
    pub judged: u64,
    pub failed: u64,
    /// A SOAP fault's code (`soap:Client`), with `--soap-faults`.
    pub fault: Option<String>,
}

impl AnswerChecks {
    /// The run's checks: `--check-xpath`s, then `--check-regex`s, in the order given (a mix's
    /// parts add theirs after, by [`AnswerChecks::add`]).
    pub fn new(paths: &[String], regexes: &[String], faults: bool) -> Result<Self, CheckError> {
        let mut checks = AnswerChecks::default();
        if faults {
            checks.faults =
                Some(FAULT_CODE_PATHS.map(|path| {
                    PathCheck::parse(path).expect("the fault paths are in the subset")
                }));
        }
        checks.add(paths, regexes)?;
        Ok(checks)
    }

    /// Adds checks (a check named twice is one), returning their bits.
    pub fn add(&mut self, paths: &[String], regexes: &[String]) -> Result<u64, CheckError> {
        let mut bits = 0;
        let made = paths
            .iter()
            .map(|text| -> Result<_, CheckError> {
                let path = PathCheck::parse(text).map_err(CheckError::Path)?;
                Ok((text.clone(), Matcher::Path(Box::new(path))))
            })
            .chain(regexes.iter().map(|text| -> Result<_, CheckError> {
                Ok((format!("regex {text}"), Matcher::Regex(regex(text)?)))
            }));
        for made in made {
            let (name, matcher): (String, Matcher) = made?;
            let index = match self.checks.iter().position(|check| check.name == name) {
                Some(index) => index,
                None => {
                    if self.checks.len() == MAX_CHECKS {
                        return Err(CheckError::TooMany);
                    }
                    self.checks.push(Check { name, matcher });
                    self.checks.len() - 1
                }
            };
            bits |= 1 << index;
        }
        Ok(bits)
    }

    /// Whether a kind with these checks must keep its answers' bodies.
    pub fn reads_bodies(&self, bits: u64) -> bool {
        bits != 0 || self.faults.is_some()
    }

    /// Judges a whole body (or one cut at [`MAX_CHECKED_BODY`]: `whole` false) by the checks
    /// in `bits`.
    pub fn judge(&self, bits: u64, body: &[u8], whole: bool, scratch: &mut Scratch) -> Verdict {
        if !whole {
            return Verdict {
                judged: bits,
                failed: bits,
                fault: None,
            };
        }
        let mut failed = 0;
        let mut rest = bits;
        while rest != 0 {
            let index = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let holds = match &self.checks[index].matcher {
                Matcher::Path(path) => path.holds(body, scratch),
                Matcher::Regex(regex) => regex.is_match(body),
            };
            if !holds {
                failed |= 1 << index;
            }
        }
        let fault = self.faults.as_ref().and_then(|paths| {
            paths
                .iter()
                .find_map(|path| path.first_value(body, scratch))
                .map(|code| fault_code(&code))
        });
        Verdict {
            judged: bits,
            failed,
            fault,
        }
    }
}

/// A `--check-regex`, compiled to at most 1 MiB.
pub fn regex(text: &str) -> Result<regex::bytes::Regex, CheckError> {
    regex::bytes::RegexBuilder::new(text)
        .size_limit(1 << 20)
        .build()
        .map_err(|error| CheckError::Regex {
            text: text.to_owned(),
            error: error.to_string(),
        })
}

/// A fault code as the report shows it: trimmed, cut to [`MAX_FAULT_CODE`] characters, with
/// control characters (a server's, bound for the terminal) shown as escapes.
fn fault_code(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text: String = text.trim().chars().take(MAX_FAULT_CODE).collect();
    let text = if text.is_empty() {
        "(empty)".into()
    } else {
        text
    };
    host::printable(&text).into_owned()
}
