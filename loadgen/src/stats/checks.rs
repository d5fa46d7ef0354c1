//! The failures of `--check-xpath`, `--check-regex` and `--soap-faults`, by check and by fault
//! code: counted by each thread, added up at the end and by `merge`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Counters;
use crate::check::Verdict;

/// A thread keeps at most this many fault codes apart; the rest are counted together under
/// [`OTHER_CODES`], so that a server inventing codes cannot grow the client's memory.
pub const MAX_FAULT_CODES: usize = 32;
pub const OTHER_CODES: &str = "(other codes)";

/// One check's failures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFailures {
    /// As the user wrote it (`regex` before a regular expression).
    pub name: String,
    /// Complete answers it judged (its kinds'), and those that failed it.
    pub judged: u64,
    pub failed: u64,
}

/// The checks' failures and the faults' codes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// In the run's order of checks; while the run goes the names are empty (the plan has
    /// them, and gives them at the end).
    pub checks: Vec<CheckFailures>,
    /// `--soap-faults`: answers that were faults, by code.
    pub faults: BTreeMap<String, u64>,
}

impl CheckCounts {
    /// An answer was judged by the checks of `judged` (bits by index), failed those of
    /// `failed`, and was a fault or not.
    pub fn count(&mut self, counters: &mut Counters, verdict: &Verdict) {
        let mut rest = verdict.judged;
        while rest != 0 {
            let index = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if self.checks.len() <= index {
                self.checks.resize_with(index + 1, CheckFailures::default);
            }
            let check = &mut self.checks[index];
            check.judged += 1;
            check.failed += verdict.failed >> index & 1;
        }
        counters.check_failures += u64::from(verdict.failed != 0);
        if let Some(code) = verdict.fault.as_deref() {
            counters.faults += 1;
            self.add_fault(code, 1);
        }
    }

    fn add_fault(&mut self, code: &str, count: u64) {
        if let Some(sum) = self.faults.get_mut(code) {
            *sum += count;
        } else if self.faults.len() < MAX_FAULT_CODES {
            self.faults.insert(code.to_owned(), count);
        } else {
            *self.faults.entry(OTHER_CODES.to_owned()).or_insert(0) += count;
        }
    }

    /// Adds another thread's or run's counts: checks by name (by place while unnamed).
    pub fn add(&mut self, other: &CheckCounts) {
        for (index, theirs) in other.checks.iter().enumerate() {
            let place = if theirs.name.is_empty() {
                Some(index)
            } else {
                self.checks
                    .iter()
                    .position(|check| check.name == theirs.name)
            };
            match place {
                Some(index) if index < self.checks.len() || theirs.name.is_empty() => {
                    if self.checks.len() <= index {
                        self.checks.resize_with(index + 1, CheckFailures::default);
                    }
                    self.checks[index].judged += theirs.judged;
                    self.checks[index].failed += theirs.failed;
                }
                _ => self.checks.push(theirs.clone()),
            }
        }
        for (code, count) in &other.faults {
            self.add_fault(code, *count);
        }
    }

    /// Names the checks, in the plan's order, each with a count (zero for those that never
    /// failed).
    pub fn name(&mut self, names: impl ExactSizeIterator<Item = String>) {
        self.checks.resize_with(names.len(), CheckFailures::default);
        for (check, name) in self.checks.iter_mut().zip(names) {
            check.name = name;
        }
    }
}
