//! The functions a placeholder may name, and how each writes its value: numbers digit by
//! digit, random values from a mixer of the request's number and the run's keys (no generator
//! state shared between threads), times from the wall clock as xsd:dateTime in UTC.

use super::Position;

/// The functions' names, as errors list them.
pub(crate) const NAMES: &str = "seq, random LO HI, uuid, now [+N|-N with s, m, h or d], pick a|b|c, wsse-username-token USER PASSWORD";

/// The number `seq` starts the warm-up's requests at: apart from the measured requests'
/// 0, 1, 2, ... (no run sends 10^15 requests), and within both an `i64` and a double's exact
/// integers, so that a database's key column or a JavaScript service reads it exactly.
pub(crate) const WARM_UP_SEQ: u64 = 1_000_000_000_000_000;

/// A function and its arguments, checked when parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Function {
    /// The request's number in the test: 0, 1, 2, ... across threads and shards.
    Seq,
    /// An integer from `low` to `low + span - 1`; a span of 0 is the whole of `i64`.
    Random { low: i64, span: u64 },
    /// A version 4 UUID, fresh in every run.
    Uuid,
    /// The wall clock's time, shifted by `offset_ms`, as `2026-12-07T19:20:00.123Z`.
    Now { offset_ms: i64 },
    /// One of the options, by the seeded mixer.
    Pick(Vec<Box<[u8]>>),
    /// The rendered body's length (a head's Content-Length).
    ContentLength,
}

/// The keys of a run's values: `seed` for what `--seed` reproduces (rows in random order,
/// `random`, `pick`), `run` fresh for each run (`uuid`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keys {
    pub(crate) seed: u64,
    pub(crate) run: u64,
}

impl Keys {
    /// `seed`, and a run key from the process's random hash keys (the operating system's
    /// randomness, without a dependency for it).
    pub(crate) fn new(seed: u64) -> Keys {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(seed);
        Keys {
            seed,
            run: hasher.finish(),
        }
    }
}

/// SplitMix64's finaliser: a bijection of `u64` whose outputs for consecutive inputs look
/// independent. Request `seq`'s value for placeholder `slot` is `mix(mix(key ^ seq) ^ slot')`.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A value of `key` for request `seq` and placeholder `slot`.
pub(crate) fn draw(key: u64, seq: u64, slot: u64) -> u64 {
    mix(mix(key ^ seq) ^ slot.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// A number below `n` from a uniform `u64` (Lemire's multiply-shift: no division).
pub(crate) fn below(value: u64, n: u64) -> u64 {
    ((u128::from(value) * u128::from(n)) >> 64) as u64
}

impl Function {
    /// The function `name` with `arguments`; `None` when no function has that name.
    pub(crate) fn parse(
        name: &str,
        arguments: &str,
        position: Position,
    ) -> Result<Option<Function>, String> {
        let none = |function: Function| {
            if arguments.is_empty() {
                Ok(Some(function))
            } else {
                Err(format!(
                    "{{{{{name}}}}} takes no arguments (found {arguments:?})"
                ))
            }
        };
        match name {
            "seq" => none(Function::Seq),
            "uuid" => none(Function::Uuid),
            "content-length" if position == Position::Head => none(Function::ContentLength),
            "content-length" => {
                Err("{{content-length}} is the body's own length: it goes in a header".into())
            }
            "random" => random(arguments).map(Some),
            "now" => now(arguments).map(Some),
            "pick" => pick(arguments, position).map(Some),
            _ => Ok(None),
        }
    }

    /// Writes the value for request `seq` at placeholder `slot`.
    pub(crate) fn write(
        &self,
        seq: u64,
        slot: u64,
        keys: Keys,
        body_len: usize,
        out: &mut Vec<u8>,
    ) {
        let mut digits = itoa::Buffer::new();
        match self {
            Function::Seq => out.extend_from_slice(digits.format(seq).as_bytes()),
            Function::ContentLength => out.extend_from_slice(digits.format(body_len).as_bytes()),
            Function::Random { low, span } => {
                let value = draw(keys.seed, seq, slot);
                let offset = if *span == 0 {
                    value
                } else {
                    below(value, *span)
                };
                let number = low.wrapping_add(offset as i64);
                out.extend_from_slice(digits.format(number).as_bytes());
            }
            Function::Pick(options) => {
                let index = below(draw(keys.seed, seq, slot), options.len() as u64);
                out.extend_from_slice(&options[index as usize]);
            }
            Function::Uuid => {
                write_uuid(draw(keys.run, seq, slot), draw(!keys.run, seq, slot), out)
            }
            Function::Now { offset_ms } => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_millis() as i64);
                write_date_time(now.saturating_add(*offset_ms), out);
            }
        }
    }
}

