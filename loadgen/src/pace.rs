//! `--rate`: a fixed rate (`R`) or a linear ramp (`A..B`, from A to B requests per second over
//! the measured phase), and the send times it makes. The schedule numbers the whole test's
//! sends 0, 1, 2, ... (over every thread and shard) and asks [`Pace::time_of`] when each is
//! due; the reports ask [`Pace::count_until`] what was offered in a second. A leaf: it uses no
//! other module.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// `--rate R` or `--rate A..B`, in requests per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rate {
    Fixed(f64),
    /// From `from` at the start of the measured phase to `to` at its end (`--duration`); the
    /// warm-up runs at `from`.
    Ramp {
        from: f64,
        to: f64,
    },
}

/// Why a `--rate` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected requests per second (R) or a ramp (A..B), each a positive number")]
pub struct RateError;

impl Rate {
    pub fn parse(text: &str) -> Result<Rate, RateError> {
        let number = |text: &str| {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|rate| rate.is_finite() && *rate > 0.0)
                .ok_or(RateError)
        };
        match text.split_once("..") {
            Some((from, to)) => Ok(Rate::Ramp {
                from: number(from)?,
                to: number(to)?,
            }),
            None => number(text).map(Rate::Fixed),
        }
    }

    /// The rate at the start (of the warm-up and of the measured phase).
    pub fn start(self) -> f64 {
        match self {
            Rate::Fixed(rate) => rate,
            Rate::Ramp { from, .. } => from,
        }
    }

    /// The rate at the end of the measured phase.
    pub fn end(self) -> f64 {
        match self {
            Rate::Fixed(rate) => rate,
            Rate::Ramp { to, .. } => to,
        }
    }

    pub fn is_ramp(self) -> bool {
        matches!(self, Rate::Ramp { .. })
    }

    /// The same shape at `factor` times the rate (a shard's share is `1/N` of the test's).
    pub fn scaled(self, factor: f64) -> Rate {
        match self {
            Rate::Fixed(rate) => Rate::Fixed(rate * factor),
            Rate::Ramp { from, to } => Rate::Ramp {
                from: from * factor,
                to: to * factor,
            },
        }
    }

    /// Two shares added (a merge of shards): ramps add end by end.
    pub fn plus(self, other: Rate) -> Rate {
        match (self, other) {
            (Rate::Fixed(a), Rate::Fixed(b)) => Rate::Fixed(a + b),
            (a, b) => Rate::Ramp {
                from: a.start() + b.start(),
                to: a.end() + b.end(),
            },
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::Fixed(rate) => write!(f, "{rate:.2}"),
            Rate::Ramp { from, to } => write!(f, "{from:.2}..{to:.2}"),
        }
    }
}

/// A run's sending profile in seconds from its start: `rate.start()` through the warm-up, then
/// linear to `rate.end()` over the ramp (the measured phase), then `rate.end()`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    from: f64,
    to: f64,
    warmup: f64,
    ramp: f64,
}

impl Pace {
    /// `ramp` is the measured phase's length; a ramp without one stays at its start rate.
    pub fn new(rate: Rate, warmup: Duration, ramp: Option<Duration>) -> Pace {
        let ramp = ramp.map_or(0.0, |ramp| ramp.as_secs_f64());
        Pace {
            from: rate.start(),
            to: if ramp > 0.0 { rate.end() } else { rate.start() },
            warmup: warmup.as_secs_f64(),
            ramp,
        }
    }

    /// The rate's change per second during the ramp.
    fn slope(&self) -> f64 {
        if self.ramp > 0.0 {
            (self.to - self.from) / self.ramp
        } else {
            0.0
        }
    }

    /// The offered rate `t` seconds from the start.
    pub fn rate_at(&self, t: f64) -> f64 {
        let into_ramp = (t - self.warmup).clamp(0.0, self.ramp);
        self.from + self.slope() * into_ramp
    }

