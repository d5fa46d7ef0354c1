//! Durations as every option of loadgen and its suite writes them: `30s`, `500ms`, `2m`, `1h`,
//! `250us`, or plain seconds (`1.5`); and as the JSON files store them, in seconds. A leaf:
//! it uses no other module.

use std::time::Duration;

/// The forms [`parse`] takes, for messages.
pub const FORMS: &str = "expected a duration such as 30s, 500ms, 2m, 1h or 1.5 (seconds)";

/// A duration that is not one of [`FORMS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?}: {FORMS}")]
pub struct DurationError {
    pub text: String,
}

/// `30s`, `500ms`, `250us`, `2m`, `1h`, or plain seconds (`1.5`); not negative.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    let unit_at = trimmed
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(unit_at);
    let scale = match unit {
        "us" => 1e-6,
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => 0.0,
    };
    let error = || DurationError {
        text: text.to_owned(),
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
