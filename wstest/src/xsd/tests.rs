//! Each reader of xsd against the standard parsers and the cases that broke it; each writer
//! against Rust's own formatting.

use super::*;

/// Dates as the GetOrder response carries them: well-formed ones in UTC, and every
/// malformed or out-of-range one refused rather than wrapped or panicked on.
#[test]
fn date_times_are_read_or_refused() {
    const EPOCH_2004: i64 = 1_072_915_200_000;
    let cases: [(&str, Option<i64>); 24] = [
        ("2004-01-01T00:00:00Z", Some(EPOCH_2004)),
        ("2004-01-01T00:00:00", Some(EPOCH_2004)),
        (" 2004-01-01T00:00:00.5Z ", Some(EPOCH_2004 + 500)),
        ("2004-01-01T01:00:00+01:00", Some(EPOCH_2004)),
        ("2003-12-31T23:00:00-01:00", Some(EPOCH_2004)),
        ("2003-12-31T24:00:00Z", Some(EPOCH_2004)),
        ("2004-02-29T00:00:00Z", Some(EPOCH_2004 + 59 * 86_400_000)),
        ("2003-02-29T00:00:00Z", None),
        ("2004-02-30T00:00:00Z", None),
        ("2004-04-31T00:00:00Z", None),
        ("2004-13-01T00:00:00Z", None),
        ("2004-00-01T00:00:00Z", None),
        ("2004-01-00T00:00:00Z", None),
        ("2004-01-01T24:00:01Z", None),
        ("2004-01-01T00:60:00Z", None),
        ("2004-01-01T00:00:61Z", None),
        ("2004-01-01T00:00:00+15:00", None),
        ("2004-01-01T00:00:00+01:60", None),
        ("2004-1-1T00:00:00Z", None),
        ("2004-01-01 00:00:00Z", None),
        ("2004-01-01T00:00:00Zjunk", None),
        ("99999999999999999-01-01T00:00:00Z", None),
        ("", None),
        ("T", None),
    ];
    for (text, expected) in cases {
        assert_eq!(
            parse_date_time(text).map(|date| date.unix_millis),
            expected,
            "{text:?}"
        );
    }
}

/// The shortcut for plain integers reads every one as the general parser does.
#[test]
fn plain_integers_parse_as_the_standard_parser_does() {
    for text in [
        "0",
        "-0",
        "7",
        "-7",
        "123456789",
        "-123456789",
        "1234567890",
        "2147483647",
        "-2147483648",
        "2147483648",
        "+5",
        " 5 ",
        "",
        "-",
        "5a",
        "0005",
    ] {
        assert_eq!(parse_int(text), text.trim().parse::<i32>().ok(), "{text:?}");
    }
}

/// The shortcut for plain decimals reads every one exactly as the general parser does.
#[test]
fn plain_decimals_parse_as_the_standard_parser_does() {
    let mut rng = testkit::Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200_000 {
        let n_int = rng.below(10);
        let n_fraction = rng.below(9);
        let digits: String = (0..n_int + n_fraction)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect();
        let sign = rng.pick(&["-", ""]);
        let text = if n_fraction == 0 {
            format!("{sign}{digits}")
        } else {
            format!("{sign}{}.{}", &digits[..n_int], &digits[n_int..])
        };
        let expected = text.parse::<f32>().ok();
        let actual = parse_float(&text);
        assert_eq!(
            actual.map(f32::to_bits),
            expected.map(f32::to_bits),
            "{text:?}"
        );
    }
}

