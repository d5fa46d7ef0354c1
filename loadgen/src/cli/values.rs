//! Values as ab reads them (`atoi`, seconds) and as loadgen's options read theirs.

use std::path::PathBuf;
use std::time::Duration;

use super::UsageError;
use crate::options::JsonOut;

/// `-p FILE@W`: a body of a mix and its weight. A file whose own name ends in `@digits` is
/// that file, as ab would read it.
pub(super) fn weighted_body(value: &str) -> Option<(PathBuf, u32)> {
    let (file, weight) = value.rsplit_once('@')?;
    let weight = weight.parse::<u32>().ok().filter(|weight| *weight > 0)?;
    if file.is_empty() || std::path::Path::new(value).exists() {
        return None;
    }
    Some((PathBuf::from(file), weight))
}

pub(super) fn json_out(value: &str) -> JsonOut {
    if value == "-" {
        JsonOut::Stdout
    } else {
        JsonOut::File(PathBuf::from(value))
    }
}

/// ab's `-t` and `-s` take whole or fractional seconds.
pub(super) fn ab_seconds(value: &str, flag: &str) -> Result<Duration, UsageError> {
    match value.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(UsageError::usage(format!(
            "ab: {flag} expects a number of seconds, not {value:?}"
        ))),
    }
}

/// C's `atoi`, as ab reads numbers: leading digits count, the rest is ignored, garbage is 0.
pub(super) fn atoi(text: &str) -> i64 {
    let text = text.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |value, digit| {
            value
                .saturating_mul(10)
                .saturating_add(i64::from(digit - b'0'))
        });
    if negative { -value } else { value }
}
