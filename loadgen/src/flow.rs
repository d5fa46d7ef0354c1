//! Flows at run time: a mix's `[flow]` (read by [`crate::mix`]) as each connection walks it.
//!
//! A connection is a user: it sends the flow's steps in order, each step's part as many times
//! as the step says, then begins again. After a step's answer, its part's `--save`s take
//! values from the answer into the connection's variables, which the later steps' templates
//! name (`{{token}}`); a pass begins with none. A step whose answer fails (no answer, a wrong
//! status, length or body, a check, a fault) or whose save finds nothing ends the pass there,
//! counted at that step, and the connection's next request begins a new pass. A flow counts
//! when its first request does (after the warm-up); one still under way when the run ends is
//! counted as unfinished, as ab leaves requests in flight out.
//!
//! Everything a pass can meet is checked before the first request: every placeholder of a
//! saved value is saved by an earlier step of the pass (the first pass would otherwise send it
//! unfilled), and every save is used by a later one.

use std::time::Instant;

use crate::check::{PathCheck, Scratch};
use crate::options::{Flow, Part, SaveFrom};
use crate::stats::StepFailure;
use crate::template::{RequestTemplate, TemplateError, Variable};

/// The values a connection holds at once total at most this many bytes: a save past it fails
/// its step, so that a server's answers cannot grow the client's memory (a connection holds
/// at most this, and its kept body).
pub const MAX_SAVED_BYTES: usize = 64 << 10;
/// At most this many names saved in a flow.
pub const MAX_SAVES: usize = 64;

/// The run's flow: its steps as kinds, and its saved values.
#[derive(Debug)]
pub(crate) struct FlowPlan {
    /// Each step's kind and the times it is sent in a row.
    pub(crate) steps: Vec<(usize, u32)>,
    /// Each saved value's strictest place: what its values may hold.
    places: Vec<Place>,
}

/// Where a saved value goes, the strictest of its placeholders' places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Body,
    /// A header's value: no control character but a tab.
    Head,
    /// The request line: no space either.
    RequestLine,
}

/// One `--save` of a kind: which variable, and how it is read from the answer.
#[derive(Debug)]
pub(crate) struct Saver {
    variable: usize,
    extract: Extract,
}

#[derive(Debug)]
enum Extract {
    Path(Box<PathCheck>),
    Regex(regex::bytes::Regex),
}

/// The saved values of a flow's parts, in the order they are first named; refused when one
/// name is read as XML in one part and as bytes in another (its escaping would differ).
pub(crate) fn variables(parts: &[Part]) -> Result<Vec<Variable>, TemplateError> {
    let mut variables: Vec<Variable> = Vec::new();
    for part in parts {
        for save in &part.saves {
            let xml = matches!(save.from, SaveFrom::Path(_));
            match variables.iter().find(|v| v.name == save.name) {
                Some(known) if known.xml != xml => {
                    return Err(TemplateError {
                        place: format!("the part {}", part.name),
                        what: format!(
                            "{} is saved by a path in one part and by a regex in another: give them two names",
                            save.name
                        ),
                    });
                }
                Some(_) => {}
                // Refused at the first past the limit: the search above stays short.
                None if variables.len() == MAX_SAVES => {
                    return Err(TemplateError {
                        place: "the mix's [flow]".into(),
                        what: format!("more than the {MAX_SAVES} names a flow may save"),
                    });
                }
                None => variables.push(Variable {
                    name: save.name.clone(),
                    xml,
                }),
            }
        }
    }
    Ok(variables)
}

/// A part's savers, against the flow's `variables`; an expression that does not read (a mix
/// made in code is not checked as a file's lines are) is refused.
pub(crate) fn savers(part: &Part, variables: &[Variable]) -> Result<Vec<Saver>, TemplateError> {
    let refuse = |what: String| TemplateError {
        place: format!("the part {}", part.name),
        what,
    };
    let mut savers = Vec::with_capacity(part.saves.len());
    for save in &part.saves {
        let variable = (variables.iter().position(|v| v.name == save.name))
            .ok_or_else(|| refuse(format!("--save {} is not among the flow's", save.name)))?;
        let extract = match &save.from {
            SaveFrom::Path(path) => {
                let path = PathCheck::parse(path).map_err(|error| refuse(error.to_string()))?;
                if !path.selects() {
                    return Err(refuse(format!(
                        "--save {}: a test selects no value",
                        save.name
                    )));
                }
                Extract::Path(Box::new(path))
            }
            SaveFrom::Regex(regex) => Extract::Regex(
                crate::check::regex(regex).map_err(|error| refuse(error.to_string()))?,
            ),
        };
        savers.push(Saver { variable, extract });
    }
    Ok(savers)
}