/// Every integer is written as Rust writes it, on both sides of each size the writer
/// treats apart.
#[test]
fn integers_are_written_as_rust_writes_them() {
    for value in [
        0,
        9,
        10,
        99,
        100,
        999,
        1000,
        -1,
        -10,
        -999,
        -1000,
        i32::MIN,
        i32::MAX,
    ] {
        let mut out = Vec::new();
        push_int(&mut out, value);
        assert_eq!(String::from_utf8(out).unwrap(), value.to_string());
    }
    for (value, text) in [
        (2.0f32, "2.0"),
        (10.5, "10.5"),
        (-999.5, "-999.5"),
        (1234.5, "1234.5"),
    ] {
        let mut out = Vec::new();
        push_float(&mut out, value);
        assert_eq!(String::from_utf8(out).unwrap(), text);
    }
}

/// The fast lexer's scans read a number where it stands, stop at what follows, and agree
/// with the parsers wherever they read one; the shapes they leave alone are `None`.
#[test]
fn number_scans_agree_with_the_parsers() {
    let ints: [(&str, Option<i32>); 9] = [
        ("1<", Some(1)),
        ("-17</i>", Some(-17)),
        ("999999999<", Some(999_999_999)),
        ("1000000000<", None),
        ("-<", None),
        ("<", None),
        ("+5<", None),
        (" 5<", None),
        ("0042<", Some(42)),
    ];
    for (text, expected) in ints {
        let scanned = scan_int(text.as_bytes(), 0);
        assert_eq!(scanned.map(|(value, _)| value), expected, "{text:?}");
        if let Some((value, end)) = scanned {
            assert_eq!(&text[end..end + 1], "<", "{text:?}");
            assert_eq!(parse_int(&text[..end]), Some(value), "{text:?}");
        }
    }
    let floats: [(&str, Option<f32>); 11] = [
        ("2.5<", Some(2.5)),
        ("-0.00000001<", Some(-0.000_000_01)),
        ("-0.000000001<", None),
        ("10<", Some(10.0)),
        ("1.000000001<", None),
        ("1234567890123456<", None),
        (".5<", None),
        ("5.<", None),
        ("1e3<", Some(1.0)),
        ("1.2.3<", Some(1.2)),
        ("NaN<", None),
    ];
    for (text, expected) in floats {
        let scanned = scan_float(text.as_bytes(), 0);
        assert_eq!(scanned.map(|(value, _)| value), expected, "{text:?}");
        if let Some((value, end)) = scanned {
            assert_eq!(parse_float(&text[..end]), Some(value), "{text:?}");
        }
    }
}

/// Decimals as close as their digits allow to the midpoint between two f32s, where rounding
/// twice (to f64, then to f32) can land on the wrong side: every one is read as the
/// standard parser reads it. The first cases were read one f32 off before the shortcut was
/// limited to 8 fraction digits.
#[test]
fn decimals_next_to_f32_midpoints_round_as_the_standard_parser_does() {
    let check = |text: &str| {
        assert_eq!(
            parse_float(text).map(f32::to_bits),
            text.parse::<f32>().ok().map(f32::to_bits),
            "{text:?}"
        );
    };
    for text in [
        "2.66307270526886",
        "7.92193865776062",
        "6.84952187538147",
        "1.90224951505661",
        "0.99137082695961",
    ] {
        check(text);
    }
    let mut rng = testkit::Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        // An f32 between 2^-20 and 2^30, and the midpoint above it, exact in an f64.
        let exponent = rng.below(50) as u32 + 107;
        let below = f32::from_bits(exponent << 23 | (rng.next_u64() as u32 & 0x7F_FFFF));
        let midpoint = (f64::from(below) + f64::from(f32::from_bits(below.to_bits() + 1))) / 2.0;
        for n_fraction in 1..=14 {
            let nearest = format!("{midpoint:.n_fraction$}");
            if nearest.len() > 16 {
                break;
            }
            let scaled: u64 = nearest.replace('.', "").parse().unwrap();
            for candidate in [scaled.saturating_sub(1), scaled, scaled + 1] {
                let digits = format!("{candidate:0width$}", width = n_fraction + 1);
                let (int, fraction) = digits.split_at(digits.len() - n_fraction);
                check(&format!("{int}.{fraction}"));
            }
        }
    }
}
