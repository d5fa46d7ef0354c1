//! `--slo 'p99<=5ms'`: the highest rate a target sustains with every latency objective met and
//! no failed request. A ramp (`--rate A..B`) from a twentieth of the cell's closed-loop rate to
//! 1.2 times it brackets the knee second by second; fixed-rate steps of at least `--duration`
//! each then bisect it to 2%. Latency is loadgen's corrected latency, from each request's
//! scheduled send time, so a queue building up counts.
//!
//! Each rate is judged by the majority of up to three runs (the third only when the first two
//! disagree). On a shared machine a stall of a few milliseconds puts one run's p99 over a tight
//! objective at any rate: believing one miss ends the search far below the knee, and believing
//! one of two meets (the rule before) let stalls bias it upwards, since at rates just past the
//! knee a run still meets now and then. When the client was saturated in a run at the rate that
//! ended the search, the miss may be the client's: the knee is reported as at least the rate
//! found (`client_limited`), not as the target's.
//!
//! Connections: an open loop needs as many as it has requests in flight, which is the rate
//! times the latency (Little's law). At the knee, latency is at most the objective's limit, so
//! each run gets four times its rate times the largest limit (at least 16, at most 4,000):
//! `-c` then never limits a rate that could meet the objective, and a slower server fails the
//! objective whatever `-c` is.

use std::fmt;

use anyhow::Context as _;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::client::CellSpec;
use crate::loadgen_client;

/// A percentile an objective bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Percentile {
    P50,
    P90,
    P99,
    P999,
}

impl Percentile {
    const ALL: [(Percentile, &'static str, f64); 4] = [
        (Percentile::P50, "p50", 0.50),
        (Percentile::P90, "p90", 0.90),
        (Percentile::P99, "p99", 0.99),
        (Percentile::P999, "p99.9", 0.999),
    ];

    fn entry(self) -> (&'static str, f64) {
        let (_, label, quantile) = Self::ALL
            .into_iter()
            .find(|(percentile, ..)| *percentile == self)
            .expect("every percentile is listed");
        (label, quantile)
    }

    pub fn label(self) -> &'static str {
        self.entry().0
    }

    pub fn quantile(self) -> f64 {
        self.entry().1
    }
}

/// `p99<=5ms`: a percentile of corrected latency and its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Objective {
    pub percentile: Percentile,
    pub limit_us: u64,
}

impl Objective {
    /// `p50`, `p90`, `p99` or `p99.9`, then `<=`, then a time in `ms` or `us`.
    pub fn parse(text: &str) -> Result<Objective, String> {
        let bad = || {
            format!(
                "{text:?} is not a latency objective: expected PERCENTILE<=TIME, with p50, p90, p99 or p99.9 and a time in ms or us (p99<=5ms)"
            )
        };
        let (name, limit) = text.split_once("<=").ok_or_else(bad)?;
        let percentile = Percentile::ALL
            .into_iter()
            .find(|(_, label, _)| *label == name.trim())
            .map(|(percentile, ..)| percentile)
            .ok_or_else(bad)?;
        let limit = limit.trim();
        let (number, scale) = if let Some(ms) = limit.strip_suffix("ms") {
            (ms, 1000.0)
        } else if let Some(us) = limit.strip_suffix("us") {
            (us, 1.0)
        } else {
            return Err(bad());
        };
        let limit_us = number
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value > 0.0)
            .map(|value| (value * scale).round() as u64)
            .filter(|us| *us > 0)
            .ok_or_else(bad)?;
        Ok(Objective {
            percentile,
            limit_us,
        })
    }

    fn met_by(self, histogram: &Histogram<u64>) -> bool {
        !histogram.is_empty()
            && histogram.value_at_quantile(self.percentile.quantile()) <= self.limit_us
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = self.percentile.label();
        if self.limit_us.is_multiple_of(1000) {
            write!(f, "{label}<={}ms", self.limit_us / 1000)
        } else {
            write!(f, "{label}<={}us", self.limit_us)
        }
    }
}

/// One fixed-rate run of the search, or one second of its ramp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub offered_rate: f64,
    pub achieved_rate: f64,
    pub connections: u32,
    /// Corrected latency percentiles, µs.
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub failed: u64,
    /// Every objective met and no request failed.
    pub met: bool,
    /// The run said its client may have been the limit.
    pub client_saturated: bool,
}

