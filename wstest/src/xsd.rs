//! The xsd value rules every binding reads and writes values by, so that all of them agree on
//! what a value means: xsd:int, xsd:float (by bits, with `INF`, `-INF` and `NaN`),
//! xsd:dateTime (UTC, milliseconds), xsd:boolean and xsd:base64Binary, and the calendar
//! arithmetic under the dates. Each `parse_*` takes an element's text and returns `None` for a
//! value the type does not allow; each `push_*` appends the canonical text.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::model::DateTime;
use crate::sink::Sink;

/// xsd's white space: what `whiteSpace="collapse"` trims around a value.
pub fn is_xml_space(ch: char) -> bool {
    matches!(ch, ' ' | '\t' | '\n' | '\r')
}

/// Parses xsd:int: an optional sign and digits; xsd collapses the white space around them.
#[inline]
pub fn parse_int(text: &str) -> Option<i32> {
    plain_int(text.as_bytes()).or_else(|| general_int(text))
}

/// The common case, `-?digits` with at most nine digits, which cannot overflow and needs no
/// trim: [`scan_int`] over the whole text.
#[inline(always)]
fn plain_int(bytes: &[u8]) -> Option<i32> {
    scan_int(bytes, 0)
        .filter(|&(_, end)| end == bytes.len())
        .map(|(value, _)| value)
}

#[cold]
fn general_int(text: &str) -> Option<i32> {
    text.trim_matches(is_xml_space).parse().ok()
}

/// Parses xsd:float: decimal and exponent forms, `INF`, `+INF`, `-INF` and `NaN`, as xsd spells
/// them (Rust alone would also take `inf` and `infinity`, which xsd does not).
#[inline]
pub fn parse_float(text: &str) -> Option<f32> {
    parse_plain_decimal(text.as_bytes()).or_else(|| general_float(text))
}

#[cold]
fn general_float(text: &str) -> Option<f32> {
    let text = text.trim_matches(is_xml_space);
    match text {
        "INF" | "+INF" => return Some(f32::INFINITY),
        "-INF" => return Some(f32::NEG_INFINITY),
        "NaN" => return Some(f32::NAN),
        _ => {}
    }
    let numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if numeric { text.parse().ok() } else { None }
}

/// The common case of xsd:float, `-?digits(.digits)?` with at most 15 digits of which at most 8
/// follow the point, read without the general parser: [`scan_float`] over the whole text.
///
/// The digits make an integer m below 10^15, which an f64 holds exactly, as it does 10^k; so
/// m / 10^k is the f64 nearest the decimal. Rounding that to f32 gives the f32 nearest the
/// decimal unless the f64 landed on the midpoint between two f32s while the decimal itself is
/// not that midpoint. A midpoint is M/2^e with M of 25 bits; a decimal m/10^k that differs from
/// it differs by at least 1/(10^k 2^e), which is more than half an f64 ulp of the midpoint
/// (2^(24-e-53)) as long as 10^k < 2^29, that is k <= 8. (Midpoints above 2^25 are integers, and
/// m < 2^50 keeps them safe at any k.) With more fraction digits it does go wrong:
/// "2.66307270526886" read as 2.6630726 where the nearest f32 is 2.6630728 (found by a search
/// around midpoints; the cases are in the tests), so those go to the general parser.
#[inline(always)]
fn parse_plain_decimal(text: &[u8]) -> Option<f32> {
    scan_float(text, 0)
        .filter(|&(_, end)| end == text.len())
        .map(|(value, _)| value)
}

/// A canonical xsd:int at `at`, `-?digits` with at most nine digits: its value and where it
/// ends, for the fast lexer's shortcut, which reads a number in the pass that finds its end (a
/// separate find and parse cost it twice the instructions). Anything else there (white space,
/// `+`, ten digits) is `None`, for the general reading; what follows is the caller's to check.
#[inline(always)]
pub(crate) fn scan_int(bytes: &[u8], at: usize) -> Option<(i32, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let mut end = start;
    let mut value = 0i32;
    while let Some(&byte) = bytes.get(end) {
        let digit = byte.wrapping_sub(b'0');
        if digit >= 10 {
            break;
        }
        if end - start == 9 {
            return None;
        }
        value = value * 10 + i32::from(digit);
        end += 1;
    }
    (end > start).then_some((if negative { -value } else { value }, end))
}

