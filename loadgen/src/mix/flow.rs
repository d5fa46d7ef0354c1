//! A mix file's `[flow]`: the parts in the order each connection sends them, a step a line,
//! `NAME` or `NAME xN` (the part sent N times in a row), and the `--save` options that carry a
//! value from a step's answer to the steps after it.
//!
//! A connection runs the flow's steps in order, again and again, a pass after another (a user
//! who logs in, calls, and logs out); a step that fails ends the pass there, and the next
//! request begins a new one.

use crate::options::{Flow, FlowStep, Part, Save, SaveFrom};

/// The most steps (lines) a flow may have, and the most times a step may be sent in a row.
pub const MAX_STEPS: usize = 1000;
pub const MAX_TIMES: u32 = 1_000_000;
/// The longest name a saved value may have.
const MAX_SAVE_NAME: usize = 64;

/// The flow of the lines after `[flow]` (each with its line number), against the parts'
/// names; an error names the line.
pub(super) fn parse(lines: &[(usize, &str)], parts: &[Part]) -> Result<Flow, (usize, String)> {
    let mut steps = Vec::with_capacity(lines.len());
    for &(line, text) in lines {
        let step = step(text, parts).map_err(|what| (line, what))?;
        steps.push(step);
    }
    Ok(Flow { steps })
}

/// One step's line: `NAME` or `NAME xN`.
fn step(text: &str, parts: &[Part]) -> Result<FlowStep, String> {
    let words = shlex::split(text).ok_or("an unclosed quote")?;
    let (name, times) = match words.as_slice() {
        [name] => (name, 1),
        [name, times] => {
            let count = times
                .strip_prefix('x')
                .and_then(|count| count.parse::<u32>().ok())
                .filter(|count| (1..=MAX_TIMES).contains(count))
                .ok_or_else(|| {
                    format!("{times:?} is not xN with N a whole number from 1 to {MAX_TIMES}")
                })?;
            (name, count)
        }
        _ => {
            return Err(format!(
                "a step is NAME or NAME xN, found {} words",
                words.len()
            ));
        }
    };
    let part = parts
        .iter()
        .position(|part| part.name == *name)
        .ok_or_else(|| format!("no part is named {name:?}"))?;
    Ok(FlowStep { part, times })
}

/// Checks a flow against its parts: at least one step, each a part, each part in a step. An
/// error about one part gives its index.
pub(super) fn check(flow: &Flow, parts: &[Part]) -> Result<(), (Option<usize>, String)> {
    if flow.steps.is_empty() {
        return Err((None, "a [flow] needs at least one step".to_owned()));
    }
    if flow.steps.len() > MAX_STEPS {
        return Err((None, format!("a flow may have at most {MAX_STEPS} steps")));
    }
    for step in &flow.steps {
        if step.part >= parts.len() || !(1..=MAX_TIMES).contains(&step.times) {
            return Err((None, "a step names no part, or is sent no times".to_owned()));
        }
    }
    for (index, part) in parts.iter().enumerate() {
        if !flow.steps.iter().any(|step| step.part == index) {
            return Err((
                Some(index),
                format!(
                    "the part {} is in no step of the [flow]: add it, or take it out",
                    part.name
                ),
            ));
        }
    }
    Ok(())
}

/// A part's `--save NAME=PATH` or `--save-regex NAME=RE` (`option`), its expression checked.
pub(super) fn save(option: &str, value: &str) -> Result<Save, String> {
    let (name, expression) = value
        .split_once('=')
        .ok_or_else(|| format!("{option} {value:?}: expected NAME=EXPRESSION"))?;
    let good_name = name.len() <= MAX_SAVE_NAME
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !good_name || crate::template::names_a_function(name) {
        return Err(format!(
            "{option} {value:?}: the name {name:?} is a function's, or not a letter or _ then up to {} letters, digits, _ or -",
            MAX_SAVE_NAME - 1
        ));
    }
    let from = if option == "--save" {
        let path = crate::check::PathCheck::parse(expression)
            .map_err(|error| format!("{option} {name}: {error}"))?;
        if !path.selects() {
            return Err(format!(
                "{option} {name}: {expression:?} is a test; a value is taken from a path alone (//token, //a/@id)"
            ));
        }
        SaveFrom::Path(expression.to_owned())
    } else {
        crate::check::regex(expression).map_err(|error| match error {
            crate::check::CheckError::Regex { error, .. } => {
                format!("{option} {name}: {expression:?}: {error}")
            }
            other => other.to_string(),
        })?;
        SaveFrom::Regex(expression.to_owned())
    };
    Ok(Save {
        name: name.to_owned(),
        from,
    })
}
