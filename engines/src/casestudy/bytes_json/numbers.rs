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
pub fn scan_number(input: &[u8], start: usize) -> Result<usize, ReadError> {
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
pub fn integer_value(text: &[u8]) -> Option<i64> {
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
pub fn write_i64(out: &mut Vec<u8>, v: i64) {
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
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
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
