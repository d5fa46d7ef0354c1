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
//! TEXT`, `--reject-body TEXT`, `--check-xpath EXPR`, `--check-regex RE`, `--save NAME=PATH`,
//! `--save-regex NAME=RE` (these four more than once), quoted as a shell would. `#` starts a
//! comment line. A `[flow]` line ends the parts; the lines after it are a flow's steps
//! ([`flow`]), which replace the weights (a flow's parts have `-` for one).
use std::path::{Path, PathBuf};

mod flow;

pub use crate::options::{Flow, FlowStep, Mix, Part};
use crate::options::{Header, SaveFrom};
pub use flow::{MAX_STEPS, MAX_TIMES};

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
            saves: Vec::new(),
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
    #[error("{0}")]
    Flow(String),
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
        // Each part's line, and the flow's lines once a `[flow]` has begun.
        let mut part_lines = Vec::new();
        let mut flow_lines: Option<Vec<(usize, &str)>> = None;
        let mut flow_start = 0;
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
            if trimmed == "[flow]" {
                if flow_lines.is_some() {
                    return Err(at("a second [flow]: a mix file has one".to_owned()));
                }
                flow_lines = Some(Vec::new());
                flow_start = index + 1;
                continue;
            }
            if let Some(steps) = &mut flow_lines {
                if steps.len() == MAX_STEPS {
                    return Err(at(format!("a flow may have at most {MAX_STEPS} steps")));
                }
                steps.push((index + 1, trimmed));
                continue;
            }
            if parts.len() == MAX_KINDS {
                return Err(at(MixError::TooMany.to_string()));
            }
            parts.push(parse_line(trimmed, folder).map_err(at)?);
            part_lines.push(index + 1);
        }
        let at = |line: usize, what: &str| MixError::Line {
            file: file.to_owned(),
            line,
            what: what.to_owned(),
        };
        let Some(flow_lines) = flow_lines else {
            for (part, line) in parts.iter().zip(&part_lines) {
                if part.weight == 0 {
                    return Err(at(
                        *line,
                        "a weight of - is for the parts of a [flow]: give a whole number above 0",
                    ));
                }
                if !part.saves.is_empty() {
                    return Err(at(
                        *line,
                        "--save carries a value to the steps of a [flow] after it: this file has none",
                    ));
                }
            }
            return Mix::new(parts, seed);
        };
        for (part, line) in parts.iter().zip(&part_lines) {
            if part.weight != 0 {
                return Err(at(
                    *line,
                    "a part of a [flow] takes - for its weight: the flow gives the order",
                ));
            }
        }
        let flow = flow::parse(&flow_lines, &parts).map_err(|(line, what)| at(line, &what))?;
        // Said at the part's line, or the `[flow]`'s (the line before its first step).
        flow::check(&flow, &parts).map_err(|(part, what)| {
            let line = part.map_or(flow_start, |part| part_lines[part]);
            at(line, &what)
        })?;
        Mix::flowing(parts, flow, seed)
    }

    /// A mix of `parts`, checked: at least one, names unique, weights that make a block.
    pub fn new(parts: Vec<Part>, seed: u64) -> Result<Mix, MixError> {
        if let Some(part) = parts.iter().find(|part| !part.saves.is_empty()) {
            return Err(MixError::Flow(format!(
                "the part {} saves a value, which only a flow's later steps can use",
                part.name
            )));
        }
        Mix::checked(parts, None, seed)
    }

    /// A mix whose connections each send `flow`'s steps in order, again and again: each
    /// part's weight becomes the times it is sent in one pass.
    pub fn flowing(mut parts: Vec<Part>, flow: Flow, seed: u64) -> Result<Mix, MixError> {
        flow::check(&flow, &parts).map_err(|(_, what)| MixError::Flow(what))?;
        for (index, part) in parts.iter_mut().enumerate() {
            let times = flow.steps.iter().filter(|step| step.part == index);
            let times = times.map(|step| u64::from(step.times)).sum::<u64>();
            part.weight = u32::try_from(times).unwrap_or(u32::MAX);
        }
        Mix::checked(parts, Some(flow), seed)
    }

    fn checked(parts: Vec<Part>, flow: Option<Flow>, seed: u64) -> Result<Mix, MixError> {
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
        let mix = Mix { seed, parts, flow };
        let total = mix.reduced_weights().iter().sum::<u64>();
        // A flow's weights are its times, which no block orders: at most 1,000 steps of
        // 1,000,000 each, so that the picker's product still fits in 64 bits.
        if total > MAX_TOTAL_WEIGHT && mix.flow.is_none() {
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
        let quote = |word: &str| {
            shlex::try_quote(word).map_or_else(|_| format!("{word:?}"), |q| q.into_owned())
        };
        for part in &self.parts {
            let weight = match self.flow {
                Some(_) => "-".to_owned(),
                None => part.weight.to_string(),
            };
            let mut words = vec![
                weight,
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
            for save in &part.saves {
                let (option, from) = match &save.from {
                    SaveFrom::Path(path) => ("--save", path),
                    SaveFrom::Regex(regex) => ("--save-regex", regex),
                };
                words.extend([option.to_owned(), quote(&format!("{}={from}", save.name))]);
            }
            text.push_str(&words.join(" "));
            text.push('\n');
        }
        if let Some(flow) = &self.flow {
            text.push_str("[flow]\n");
            for step in &flow.steps {
                text.push_str(&quote(&self.parts[step.part].name));
                if step.times > 1 {
                    text.push_str(&format!(" x{}", step.times));
                }
                text.push('\n');
            }
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
    // `-`, for a flow's part, is 0 until the flow gives it its times.
    let weight = match weight.as_str() {
        "-" => 0,
        weight => weight
            .parse::<u32>()
            .ok()
            .filter(|weight| *weight > 0)
            .ok_or_else(|| format!("the weight {weight:?} is not a whole number above 0"))?,
    };
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
        saves: Vec::new(),
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
            "--save" | "--save-regex" => {
                let save = flow::save(option, value)?;
                if part.saves.iter().any(|other| other.name == save.name) {
                    return Err(format!(
                        "{option} {value}: the part saves {} twice",
                        save.name
                    ));
                }
                part.saves.push(save);
            }
            other => {
                return Err(format!(
                    "unknown option {other} (a part takes -T, -H, --expect-status, --expect-body, --reject-body, --check-xpath, --check-regex, --save, --save-regex)"
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
mod tests;