/// What the search found for one target and test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    pub objectives: Vec<Objective>,
    /// The highest offered rate that met every objective; `None` when even the lowest rate
    /// tried (`lowest_rate`) did not.
    pub max_rate: Option<f64>,
    pub lowest_rate: f64,
    /// False when every rate tried met the objectives, up to `highest_rate`, or when the client
    /// was saturated at the lowest rate that missed (`client_limited`): the knee is above
    /// `max_rate`.
    pub bracketed: bool,
    /// The lowest rate that missed the objectives did so with the client saturated: the limit
    /// found may be the client's.
    #[serde(default)]
    pub client_limited: bool,
    pub highest_rate: f64,
    /// The ramp, second by second.
    pub ramp: Vec<Step>,
    /// The fixed-rate steps, in the order run.
    pub steps: Vec<Step>,
}

impl Knee {
    /// The objectives as given: `p99<=2ms, p50<=1ms`.
    pub fn objectives_text(&self) -> String {
        self.objectives
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// For a table cell: `45210/s`, `<2100/s` (not met even at the lowest rate tried),
    /// `>480000/s` (met at every rate tried), or `>61000/s (client limit)`.
    pub fn short(&self) -> String {
        match self.max_rate {
            None => format!("<{:.0}/s", self.lowest_rate),
            Some(rate) if self.client_limited => format!(">{rate:.0}/s (client limit)"),
            Some(rate) if !self.bracketed => format!(">{rate:.0}/s"),
            Some(rate) => format!("{rate:.0}/s"),
        }
    }
}

/// The search's settings for one target and test.
pub struct Search<'a> {
    pub cell: &'a CellSpec,
    pub objectives: &'a [Objective],
    /// The cell's closed-loop rate, which sets the ramp's range.
    pub closed_loop_rate: f64,
}

