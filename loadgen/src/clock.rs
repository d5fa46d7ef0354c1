//! Wall-clock times: the forms `--start-at` takes, and how reports print a time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use host::duration;

/// The furthest ahead `--start-at` may be. Shards that wait longer are more likely started with
/// a mistyped date or a local time written as UTC than on purpose, and would sit holding their
/// connections for hours.
pub const MAX_START_AHEAD: Duration = Duration::from_secs(3600);

/// The forms of `--start-at`, for messages.
pub const START_AT_FORMS: &str =
    "expected an RFC 3339 time (2026-12-04T10:00:00Z), Unix seconds (1796378400) or now+30s";

/// Why a `--start-at` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartAtError {
    #[error("{START_AT_FORMS}")]
    Unparsable,
    #[error(
        "{} is {} from now, and at most {} ahead is accepted (a mistyped date, or a local time written as UTC?)",
        rfc3339(*at), seconds(*ahead), seconds(MAX_START_AHEAD)
    )]
    TooFar { at: SystemTime, ahead: Duration },
}

/// `--start-at`'s value as a wall-clock time, read at `now`: RFC 3339 with any offset
/// (`2026-12-04T10:00:00Z`, `...+01:00`, fractions of a second), Unix seconds (`1796378400`,
/// `1796378400.25`), or `now+D` with any duration loadgen takes (`now+30s`, `now+2m`). A time in
/// the past is accepted (the run starts at once, with a warning); one more than
/// [`MAX_START_AHEAD`] ahead is not.
pub fn parse_start_at(text: &str, now: SystemTime) -> Result<SystemTime, StartAtError> {
    let text = text.trim();
    let at = if let Some(offset) = text.strip_prefix("now") {
        match offset {
            "" => now,
            _ => {
                let wait = offset
                    .strip_prefix('+')
                    .and_then(|text| duration::parse(text).ok())
                    .ok_or(StartAtError::Unparsable)?;
                now.checked_add(wait).ok_or(StartAtError::Unparsable)?
            }
        }
    } else if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let seconds: f64 = text.parse().map_err(|_| StartAtError::Unparsable)?;
        Duration::try_from_secs_f64(seconds)
            .ok()
            .and_then(|since| UNIX_EPOCH.checked_add(since))
            .ok_or(StartAtError::Unparsable)?
    } else {
        let timestamp: jiff::Timestamp = text.parse().map_err(|_| StartAtError::Unparsable)?;
        SystemTime::try_from(timestamp).map_err(|_| StartAtError::Unparsable)?
    };
    match at.duration_since(now) {
        Ok(ahead) if ahead > MAX_START_AHEAD => Err(StartAtError::TooFar { at, ahead }),
        _ => Ok(at),
    }
}

/// `2026-12-04T10:00:00.250Z`: RFC 3339 in UTC, to the millisecond.
pub fn rfc3339(at: SystemTime) -> String {
    match jiff::Timestamp::try_from(at) {
        Ok(timestamp) => format!("{timestamp:.3}"),
        Err(_) => format!("{:.3} s after the Unix epoch", unix_seconds(at)),
    }
}

/// Seconds since the Unix epoch (negative before it).
pub fn unix_seconds(at: SystemTime) -> f64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(since) => since.as_secs_f64(),
        Err(before) => -before.duration().as_secs_f64(),
    }
}

/// C's `ctime` layout (`Wed Dec 02 11:39:16 2026`) in UTC, for ab's gnuplot file.
pub fn ctime(unix: u64) -> String {
    let timestamp = i64::try_from(unix)
        .ok()
        .and_then(|unix| jiff::Timestamp::from_second(unix).ok())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    timestamp.strftime("%a %b %d %H:%M:%S %Y").to_string()
}

/// `1.5 s`, `2 min 30 s`, `3 h 2 min`: a span for messages.
pub fn seconds(span: Duration) -> String {
    let total = span.as_secs();
    match total {
        0..60 => format!("{:.1} s", span.as_secs_f64()),
        60..3600 => format!("{} min {} s", total / 60, total % 60),
        _ => format!("{} h {} min", total / 3600, total % 3600 / 60),
    }
}