    /// How many sends fall in the first `t` seconds: the integral of the rate.
    pub fn count_until(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        let into_ramp = (t - self.warmup).clamp(0.0, self.ramp);
        let after_ramp = (t - self.warmup - self.ramp).max(0.0);
        self.from * (t - after_ramp)
            + self.slope() * into_ramp * into_ramp / 2.0
            + self.to * after_ramp
    }

    /// When send `slot` (from 0) is due, in seconds from the start: the inverse of
    /// [`Pace::count_until`].
    pub fn time_of(&self, slot: f64) -> f64 {
        let warmup_sends = self.from * self.warmup;
        if slot <= warmup_sends {
            return slot / self.from;
        }
        let ramp_sends = self.count_until(self.warmup + self.ramp) - warmup_sends;
        let k = slot - warmup_sends;
        if k <= ramp_sends {
            // slope/2 u² + from u = k, solved in the form that stays exact as slope -> 0.
            let u = 2.0 * k / (self.from + (self.from * self.from + 2.0 * self.slope() * k).sqrt());
            return self.warmup + u;
        }
        self.warmup + self.ramp + (k - ramp_sends) / self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates_and_ramps() {
        let cases: &[(&str, Option<Rate>)] = &[
            ("1000", Some(Rate::Fixed(1000.0))),
            ("2.5", Some(Rate::Fixed(2.5))),
            (
                "1000..20000",
                Some(Rate::Ramp {
                    from: 1000.0,
                    to: 20000.0,
                }),
            ),
            (
                "500..100",
                Some(Rate::Ramp {
                    from: 500.0,
                    to: 100.0,
                }),
            ),
            ("0", None),
            ("-5", None),
            ("1000..", None),
            ("..5", None),
            ("1..0", None),
            ("fast", None),
            ("inf", None),
        ];
        for (text, expected) in cases {
            assert_eq!(Rate::parse(text).ok(), *expected, "{text}");
        }
    }

    #[test]
    fn time_of_inverts_count_until() {
        let second = Duration::from_secs(1);
        let paces = [
            Pace::new(Rate::Fixed(1000.0), Duration::ZERO, None),
            Pace::new(Rate::Fixed(1000.0), second, Some(4 * second)),
            Pace::new(
                Rate::Ramp {
                    from: 1000.0,
                    to: 20000.0,
                },
                Duration::ZERO,
                Some(4 * second),
            ),
            Pace::new(
                Rate::Ramp {
                    from: 1000.0,
                    to: 20000.0,
                },
                second,
                Some(4 * second),
            ),
            Pace::new(
                Rate::Ramp {
                    from: 5000.0,
                    to: 100.0,
                },
                second,
                Some(2 * second),
            ),
        ];
        for pace in paces {
            for slot in [
                0.0, 1.0, 999.0, 1000.0, 1001.0, 12_345.0, 40_000.0, 100_000.0,
            ] {
                let t = pace.time_of(slot);
                let back = pace.count_until(t);
                assert!(
                    (back - slot).abs() < 1e-6 * slot.max(1.0),
                    "{pace:?} slot {slot}: {t} s, {back}"
                );
            }
        }
    }

    #[test]
    fn a_ramp_offers_its_rates_second_by_second() {
        let second = Duration::from_secs(1);
        let pace = Pace::new(
            Rate::Ramp {
                from: 1000.0,
                to: 20000.0,
            },
            second,
            Some(4 * second),
        );
        // The warm-up at the start rate, then the ramp: the mean rate of each second.
        let cases = [
            (0.0, 1000.0),
            (1.0, 3375.0),
            (2.0, 8125.0),
            (3.0, 12875.0),
            (4.0, 17625.0),
            (5.0, 20000.0),
        ];
        for (start, mean) in cases {
            let offered = pace.count_until(start + 1.0) - pace.count_until(start);
            assert!((offered - mean).abs() < 1e-6, "second {start}: {offered}");
        }
        assert_eq!(pace.rate_at(3.0), 10500.0);
    }
}
