//! Weighted mixes: several kinds of request in one run (`--mix FILE`, or `-p FILE@W` given
//! more than once), each sent in proportion to its weight, in an order fixed by `--seed`.
//!
//! The order is a function of the request's number in the run, not of the threads: the run's
//! requests are numbered as the threads claim them (`schedule`), and request `i` is of
//! [`Picker::kind`]`(i)`. The numbers run in blocks of `W` (the weights' sum, over their
//! greatest common divisor); each block is a permutation of a deck holding each kind as many
//! times as its weight, so every whole block has the exact proportions (`-n 1000` at 70/30
//! sends exactly 700 and 300), and the permutation is drawn afresh for each block from the
//! seed. The permutation is affine (`q = a·p + c mod W`, `a` prime to `W`): two
//! multiplications a request where a shuffled deck per block would cost an allocation.
//!
//! A mix file has a part a line: weight, name, method, the URL's path, the body file (`-` for
//! none), then any of `-T TYPE`, `-H 'Name: value'`, `--expect-status N`, `--expect-body
//! TEXT`, `--reject-body TEXT`, `--check-xpath EXPR`, `--check-regex RE` (these two more than
//! once), quoted as a shell would. `#` starts a comment line.

use std::path::{Path, PathBuf};

use crate::options::Header;
pub use crate::options::{Mix, Part};

/// The largest sum of weights (over their common divisor): a block of the order.
pub const MAX_TOTAL_WEIGHT: u64 = 1_000_000;
/// The most kinds a mix may have: each costs its latency histograms (about 376 KB a thread) and
/// its request bytes, so a thousand would cost gigabytes before the first request.
pub const MAX_KINDS: usize = 100;
/// The longest name a kind may have, in characters: the report's table is as wide as the
/// longest.
pub const MAX_NAME_CHARS: usize = 200;
/// The largest mix file read (a hundred parts with long options are a few tens of KB).
pub const MAX_MIX_FILE: u64 = 1 << 20;
/// The seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 1;

impl Part {
    /// A part that is the command line's request but for its body and weight: `-p FILE@W`.
    pub fn weighted_body(method: http::Method, body_file: PathBuf, weight: u32) -> Part {
        let name = body_file.file_stem().map_or_else(
            || body_file.display().to_string(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        Part {
            name,
            weight,
            method,
            path: None,
            body_file: Some(body_file),
            content_type: None,
            headers: Vec::new(),
            expect_status: None,
            expect_body: None,
            reject_body: None,
            check_xpath: Vec::new(),
            check_regex: Vec::new(),
        }
    }
}

/// Why a mix cannot be used, naming the line or the part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MixError {
    #[error("{file}: {error}")]
    Read { file: String, error: String },
    #[error("{file}:{line}: {what}")]
    Line {
        file: String,
        line: usize,
        what: String,
    },
    #[error("a mix needs at least one part")]
    Empty,
    #[error("two parts of the mix are named {0:?}")]
    DuplicateName(String),
    #[error("a mix may have at most {MAX_KINDS} parts")]
    TooMany,
    #[error(
        "the part name {0:?} is not 1 to {MAX_NAME_CHARS} characters without control characters"
    )]
    BadName(String),
    #[error(
        "the weights add up to {0} (over their common divisor), above the {MAX_TOTAL_WEIGHT} a mix may have"
    )]
    TooHeavy(u64),
}

impl Mix {
    /// Reads a mix file; body files are taken relative to its folder.
    pub fn read(path: &Path, seed: u64) -> Result<Mix, MixError> {
        let file = path.display().to_string();
        let text =
            host::file::read_text_limited(path, MAX_MIX_FILE).map_err(|error| MixError::Read {
                file: file.clone(),
                error: error.to_string(),
            })?;
        let folder = path.parent().unwrap_or(Path::new(""));
        Mix::parse(&text, &file, folder, seed)
    }

