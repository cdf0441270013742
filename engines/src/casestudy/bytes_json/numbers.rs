//! JSON numbers both ways: the grammar scan, exact integers, floats, and the number writers.
//!
//! Exactness first: integers never pass through a float, decimals go to
//! [`Decimal::parse_json_number`](crate::model::Decimal::parse_json_number) as text, and only
//! `discount` (an `f64` in the model) is parsed as a float, with `str::parse::<f64>`, which rounds
//! correctly.

use super::error::ReadError;
use super::strings::truncated;
use crate::casestudy::json_text;

/// Scans the JSON number at `input[start]` (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`) and returns the index after it. What follows is the caller's business:
/// `012` scans as `0`, and the caller then finds `1` where it wants `,` or `}`.
///
/// `#[inline]`, like [`integer_value`]: both are part of the cursor's number readers
/// (`Cursor::scan_number_text`, `Cursor::parse_i64`), inlined into them whichever codegen unit
/// this file lands in, so profiles show the cursor's frames and not these.
#[inline]
pub(super) fn scan_number(input: &[u8], start: usize) -> Result<usize, ReadError> {
    let mut i = start;
    if input.get(i) == Some(&b'-') {
        i += 1;
    }
    match input.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = skip_digits(input, i + 1),
        Some(_) => return Err(ReadError::new(i, "expected a digit")),
        None => return Err(truncated(i)),
    }
    if input.get(i) == Some(&b'.') {
        i = expect_digits(input, i + 1)?;
    }
    if matches!(input.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(input.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = expect_digits(input, i)?;
    }
    Ok(i)
}

fn skip_digits(input: &[u8], mut i: usize) -> usize {
    while i < input.len() && input[i].is_ascii_digit() {
        i += 1;
    }
    i
}

#[inline]
fn expect_digits(input: &[u8], i: usize) -> Result<usize, ReadError> {
    match input.get(i) {
        Some(b'0'..=b'9') => Ok(skip_digits(input, i + 1)),
        Some(_) => Err(ReadError::new(i, "expected a digit")),
        None => Err(truncated(i)),
    }
}

/// The value of a scanned JSON number `text` if it is a whole number that fits an `i64`.
///
/// Plain integers (`10024`, `-5`) take the fast path; any other form of a whole number
/// (`10024.0`, `1.0024e4`) is accepted too, as Jackson accepts it for a `long`. `1.5` and
/// numbers out of range are `None`.
#[inline]
pub(super) fn integer_value(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    if digits.iter().all(u8::is_ascii_digit) {
        // Accumulate negatively so that i64::MIN fits.
        let mut value: i64 = 0;
        for &d in digits {
            value = value.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
        }
        return if negative {
            Some(value)
        } else {
            value.checked_neg()
        };
    }
    integer_value_general(negative, digits)
}

