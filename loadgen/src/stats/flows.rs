//! A flow's figures: passes done and their latency, and failures at each step by cause.
//! Counted by each thread, added up at the end and by `merge`.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Why a pass failed at a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepFailure {
    /// The answer failed (a wrong status, length or body, a check, a fault).
    Answer,
    /// No answer (connect, receive, write, timeout, an exception).
    NoAnswer,
    /// A `--save` found no value in the answer, or one its placeholders cannot carry.
    Save,
}

/// One step's failures, by cause.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFailures {
    /// The step as the report names it: its part, and `xN` when sent N times in a row.
    pub name: String,
    pub answer: u64,
    pub no_answer: u64,
    pub save: u64,
}

impl StepFailures {
    pub fn total(&self) -> u64 {
        self.answer + self.no_answer + self.save
    }
}

/// A run's flow.
#[derive(Debug, Clone)]
pub struct FlowCounts {
    /// Passes done, every step answered right.
    pub complete: u64,
    /// Passes still under way when the run ended (not counted as done or failed).
    pub unfinished: u64,
    /// Failures at each step, in the flow's order.
    pub steps: Vec<StepFailures>,
    /// Each complete pass's time, from its first request's start to its last answer, µs.
    pub latency: Histogram<u64>,
}

impl FlowCounts {
    /// A flow of `n_steps`, nothing counted (its steps' names come at the end, from the plan).
    pub fn new(n_steps: usize) -> FlowCounts {
        FlowCounts {
            complete: 0,
            unfinished: 0,
            steps: vec![StepFailures::default(); n_steps],
            latency: super::histogram(),
        }
    }

    /// Passes that failed, at any step.
    pub fn failed(&self) -> u64 {
        self.steps.iter().map(StepFailures::total).sum()
    }

    /// A pass done in `latency_us`.
    pub fn done(&mut self, latency_us: u64) {
        self.complete += 1;
        self.latency.saturating_record(latency_us);
    }

    /// A pass failed at `step`.
    pub fn failed_at(&mut self, step: usize, cause: StepFailure) {
        let Some(step) = self.steps.get_mut(step) else {
            return;
        };
        match cause {
            StepFailure::Answer => step.answer += 1,
            StepFailure::NoAnswer => step.no_answer += 1,
            StepFailure::Save => step.save += 1,
        }
    }

    /// Adds another thread's or run's counts (one test's runs have one flow).
    pub fn add(&mut self, other: &FlowCounts) {
        self.complete += other.complete;
        self.unfinished += other.unfinished;
        if self.steps.len() < other.steps.len() {
            self.steps
                .resize(other.steps.len(), StepFailures::default());
        }
        for (step, theirs) in self.steps.iter_mut().zip(&other.steps) {
            if step.name.is_empty() {
                step.name.clone_from(&theirs.name);
            }
            step.answer += theirs.answer;
            step.no_answer += theirs.no_answer;
            step.save += theirs.save;
        }
        // Both have the bounds of `histogram`, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
    }
}