    /// Parses a mix file's `text` (named `file` in errors), body files relative to `folder`.
    pub fn parse(text: &str, file: &str, folder: &Path, seed: u64) -> Result<Mix, MixError> {
        let mut parts = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let at = |what: String| MixError::Line {
                file: file.to_owned(),
                line: index + 1,
                what,
            };
            if parts.len() == MAX_KINDS {
                return Err(at(MixError::TooMany.to_string()));
            }
            parts.push(parse_line(trimmed, folder).map_err(at)?);
        }
        Mix::new(parts, seed)
    }

    /// A mix of `parts`, checked: at least one, names unique, weights that make a block.
    pub fn new(parts: Vec<Part>, seed: u64) -> Result<Mix, MixError> {
        if parts.is_empty() {
            return Err(MixError::Empty);
        }
        if parts.len() > MAX_KINDS {
            return Err(MixError::TooMany);
        }
        let mut names = std::collections::HashSet::new();
        for part in &parts {
            let chars = part.name.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS || part.name.chars().any(char::is_control) {
                let shown: String = part.name.chars().take(MAX_NAME_CHARS).collect();
                return Err(MixError::BadName(shown));
            }
            if !names.insert(part.name.as_str()) {
                return Err(MixError::DuplicateName(part.name.clone()));
            }
        }
        let mix = Mix { seed, parts };
        let total = mix.reduced_weights().iter().sum::<u64>();
        if total > MAX_TOTAL_WEIGHT {
            return Err(MixError::TooHeavy(total));
        }
        Ok(mix)
    }

    /// The weights over their greatest common divisor.
    fn reduced_weights(&self) -> Vec<u64> {
        let weights: Vec<u64> = self.parts.iter().map(|p| u64::from(p.weight)).collect();
        let divisor = weights.iter().copied().fold(0, gcd).max(1);
        weights.iter().map(|weight| weight / divisor).collect()
    }

    /// The mix as a file [`Mix::parse`] reads back (body files as given).
    pub fn to_file(&self) -> String {
        let mut text = String::from("# weight name method path body [options]\n");
        for part in &self.parts {
            let quote = |word: &str| {
                shlex::try_quote(word).map_or_else(|_| format!("{word:?}"), |q| q.into_owned())
            };
            let mut words = vec![
                part.weight.to_string(),
                quote(&part.name),
                part.method.to_string(),
                quote(part.path.as_deref().unwrap_or("-")),
                quote(
                    &part
                        .body_file
                        .as_ref()
                        .map_or("-".to_owned(), |path| path.display().to_string()),
                ),
            ];
            if let Some(content_type) = &part.content_type {
                words.extend(["-T".to_owned(), quote(content_type)]);
            }
            for header in &part.headers {
                words.extend(["-H".to_owned(), quote(&header.line())]);
            }
            if let Some(status) = part.expect_status {
                words.extend(["--expect-status".to_owned(), status.as_u16().to_string()]);
            }
            if let Some(text) = &part.expect_body {
                words.extend(["--expect-body".to_owned(), quote(text)]);
            }
            if let Some(text) = &part.reject_body {
                words.extend(["--reject-body".to_owned(), quote(text)]);
            }
            for path in &part.check_xpath {
                words.extend(["--check-xpath".to_owned(), quote(path)]);
            }
            for regex in &part.check_regex {
                words.extend(["--check-regex".to_owned(), quote(regex)]);
            }
            text.push_str(&words.join(" "));
            text.push('\n');
        }
        text
    }

    /// The order of the run's requests.
    pub fn picker(&self) -> Picker {
        let weights = self.reduced_weights();
        let total = weights.iter().sum::<u64>().max(1);
        let mut ends = Vec::with_capacity(weights.len());
        let mut end = 0;
        for weight in &weights {
            end += weight;
            ends.push(end);
        }
        // Multipliers prime to the block's size, spread over it: each block draws one.
        let step = (total / 64).max(1);
        let multipliers: Vec<u64> = (1..total.max(2))
            .step_by(step as usize)
            .filter(|a| gcd(*a, total) == 1)
            .take(64)
            .collect();
        Picker {
            seed: self.seed,
            total,
            ends,
            multipliers: if multipliers.is_empty() {
                vec![1]
            } else {
                multipliers
            },
        }
    }
}