impl FlowPlan {
    /// The flow of `flow` over the kinds (a part's index is its kind's), whose `templates` and
    /// `savers` are given by kind; refused when a pass could send a placeholder unfilled or
    /// save a value nothing uses.
    pub(crate) fn new(
        flow: &Flow,
        variables: &[Variable],
        templates: &[Option<&RequestTemplate>],
        savers: &[&[Saver]],
        names: &[&str],
    ) -> Result<FlowPlan, TemplateError> {
        let mut places = vec![Place::Body; variables.len()];
        // The variables each kind's templates name.
        let uses: Vec<Vec<usize>> = templates
            .iter()
            .map(|template| {
                let Some(template) = template else {
                    return Vec::new();
                };
                let mut used: Vec<usize> = Vec::new();
                for (index, in_line) in template.head.variables() {
                    let place = if in_line {
                        Place::RequestLine
                    } else {
                        Place::Head
                    };
                    places[index] = places[index].max(place);
                    used.push(index);
                }
                used.extend(template.body.variables().map(|(index, _)| index));
                used.sort_unstable();
                used.dedup();
                used
            })
            .collect();
        let refuse = |kind: usize, what: String| TemplateError {
            place: format!("the flow's step {}", names[kind]),
            what,
        };
        let mut saved = vec![false; variables.len()];
        for step in &flow.steps {
            let kind = step.part;
            if let Some(&unsaved) = uses[kind].iter().find(|&&v| !saved[v]) {
                return Err(refuse(
                    kind,
                    format!(
                        "{{{{{}}}}} is not saved by an earlier step of the flow: the first pass would send it unfilled",
                        variables[unsaved].name
                    ),
                ));
            }
            for saver in savers[kind] {
                saved[saver.variable] = true;
            }
        }
        // Every save is used by a later step of the pass (or by its own step sent again).
        for (at, step) in flow.steps.iter().enumerate() {
            for saver in savers[step.part] {
                let later = flow.steps[at + 1..].iter().map(|s| s.part);
                let again = (step.times > 1).then_some(step.part);
                if !again
                    .into_iter()
                    .chain(later)
                    .any(|kind| uses[kind].contains(&saver.variable))
                {
                    return Err(refuse(
                        step.part,
                        format!(
                            "--save {} is used by no step after it (a pass begins with no saved values)",
                            variables[saver.variable].name
                        ),
                    ));
                }
            }
        }
        Ok(FlowPlan {
            steps: flow.steps.iter().map(|s| (s.part, s.times)).collect(),
            places,
        })
    }

    /// The number of variables a connection keeps.
    pub(crate) fn n_variables(&self) -> usize {
        self.places.len()
    }
}

/// Where a connection is in its flow, and what it has saved in this pass.
#[derive(Debug)]
pub(crate) struct Progress {
    step: usize,
    /// Requests of this step sent so far.
    round: u32,
    /// When the pass's first request started, and whether it counts.
    started: Instant,
    counted: bool,
    pub(crate) variables: Vec<Vec<u8>>,
}

impl Progress {
    pub(crate) fn new(plan: &FlowPlan, now: Instant) -> Progress {
        Progress {
            step: 0,
            round: 0,
            started: now,
            counted: false,
            variables: vec![Vec::new(); plan.n_variables()],
        }
    }

    /// The kind of the connection's next request, which starts at `now` (and counts, or not:
    /// a pass counts when its first request does).
    pub(crate) fn next_kind(&mut self, plan: &FlowPlan, counted: bool, now: Instant) -> usize {
        if self.step == 0 && self.round == 0 {
            self.started = now;
            self.counted = counted;
        }
        plan.steps[self.step].0
    }

    /// Whether a pass is under way (some of its requests sent), and whether it counts.
    pub(crate) fn under_way(&self) -> bool {
        self.step != 0 || self.round != 0
    }

    pub(crate) fn counted(&self) -> bool {
        self.counted
    }

    /// The step the connection is at.
    pub(crate) fn step(&self) -> usize {
        self.step
    }

    /// The answer to this step's request was right: its saves are read from `body` (`whole`
    /// when not cut at the checks' limit). Returns the pass's start when this answer ended
    /// it, or why the step failed.
    pub(crate) fn answered(
        &mut self,
        plan: &FlowPlan,
        savers: &[Saver],
        (body, whole): (&[u8], bool),
        scratch: &mut Scratch,
    ) -> Result<Option<Instant>, StepFailure> {
        for saver in savers {
            if !whole || !self.save(plan, saver, body, scratch) {
                return Err(StepFailure::Save);
            }
        }
        self.round += 1;
        if self.round < plan.steps[self.step].1 {
            return Ok(None);
        }
        self.round = 0;
        self.step += 1;
        if self.step < plan.steps.len() {
            return Ok(None);
        }
        let started = self.started;
        self.restart();
        Ok(Some(started))
    }

    /// Reads one saved value into its variable: false when the answer has none, one its
    /// placeholders' places cannot carry, or one past [`MAX_SAVED_BYTES`] with the others.
    fn save(&mut self, plan: &FlowPlan, saver: &Saver, body: &[u8], scratch: &mut Scratch) -> bool {
        let index = saver.variable;
        let others: usize =
            self.variables.iter().map(Vec::len).sum::<usize>() - self.variables[index].len();
        let value = &mut self.variables[index];
        value.clear();
        let found = match &saver.extract {
            Extract::Path(path) => path.first_value(body, scratch).map(|found| {
                value.extend_from_slice(&found);
            }),
            Extract::Regex(regex) => regex.captures(body).map(|captures| {
                let found = captures.get(1).or_else(|| captures.get(0));
                value.extend_from_slice(found.map_or(&[][..], |m| m.as_bytes()));
            }),
        };
        if found.is_none() {
            return false;
        }
        if others + value.len() > MAX_SAVED_BYTES {
            value.clear();
            value.shrink_to(0);
            return false;
        }
        match plan.places[index] {
            Place::Body => true,
            Place::Head => !value.iter().any(|&b| b.is_ascii_control() && b != b'\t'),
            Place::RequestLine => !value.iter().any(|&b| b.is_ascii_control() || b == b' '),
        }
    }

    /// The pass ends (done, or failed at a step): the next request begins a new one, with no
    /// saved values.
    pub(crate) fn restart(&mut self) {
        self.step = 0;
        self.round = 0;
        for value in &mut self.variables {
            value.clear();
        }
    }
}