impl Search<'_> {
    /// Connections for a run at `rate` (the module's reasoning).
    fn connections(&self, rate: f64) -> u32 {
        let limit_s = self
            .objectives
            .iter()
            .map(|objective| objective.limit_us)
            .max()
            .unwrap_or(1000) as f64
            / 1e6;
        ((4.0 * rate * limit_s).ceil() as u32).clamp(16, 4000)
    }

    fn args(&self, rate: String, connections: u32, duration_s: f64) -> Vec<String> {
        // The cell's own command line, at this run's connections and length, with the rate
        // before the URL (the first positional argument ends ab's options).
        let run = CellSpec {
            concurrency: connections,
            duration: std::time::Duration::from_secs_f64(duration_s),
            ..self.cell.clone()
        };
        let mut args = loadgen_client::command_line(&run);
        args.insert(args.len() - 1, format!("--rate={rate}"));
        args
    }

    fn step_of(
        &self,
        offered_rate: f64,
        achieved_rate: f64,
        connections: u32,
        failed: u64,
        histogram: &Histogram<u64>,
        client_saturated: bool,
    ) -> Step {
        let at = |quantile: f64| histogram.value_at_quantile(quantile);
        Step {
            offered_rate,
            achieved_rate,
            connections,
            p50_us: at(0.50),
            p90_us: at(0.90),
            p99_us: at(0.99),
            p999_us: at(0.999),
            failed,
            met: failed == 0
                && self
                    .objectives
                    .iter()
                    .all(|objective| objective.met_by(histogram)),
            client_saturated,
        }
    }

    /// A fixed-rate run: at least `--duration`, and long enough for 200 requests, so that a
    /// p99 rests on two requests or more.
    fn step(&self, rate: f64) -> anyhow::Result<Step> {
        let duration_s = self
            .cell
            .duration
            .as_secs_f64()
            .max((200.0 / rate).min(4.0 * self.cell.duration.as_secs_f64()));
        let connections = self.connections(rate);
        let run = loadgen_client::run(&self.args(format!("{rate:.3}"), connections, duration_s))
            .with_context(|| format!("the step at {rate:.0} requests a second"))?;
        let results = &run.results;
        let c = &results.counters;
        let achieved = if results.time_taken > 0.0 {
            c.complete as f64 / results.time_taken
        } else {
            0.0
        };
        Ok(self.step_of(
            rate,
            achieved,
            connections,
            c.failed + c.non_2xx,
            &results.histograms.corrected,
            results.saturation(true).saturated(),
        ))
    }

    /// The ramp, each second a step.
    fn ramp(&self, from: f64, to: f64) -> anyhow::Result<Vec<Step>> {
        let duration_s = (2.0 * self.cell.duration.as_secs_f64()).max(2.0);
        let connections = self.connections(to);
        let run =
            loadgen_client::run(&self.args(format!("{from:.3}..{to:.3}"), connections, duration_s))
                .context("the ramp")?;
        let records = loadgen::json::second_records(&run.info, &run.results.seconds);
        let saturated = run.results.saturation(true).saturated();
        Ok(records
            .iter()
            .zip(&run.results.seconds)
            .filter_map(|(record, second)| {
                let histogram = second.corrected.as_ref()?;
                let offered = record.offered_rate?;
                Some(self.step_of(
                    offered,
                    second.requests as f64,
                    connections,
                    second.errors,
                    histogram,
                    saturated,
                ))
            })
            .collect())
    }

    /// Runs steps at `rate` into `steps` until two agree (the module's reasoning): whether the
    /// majority of up to three met the objectives.
    fn judge(&self, rate: f64, steps: &mut Vec<Step>) -> anyhow::Result<bool> {
        let (mut met, mut missed) = (0, 0);
        while met < 2 && missed < 2 {
            let step = self.step(rate)?;
            if step.met {
                met += 1;
            } else {
                missed += 1;
            }
            steps.push(step);
        }
        Ok(met == 2)
    }

    /// Finds the knee (the module's method).
    pub fn run(&self) -> anyhow::Result<Knee> {
        let peak = self.closed_loop_rate.max(1.0);
        let (from, to) = (peak / 20.0, peak * 1.2);
        let ramp = self.ramp(from, to)?;
        // The last second that met the objectives before the first that did not.
        let first_miss = ramp.iter().position(|step| !step.met);
        let estimate = match first_miss {
            _ if ramp.is_empty() => from,
            Some(0) => from,
            Some(index) => ramp[index - 1].offered_rate,
            None => to,
        };
        let first_miss_rate = first_miss.map_or(to, |index| ramp[index].offered_rate);
        let mut knee = Knee {
            objectives: self.objectives.to_vec(),
            max_rate: None,
            lowest_rate: from,
            bracketed: true,
            client_limited: false,
            highest_rate: to,
            ramp,
            steps: Vec::new(),
        };
        let mut steps = Vec::new();
        // Bracket: a rate that meets the objectives (`low`) and one that does not (`high`).
        let start = (estimate * 0.9).max(from);
        let (mut low, mut high) = if self.judge(start, &mut steps)? {
            (start, None)
        } else if start > from && self.judge(from, &mut steps)? {
            (from, Some(start))
        } else {
            knee.steps = steps;
            return Ok(knee);
        };
        let mut candidate = first_miss_rate.max(low * 1.05);
        while high.is_none() {
            if !self.judge(candidate, &mut steps)? {
                high = Some(candidate);
            } else {
                low = candidate;
                if candidate >= 4.0 * peak {
                    knee.bracketed = false;
                    knee.highest_rate = candidate;
                    break;
                }
                candidate *= 1.5;
            }
        }
        // Bisect (geometrically) to 2%.
        if let Some(mut high) = high {
            while high / low > 1.02 {
                let middle = (low * high).sqrt();
                if self.judge(middle, &mut steps)? {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            knee.client_limited = steps
                .iter()
                .any(|step| step.offered_rate == high && !step.met && step.client_saturated);
            if knee.client_limited {
                knee.bracketed = false;
                knee.highest_rate = high;
            }
        }
        knee.max_rate = Some(low);
        knee.steps = steps;
        Ok(knee)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_parse_or_say_why_not() {
        let cases: &[(&str, Option<(Percentile, u64)>)] = &[
            ("p99<=5ms", Some((Percentile::P99, 5000))),
            ("p50<=500us", Some((Percentile::P50, 500))),
            ("p99.9 <= 2.5ms", Some((Percentile::P999, 2500))),
            ("p90<=1ms", Some((Percentile::P90, 1000))),
            ("p99<5ms", None),
            ("p95<=5ms", None),
            ("p99<=5", None),
            ("p99<=5s", None),
            ("p99<=0ms", None),
            ("p99<=-1ms", None),
            ("latency<=5ms", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let parsed = Objective::parse(text);
            match expected {
                Some((percentile, limit_us)) => {
                    let objective = parsed.unwrap_or_else(|e| panic!("{text}: {e}"));
                    assert_eq!(
                        (objective.percentile, objective.limit_us),
                        (*percentile, *limit_us),
                        "{text}"
                    );
                }
                None => {
                    let error = parsed.expect_err(text);
                    assert!(error.contains(&format!("{text:?}")), "{text}: {error}");
                }
            }
        }
        assert_eq!(
            Objective::parse("p99.9<=2.5ms").unwrap().to_string(),
            "p99.9<=2500us"
        );
        assert_eq!(
            Objective::parse("p99<=2ms").unwrap().to_string(),
            "p99<=2ms"
        );
    }
}