/// One line of a mix file: `WEIGHT NAME METHOD PATH BODY [options]`.
fn parse_line(line: &str, folder: &Path) -> Result<Part, String> {
    let words = shlex::split(line).ok_or("an unclosed quote")?;
    // No word may hold a NUL: no file name, header or text can, and a mix written back could
    // not quote it (found by the mix_file fuzz target: a body file name with NULs).
    if words.iter().any(|word| word.contains('\0')) {
        return Err("a NUL byte".to_owned());
    }
    let [weight, name, method, path, body, options @ ..] = words.as_slice() else {
        return Err(format!(
            "expected WEIGHT NAME METHOD PATH BODY [options], found {} words",
            words.len()
        ));
    };
    let weight = weight
        .parse::<u32>()
        .ok()
        .filter(|weight| *weight > 0)
        .ok_or_else(|| format!("the weight {weight:?} is not a whole number above 0"))?;
    let method = http::Method::from_bytes(method.as_bytes())
        .map_err(|_| format!("{method:?} is not an HTTP method"))?;
    let path = match path.as_str() {
        "-" => None,
        path if path.starts_with('/') => {
            crate::field::check_target(path)?;
            Some(path.to_owned())
        }
        path => return Err(format!("the path {path:?} does not start with /")),
    };
    let body_file = (body != "-").then(|| folder.join(body));
    let mut part = Part {
        name: name.clone(),
        weight,
        method,
        path,
        body_file,
        content_type: None,
        headers: Vec::new(),
        expect_status: None,
        expect_body: None,
        reject_body: None,
        check_xpath: Vec::new(),
        check_regex: Vec::new(),
    };
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let value = options
            .next()
            .ok_or_else(|| format!("{option} wants a value"))?;
        match option.as_str() {
            "-T" => {
                crate::field::check_field("Content-type", value)
                    .map_err(|why| format!("-T: {why}"))?;
                part.content_type = Some(value.clone());
            }
            "-H" => part
                .headers
                .push(Header::parse(value).map_err(|why| format!("-H {value:?}: {why}"))?),
            "--expect-status" => {
                part.expect_status = Some(
                    value
                        .parse::<u16>()
                        .ok()
                        .and_then(|code| http::StatusCode::from_u16(code).ok())
                        .ok_or_else(|| format!("--expect-status {value:?}: not a status code"))?,
                )
            }
            "--expect-body" => part.expect_body = Some(value.clone()),
            "--reject-body" => part.reject_body = Some(value.clone()),
            "--check-xpath" => {
                crate::check::PathCheck::parse(value)
                    .map_err(|error| format!("{option} {error}"))?;
                part.check_xpath.push(value.clone());
            }
            "--check-regex" => {
                crate::check::regex(value).map_err(|error| error.to_string())?;
                part.check_regex.push(value.clone());
            }
            other => {
                return Err(format!(
                    "unknown option {other} (a part takes -T, -H, --expect-status, --expect-body, --reject-body, --check-xpath, --check-regex)"
                ));
            }
        }
    }
    Ok(part)
}

/// Which kind request `i` of a run is: see the module's description.
#[derive(Debug, Clone)]
pub struct Picker {
    seed: u64,
    /// The block's size: the reduced weights' sum.
    total: u64,
    /// Where each kind's positions in the deck end.
    ends: Vec<u64>,
    multipliers: Vec<u64>,
}

impl Picker {
    /// The kind of request `ordinal`.
    pub fn kind(&self, ordinal: u64) -> usize {
        let (block, position) = (ordinal / self.total, ordinal % self.total);
        let draw = splitmix64(self.seed ^ splitmix64(block));
        let a = self.multipliers[(draw % self.multipliers.len() as u64) as usize];
        let c = (draw >> 32) % self.total;
        // total <= MAX_TOTAL_WEIGHT, so the product fits in 64 bits.
        let card = (a * position + c) % self.total;
        self.ends.partition_point(|end| *end <= card)
    }