/// `random LO HI`: integers, inclusive, `LO <= HI`.
fn random(arguments: &str) -> Result<Function, String> {
    let usage = || {
        format!(
            "{{{{random {arguments}}}}}: expected {{{{random LO HI}}}}, two integers with LO <= HI"
        )
    };
    let mut words = arguments.split_whitespace();
    let (Some(low), Some(high), None) = (words.next(), words.next(), words.next()) else {
        return Err(usage());
    };
    let (Ok(low), Ok(high)) = (low.parse::<i64>(), high.parse::<i64>()) else {
        return Err(usage());
    };
    if low > high {
        return Err(usage());
    }
    // The span wraps to 0 for the whole of i64, which `write` reads as every value.
    let span = (high as u64).wrapping_sub(low as u64).wrapping_add(1);
    Ok(Function::Random { low, span })
}

/// `now`, `now +5m`, `now -1h`: an offset in seconds, minutes, hours or days.
fn now(arguments: &str) -> Result<Function, String> {
    if arguments.is_empty() {
        return Ok(Function::Now { offset_ms: 0 });
    }
    let usage = || {
        format!(
            "{{{{now {arguments}}}}}: expected {{{{now}}}} or an offset such as {{{{now +5m}}}} or {{{{now -2d}}}} (s, m, h or d)"
        )
    };
    let (sign, rest) = match arguments.as_bytes().first() {
        Some(b'+') => (1, &arguments[1..]),
        Some(b'-') => (-1, &arguments[1..]),
        _ => return Err(usage()),
    };
    // The unit is the last character, which may be more than a byte (`5µ`).
    let (split, _) = rest.char_indices().last().ok_or_else(usage)?;
    let (number, unit) = rest.split_at(split);
    let unit_ms: i64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(usage()),
    };
    let number: i64 = number.parse().map_err(|_| usage())?;
    // A century either way is as far as a date of four digits goes from now.
    let offset_ms = number
        .checked_mul(unit_ms)
        .filter(|ms| ms.unsigned_abs() <= 100 * 366 * 86_400_000)
        .ok_or_else(usage)?;
    Ok(Function::Now {
        offset_ms: sign * offset_ms,
    })
}

/// `pick a|b|c`: one of the options, as written (spaces inside them kept).
fn pick(arguments: &str, position: Position) -> Result<Function, String> {
    if arguments.is_empty() {
        return Err("{{pick}} needs options: {{pick a|b|c}}".into());
    }
    let options: Vec<Box<[u8]>> = arguments
        .split('|')
        .map(|option| option.as_bytes().into())
        .collect();
    if position == Position::Head
        && let Some(bad) = arguments.chars().find(|ch| ch.is_control())
    {
        return Err(format!(
            "{{{{pick {arguments}}}}} holds {bad:?}, which a request head cannot carry"
        ));
    }
    Ok(Function::Pick(options))
}

/// Writes `high`/`low` as a version 4, variant 1 UUID in lower-case hex.
fn write_uuid(high: u64, low: u64, out: &mut Vec<u8>) {
    let high = (high & !0xf000) | 0x4000;
    let low = (low & !(0b11 << 62)) | (0b10 << 62);
    let bytes = (u128::from(high) << 64 | u128::from(low)).to_be_bytes();
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (index, byte) in bytes.iter().enumerate() {
        if matches!(index, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(HEX[usize::from(byte >> 4)]);
        out.push(HEX[usize::from(byte & 0xf)]);
    }
}

/// The length of what [`write_date_time`] writes.
pub(crate) const DATE_TIME_LEN: usize = "2026-12-07T19:20:00.123Z".len();

/// Writes `unix_ms` as xsd:dateTime in UTC with milliseconds (`2026-12-07T19:20:00.123Z`);
/// the civil date from the day number by Howard Hinnant's algorithm. Written here rather than
/// through jiff, which the workspace has: 57 ns a time against jiff's 120-140 ns for
/// `{ts:.3}` and 680-710 ns for strftime (2 million times each, release, 2026-12-07), and a
/// UsernameToken writes three; the tests hold it to jiff's output.
pub(crate) fn write_date_time(unix_ms: i64, out: &mut Vec<u8>) {
    let days = unix_ms.div_euclid(86_400_000);
    let ms_of_day = unix_ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    let two = |value: i64, out: &mut Vec<u8>| {
        out.push(b'0' + (value / 10) as u8);
        out.push(b'0' + (value % 10) as u8);
    };
    two(year / 100, out);
    two(year % 100, out);
    out.push(b'-');
    two(month, out);
    out.push(b'-');
    two(day, out);
    out.push(b'T');
    two(ms_of_day / 3_600_000, out);
    out.push(b':');
    two(ms_of_day / 60_000 % 60, out);
    out.push(b':');
    two(ms_of_day / 1000 % 60, out);
    out.push(b'.');
    let ms = ms_of_day % 1000;
    out.push(b'0' + (ms / 100) as u8);
    two(ms % 100, out);
    out.push(b'Z');
}