/// A canonical xsd:float at `at`, `-?digits(.digits)?` with at most 15 digits of which at most
/// 8 follow the point, by the arithmetic [`parse_plain_decimal`] explains: its value and where
/// it ends; anything else is `None`, as for [`scan_int`].
#[inline(always)]
pub(crate) fn scan_float(bytes: &[u8], at: usize) -> Option<(f32, usize)> {
    const POWERS: [f64; 9] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];
    let negative = bytes.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let mut end = start;
    let mut mantissa = 0u64;
    let mut point = None;
    while let Some(&byte) = bytes.get(end) {
        let digit = byte.wrapping_sub(b'0');
        if digit < 10 {
            mantissa = mantissa * 10 + u64::from(digit);
        } else if byte == b'.' && point.is_none() {
            point = Some(end);
        } else {
            break;
        }
        end += 1;
        if end - start > 16 {
            return None;
        }
    }
    let n_fraction = match point {
        None => 0,
        Some(at) if at == start || at + 1 == end => return None,
        Some(at) => end - at - 1,
    };
    let n_digits = end - start - usize::from(point.is_some());
    if n_digits == 0 || n_digits > 15 {
        return None;
    }
    let value = mantissa as f64 / *POWERS.get(n_fraction)?;
    Some(((if negative { -value } else { value }) as f32, end))
}

