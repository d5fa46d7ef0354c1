//! Durations as every option of the workspace writes them: `30s`, `500ms`, `2m`, `1h`,
//! `250us`, or a bare number in the unit the option has always meant (seconds for loadgen, its
//! suite and the server; milliseconds for wsperf's `--time`); and as the JSON files store them,
//! in seconds.

use std::time::Duration;

/// The forms [`parse`] takes, for messages.
pub const FORMS: &str = "expected a duration such as 30s, 500ms, 2m, 1h or 1.5 (seconds)";

/// What a number without a unit means to an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bare {
    Seconds,
    Millis,
    /// A unit is required: the option once counted something else, so a bare number would be
    /// read silently in a new sense. The text names the option to use for the old one.
    Refused(&'static str),
}

/// A duration that is not one of the forms its option takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?}: {expected}")]
pub struct DurationError {
    pub text: String,
    pub expected: String,
}

/// `30s`, `500ms`, `250us`, `2m`, `1h`, or plain seconds (`1.5`); not negative.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    parse_bare(text, Bare::Seconds)
}

/// `30s`, `500ms`, `2m`, or plain milliseconds (`250`): wsperf's times, which were always
/// milliseconds.
pub fn parse_millis(text: &str) -> Result<Duration, DurationError> {
    parse_bare(text, Bare::Millis)
}

/// As [`parse`], with a bare number read as `bare` says.
pub fn parse_bare(text: &str, bare: Bare) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    let unit_at = trimmed
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(unit_at);
    let scale = match (unit, bare) {
        ("us", _) => 1e-6,
        ("ms", _) | ("", Bare::Millis) => 1e-3,
        ("s", _) | ("", Bare::Seconds) => 1.0,
        ("m", _) => 60.0,
        ("h", _) => 3600.0,
        _ => 0.0,
    };
    let error = || DurationError {
        text: text.to_owned(),
        expected: match bare {
            Bare::Seconds => FORMS.to_owned(),
            Bare::Millis => {
                "expected a duration such as 500ms, 2s or 1m, or a bare number of milliseconds"
                    .to_owned()
            }
            Bare::Refused(instead) if unit.is_empty() && number.parse::<f64>().is_ok() => {
                format!("a duration needs its unit (200ms, 2s); {instead}")
            }
            Bare::Refused(_) => "expected a duration such as 200ms, 2s or 1m".to_owned(),
        },
    };
    let value: f64 = number.parse().map_err(|_| error())?;
    let seconds = value * scale;
    if scale == 0.0 || !(seconds.is_finite() && seconds >= 0.0) {
        return Err(error());
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| error())
}

/// Serde for a `Duration` as seconds (`1.5`), as the JSON files have always held them.
pub mod seconds {
    use std::time::Duration;

    use serde::{Deserialize as _, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(duration.as_secs_f64())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let seconds = f64::deserialize(deserializer)?;
        Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom)
    }
}

/// Serde for an `Option<Duration>` as seconds or `null`.
pub mod optional_seconds {
    use std::time::Duration;

    use serde::{Deserialize as _, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        duration: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match duration {
            Some(duration) => serializer.serialize_some(&duration.as_secs_f64()),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        Option::<f64>::deserialize(deserializer)?
            .map(|seconds| Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom))
            .transpose()
    }
}