/// `int frac? exp?` without a sign: strip the trailing zeros of the digit string, then the value
/// is `significand * 10^power`, a whole number only when `power >= 0`.
#[cold]
fn integer_value_general(negative: bool, text: &[u8]) -> Option<i64> {
    let split = text
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .unwrap_or(text.len());
    let (mantissa, exponent) = text.split_at(split);
    let exponent: i64 = match exponent.get(1..) {
        None => 0,
        Some(e) => {
            let (neg, e) = match e.split_first() {
                Some((b'-', rest)) => (true, rest),
                Some((b'+', rest)) => (false, rest),
                _ => (false, e),
            };
            // Saturate: a huge exponent is out of range (or a huge negative one makes any
            // non-zero value a fraction) either way.
            let v = e.iter().fold(0i64, |acc, &d| {
                acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
            });
            if neg {
                -v
            } else {
                v
            }
        }
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    let all = || int.iter().chain(frac);
    let trailing_zeros = all().rev().take_while(|&&d| d == b'0').count();
    let significant = int.len() + frac.len() - trailing_zeros;
    let mut significand: i64 = 0;
    for &d in all().take(significant) {
        significand = significand
            .checked_mul(10)?
            .checked_add(i64::from(d - b'0'))?;
    }
    if significand == 0 {
        return Some(0);
    }
    let power = exponent
        .saturating_sub(frac.len() as i64)
        .saturating_add(trailing_zeros as i64);
    if power < 0 {
        return None;
    }
    let scale = 10i64.checked_pow(u32::try_from(power).ok()?)?;
    let magnitude = significand.checked_mul(scale)?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Writes `v` in decimal: the sign, then `casestudy::json_text`'s digits, shared with
/// `reflect_json`, in one append. This engine's own frame in profiles (see
/// `casestudy::json_text`).
pub(super) fn write_i64(out: &mut Vec<u8>, v: i64) {
    let mut buf = [0u8; 20];
    let digits = json_text::magnitude_digits(v, &mut buf);
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(digits);
}

/// Writes `discount` the way Java's `Double.toString` and Jackson do for the values of the
/// dataset: the shortest text that reads back to the same `f64`, with `.0` for whole numbers
/// (`0.0`, `0.24`). Rust's `Debug` for `f64` is exactly that (and uses an exponent, `1e-7`,
/// where Java would write `1.0E-7`: both are valid JSON numbers and read back the same).
/// Non-finite values are not JSON numbers: like Jackson (`WRITE_NAN_AS_STRINGS`, on by default)
/// they are written as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, which the reader takes.
///
/// Never inlined, so that profiles show it as its own frame whichever codegen unit the writer
/// lands in (it has one caller, which would otherwise take it in when they share a unit).
#[inline(never)]
pub(super) fn write_f64(out: &mut Vec<u8>, v: f64) {
    use std::io::Write as _;
    if v.is_finite() {
        // Writing into a Vec cannot fail.
        let _ = write!(out, "{v:?}");
    } else if v.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if v > 0.0 {
        out.extend_from_slice(b"\"Infinity\"");
    } else {
        out.extend_from_slice(b"\"-Infinity\"");
    }
}

/// The non-finite value a string stands for, as [`write_f64`] writes them.
pub(super) fn non_finite_from_name(name: &str) -> Option<f64> {
    match name {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_the_json_number_grammar() {
        let cases: &[(&str, Result<usize, usize>)] = &[
            ("0", Ok(1)),
            ("-0", Ok(2)),
            ("12,", Ok(2)),
            ("012", Ok(1)),
            ("1.5}", Ok(3)),
            ("3.994e2", Ok(7)),
            ("1E+10", Ok(5)),
            ("1e-3", Ok(4)),
            ("-", Err(1)),
            ("+1", Err(0)),
            (".5", Err(0)),
            ("1.", Err(2)),
            ("1.e3", Err(2)),
            ("1e", Err(2)),
            ("1e+", Err(3)),
            ("-a", Err(1)),
        ];
        for (text, want) in cases {
            let got = scan_number(text.as_bytes(), 0).map_err(|e| e.offset);
            assert_eq!(&got, want, "{text}");
        }
    }

    #[test]
    fn integers_are_exact_in_every_form() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("-0", Some(0)),
            ("10024", Some(10024)),
            ("-5", Some(-5)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
            ("10024.0", Some(10024)),
            ("1.0024e4", Some(10024)),
            ("100240e-1", Some(10024)),
            ("1753505827000", Some(1_753_505_827_000)),
            ("1.753505827E12", Some(1_753_505_827_000)),
            ("0.0e99999999999", Some(0)),
            ("1.5", None),
            ("1e-1", None),
            ("1e19", None),
            ("1e99999999999999999999", None),
            ("-1e18", Some(-1_000_000_000_000_000_000)),
        ];
        for (text, want) in cases {
            assert_eq!(integer_value(text.as_bytes()), *want, "{text}");
        }
    }

    #[test]
    fn writes_integers_and_floats_like_jackson() {
        let ints = [
            (0, "0"),
            (7, "7"),
            (-42, "-42"),
            (i64::MAX, "9223372036854775807"),
            (i64::MIN, "-9223372036854775808"),
        ];
        for (v, want) in ints {
            let mut out = Vec::new();
            write_i64(&mut out, v);
            assert_eq!(out, want.as_bytes());
        }
        let floats = [
            (0.0, "0.0"),
            (0.24, "0.24"),
            (0.29, "0.29"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "\"NaN\""),
            (f64::INFINITY, "\"Infinity\""),
            (f64::NEG_INFINITY, "\"-Infinity\""),
        ];
        for (v, want) in floats {
            let mut out = Vec::new();
            write_f64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }
}