/// Parses xsd:dateTime, `YYYY-MM-DDThh:mm:ss[.fff…][Z|±hh:mm]`, to UTC; a value without a zone
/// is taken as UTC, and digits past the millisecond are dropped.
pub fn parse_date_time(text: &str) -> Option<DateTime> {
    let text = text.trim_matches(is_xml_space);
    let (date, time) = text.split_once('T')?;
    let (year, month_day) = date.split_at_checked(date.len().checked_sub(6)?)?;
    // Years past nine digits would overflow the milliseconds below; no WSTest date has them.
    if year.len() < 4 || year.len() > 9 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i64 = year.parse().ok()?;
    let month_day = month_day.as_bytes();
    if month_day[0] != b'-' || month_day[3] != b'-' {
        return None;
    }
    let month = two_digits(&month_day[1..3])?;
    let day = two_digits(&month_day[4..6])?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let time_bytes = time.as_bytes();
    if time_bytes.len() < 8 || time_bytes[2] != b':' || time_bytes[5] != b':' {
        return None;
    }
    let hour = two_digits(&time_bytes[0..2])?;
    let minute = two_digits(&time_bytes[3..5])?;
    let second = two_digits(&time_bytes[6..8])?;
    // 24:00:00 is the end of the day; a leap second (60) is taken as the next second.
    if hour > 24 || minute > 59 || second > 60 || (hour == 24 && (minute, second) != (0, 0)) {
        return None;
    }
    let mut rest = &time[8..];
    let mut millis = 0i64;
    if let Some(fraction) = rest.strip_prefix('.') {
        let n_digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n_digits == 0 {
            return None;
        }
        for (idx, digit) in fraction.bytes().take(n_digits.min(3)).enumerate() {
            millis += i64::from(digit - b'0') * 10i64.pow(2 - idx as u32);
        }
        rest = &fraction[n_digits..];
    }
    let offset_minutes = match rest.as_bytes() {
        [] | [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (hours, minutes) = (two_digits(&[*h1, *h2])?, two_digits(&[*m1, *m2])?);
            if minutes > 59 || hours * 60 + minutes > 14 * 60 {
                return None;
            }
            let minutes = i64::from(hours * 60 + minutes);
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_minutes * 60;
    Some(DateTime {
        unix_millis: secs * 1000 + millis,
    })
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn two_digits(bytes: &[u8]) -> Option<u32> {
    match bytes {
        [tens, ones] if tens.is_ascii_digit() && ones.is_ascii_digit() => {
            Some(u32::from(tens - b'0') * 10 + u32::from(ones - b'0'))
        }
        _ => None,
    }
}

/// Parses xsd:base64Binary, allowing the line breaks and spaces that clients wrap it with.
pub fn parse_base64(text: &str) -> Option<Vec<u8>> {
    if text.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        BASE64.decode(compact).ok()
    } else {
        BASE64.decode(text).ok()
    }
}

/// Parses xsd:boolean: `true`, `false`, `1` or `0`, with the white space around them.
pub fn parse_boolean(text: &str) -> Option<bool> {
    match text.trim_matches(is_xml_space) {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Appends an xsd:int.
#[inline]
pub fn push_int(out: &mut Vec<u8>, value: i32) {
    put_int(out, value);
}

/// Puts an xsd:int.
#[inline(always)]
pub(crate) fn put_int(out: &mut impl Sink, value: i32) {
    if value < 0 {
        out.put(*b"-");
    }
    put_decimal(out, u64::from(value.unsigned_abs()));
}

/// Puts the decimal digits of `value`: those below 1,000, nearly every number WSTest messages
/// carry, as one copy of a fixed size, which compiles to a store; itoa's for the rest, whose copy
/// of a variable length is a call to memcpy (on EchoStruct-100 the two calls an item were 16% of
/// the encode, callgrind).
#[inline(always)]
fn put_decimal(out: &mut impl Sink, value: u64) {
    let digit = |value: u64| b'0' + (value % 10) as u8;
    if value < 10 {
        out.put([digit(value)]);
    } else if value < 100 {
        out.put([digit(value / 10), digit(value)]);
    } else if value < 1000 {
        out.put([digit(value / 100), digit(value / 10), digit(value)]);
    } else {
        out.put_slice(itoa::Buffer::new().format(value).as_bytes());
    }
}

/// Appends an xsd:float: the shortest text that reads back to the same bits.
#[inline]
pub fn push_float(out: &mut Vec<u8>, value: f32) {
    put_float(out, value);
}

/// Puts an xsd:float, as [`push_float`] appends it.
#[inline(always)]
pub(crate) fn put_float(out: &mut impl Sink, value: f32) {
    // Values that are exactly a decimal of at most six digits with one after the point (2.0,
    // 7.5; not 0.1, which binary cannot hold) are written from their integer tenths: the same
    // text as ryu's shortest form, since no shorter decimal lies within half a unit in the last
    // place of an f32 at six digits, at a fraction of ryu's cost. The tenths are exact: an f32
    // times ten fits an f64 exactly.
    let tenths = f64::from(value) * 10.0;
    let magnitude = tenths.abs();
    if value != 0.0 && magnitude < 1e6 {
        // A cast rather than `fract()`, which is a call into libm; of the magnitude below 1e6,
        // so that it needs none of the saturation a cast of any f64 compiles to.
        let whole_tenths = magnitude as u32;
        if f64::from(whole_tenths) == magnitude {
            if value < 0.0 {
                out.put(*b"-");
            }
            put_decimal(out, u64::from(whole_tenths / 10));
            out.put([b'.', b'0' + (whole_tenths % 10) as u8]);
            return;
        }
    }
    out.put_slice(format_float(&mut ryu::Buffer::new(), value).as_bytes());
}

/// Formats an xsd:float: the shortest text that reads back to the same bits, with xsd's `INF`,
/// `-INF` and `NaN` where Rust would write `inf`.
pub fn format_float(buffer: &mut ryu::Buffer, value: f32) -> &str {
    if value.is_nan() {
        "NaN"
    } else if value == f32::INFINITY {
        "INF"
    } else if value == f32::NEG_INFINITY {
        "-INF"
    } else {
        buffer.format_finite(value)
    }
}

/// Appends xsd:base64Binary, unwrapped.
pub fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    let at = out.len();
    let n_chars = bytes.len().div_ceil(3) * 4;
    out.resize(at + n_chars, 0);
    let written = BASE64
        .encode_slice(bytes, &mut out[at..])
        .expect("the buffer was sized for the encoded length");
    out.truncate(at + written);
}

/// Writes an instant as xsd:dateTime in UTC with milliseconds: `2026-12-02T11:45:53.000Z`.
pub fn push_date_time(out: &mut Vec<u8>, value: DateTime) {
    let millis = value.unix_millis.rem_euclid(1000);
    let secs = value.unix_millis.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let secs_of_day = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let mut itoa_buf = itoa::Buffer::new();
    if (0..10_000).contains(&year) {
        push_digits(out, year as u32, 4);
    } else {
        out.extend_from_slice(itoa_buf.format(year).as_bytes());
    }
    out.push(b'-');
    push_digits(out, month, 2);
    out.push(b'-');
    push_digits(out, day, 2);
    out.push(b'T');
    push_digits(out, (secs_of_day / 3600) as u32, 2);
    out.push(b':');
    push_digits(out, (secs_of_day / 60 % 60) as u32, 2);
    out.push(b':');
    push_digits(out, (secs_of_day % 60) as u32, 2);
    // Always three digits of milliseconds: a response whose length changes with the clock would
    // count as a "Length" failure in ab.
    out.push(b'.');
    push_digits(out, millis as u32, 3);
    out.push(b'Z');
}

fn push_digits(out: &mut Vec<u8>, value: u32, width: u32) {
    for power in (0..width).rev() {
        out.push(b'0' + (value / 10u32.pow(power) % 10) as u8);
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after Howard Hinnant's
/// `civil_from_days`.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A proleptic Gregorian date to days since 1970-01-01, the inverse of [`civil_from_days`].
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests;