    /// The number of kinds.
    pub fn n_kinds(&self) -> usize {
        self.ends.len()
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A 64-bit mixing function (Steele, Lea and Flood's SplitMix64 finaliser).
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, weight: u32) -> Part {
        Part::weighted_body(http::Method::POST, PathBuf::from(name), weight)
    }

    fn counts(picker: &Picker, range: std::ops::Range<u64>) -> Vec<u64> {
        let mut counts = vec![0; picker.n_kinds()];
        for ordinal in range {
            counts[picker.kind(ordinal)] += 1;
        }
        counts
    }

    #[test]
    fn whole_blocks_have_the_exact_proportions() {
        let cases: &[(&[u32], u64, &[u64])] = &[
            (&[70, 30], 1000, &[700, 300]),
            (&[1, 1], 10, &[5, 5]),
            (&[3, 5, 2], 100, &[30, 50, 20]),
            (&[7], 9, &[9]),
            (&[997, 3], 2000, &[1994, 6]),
        ];
        for (weights, n, expected) in cases {
            let parts = weights
                .iter()
                .enumerate()
                .map(|(i, w)| part(&format!("k{i}"), *w))
                .collect();
            let picker = Mix::new(parts, 42).unwrap().picker();
            assert_eq!(counts(&picker, 0..*n), *expected, "weights {weights:?}");
            // Any whole block, anywhere in the run, has the reduced weights.
            let blocks = n / picker.total;
            let block: Vec<u64> = expected.iter().map(|count| count / blocks).collect();
            let from = 123_456 * picker.total;
            assert_eq!(counts(&picker, from..from + picker.total), block);
        }
    }

    #[test]
    fn the_order_is_the_seeds_and_varies_between_blocks() {
        let mix = |seed| Mix::new(vec![part("a", 70), part("b", 30)], seed).unwrap();
        let order = |picker: &Picker| (0..200).map(|i| picker.kind(i)).collect::<Vec<_>>();
        let one = order(&mix(1).picker());
        assert_eq!(one, order(&mix(1).picker()), "same seed, same order");
        assert_ne!(one, order(&mix(2).picker()), "another seed, another order");
        let blocks: std::collections::HashSet<&[usize]> = one.chunks(10).collect();
        assert!(
            blocks.len() > 5,
            "blocks should differ in order: {blocks:?}"
        );
    }

    #[test]
    fn mix_files_parse_or_say_why_not() {
        let folder = Path::new("/mixes");
        let good = "# a comment\n\n70 EchoStruct-20 POST /WSTest s.xml -T text/xml -H 'SOAPAction: \"\"' --expect-body EchoStructResponse\n30 void GET - - --expect-status 200\n";
        let mix = Mix::parse(good, "m.txt", folder, 5).unwrap();
        assert_eq!(mix.parts.len(), 2);
        let first = &mix.parts[0];
        assert_eq!(first.body_file.as_deref(), Some(Path::new("/mixes/s.xml")));
        assert_eq!(first.headers[0].line(), "SOAPAction: \"\"");
        assert_eq!(first.expect_body.as_deref(), Some("EchoStructResponse"));
        assert_eq!(mix.parts[1].path, None);
        assert_eq!(mix.parts[1].expect_status, Some(http::StatusCode::OK));
        // What to_file writes reads back the same.
        let again = Mix::parse(&mix.to_file(), "again", Path::new(""), 5).unwrap();
        assert_eq!(again, mix);

        let bad: &[(&str, &str)] = &[
            (
                "70 a POST /x",
                "m.txt:1: expected WEIGHT NAME METHOD PATH BODY",
            ),
            ("0 a POST /x -", "m.txt:1: the weight \"0\""),
            ("x a POST /x -", "m.txt:1: the weight \"x\""),
            ("1 a P@ST /x -", "is not an HTTP method"),
            ("1 a POST x -", "does not start with /"),
            ("1 a POST /x - -T", "-T wants a value"),
            ("1 a POST /x - -k on", "unknown option -k"),
            ("1 a POST /x - -H nocolon", "expected Name: value"),
            ("1 a POST '/x -", "an unclosed quote"),
            (
                "1 a POST /x -\n2 a GET /y -",
                "two parts of the mix are named \"a\"",
            ),
            ("# nothing", "at least one part"),
            ("1000000 a GET / -\n1 b GET / -", "above the 1000000"),
            // Nothing that could put bytes of its own on the wire.
            // A line ends at LF; a bare CR stays in the line, and is refused.
            (
                "1 a POST /x - -H 'X: 1\rX-Injected: 1'",
                "m.txt:1: -H \"X: 1\\rX-Injected: 1\": the value of the header X holds '\\r'",
            ),
            ("1 a POST /x - -H 'X: a\u{0}b'", "m.txt:1: a NUL byte"),
            (
                "1 a POST /x - -T 'text/xml\rX: 1'",
                "-T: the value of the header Content-type holds '\\r'",
            ),
            (
                "1 a POST '/x\rX: 1' -",
                "the path \"/x\\rX: 1\" holds '\\r'",
            ),
            ("1 a POST '/a b' -", "holds ' ': percent-encode it"),
            ("1 a POST /x s\u{4}\u{0}.xml", "m.txt:1: a NUL byte"),
            // Names a report can print.
            (
                "1 'a\u{1b}[2J' POST /x -",
                "the part name \"a\\u{1b}[2J\" is not 1 to 200 characters",
            ),
        ];
        for (text, message) in bad {
            let error = Mix::parse(text, "m.txt", folder, 1)
                .unwrap_err()
                .to_string();
            assert!(error.contains(message), "{text:?}: {error}");
        }
        let long = format!("1 {} POST /x -", "n".repeat(70_000));
        let error = Mix::parse(&long, "m.txt", folder, 1).unwrap_err();
        assert!(
            error.to_string().contains("is not 1 to 200 characters"),
            "{error}"
        );
        // Past the most kinds, refused at the line that passes it: a million lines are not read.
        let many: String = (0..1_000_001)
            .map(|i| format!("1 k{i} GET / -\n"))
            .collect();
        let error = Mix::parse(&many, "m.txt", folder, 1).unwrap_err();
        assert_eq!(
            error.to_string(),
            "m.txt:101: a mix may have at most 100 parts"
        );
        // A duplicate among the most kinds is found (by a set, not by each pair).
        let twice: String = (0..100)
            .map(|i| format!("1 k{} GET / -\n", i.min(98)))
            .collect();
        assert!(
            Mix::parse(&twice, "m.txt", folder, 1)
                .unwrap_err()
                .to_string()
                .contains("named \"k98\"")
        );
    }
}
