//! An exact decimal with scale 2 (Java's `BigDecimal` prices: `218.62`, `2.00`).
//!
//! The value is held as whole cents and never passes through a float in the hand-written
//! engines. Serde has no decimal type, so the derived engines write:
//! - human-readable formats (serde_json, sonic-rs, simd-json): a JSON number. It is produced from
//!   `cents / 100` as an `f64`, whose shortest form is exactly the decimal without trailing
//!   zeros (`218.62`, but `2.0` for `2.00`: the scale is not kept). On read, an `f64` is accepted
//!   only when it is the float nearest to a whole number of cents, which is exact for every
//!   |value| below 2^53 / 100. This is a documented difference from Jackson; there is no way to
//!   write a number with its scale through serde without serde_json's `arbitrary_precision`
//!   feature, which slows every number it parses.
//! - binary formats: the cents as an `i64`.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

engine_derives! {
/// An exact decimal number with two fraction digits, stored as cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "musli", musli(transparent))]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
pub struct Decimal {
    /// The value in hundredths.
    pub cents: i64,
}
}

/// Writes the decimal digits of `n` into `buf` so that they end just before `end`, from the last
/// digit back (`0` is one digit), and returns the index of the first. The one digit loop of the
/// hand-written number writers: [`Decimal`]'s text here, and the integers of the case-study JSON
/// engines (`casestudy::json_text`). Always inlined into each writer, whose frame profiles show.
#[inline(always)]
pub(crate) fn digits_before(buf: &mut [u8], end: usize, mut n: u64) -> usize {
    let mut i = end;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    i
}

/// Why a number could not be read as a [`Decimal`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    /// The text is not a decimal number.
    #[error("invalid number syntax")]
    Syntax,
    /// The number has more than two fraction digits.
    #[error("number is not a whole number of cents")]
    NotCents,
    /// The number does not fit in an `i64` of cents.
    #[error("number out of range")]
    OutOfRange,
}

impl Decimal {
    /// The decimal of `cents` hundredths.
    pub const fn from_cents(cents: i64) -> Decimal {
        Decimal { cents }
    }

    /// Parses a JSON number (RFC 8259 grammar: `-?int frac? exp?`) whose value is a whole number
    /// of cents: `399.4`, `399.40` and `3.994e2` are all 39,940 cents; `1.001` is an error.
    pub fn parse_json_number(text: &[u8]) -> Result<Decimal, DecimalError> {
        let mut i = 0;
        let negative = text.first() == Some(&b'-');
        if negative {
            i += 1;
        }
        // Significant digits, with leading zeros dropped; `scale` counts fraction digits kept.
        let mut digits: u128 = 0;
        let mut ndigits = 0u32;
        let mut exp: i64 = 0;
        let int_start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &text[int_start..i];
        if int_part.is_empty() || (int_part.len() > 1 && int_part[0] == b'0') {
            return Err(DecimalError::Syntax);
        }
        let mut frac_part: &[u8] = &[];
        if i < text.len() && text[i] == b'.' {
            let start = i + 1;
            i = start;
            while i < text.len() && text[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &text[start..i];
            if frac_part.is_empty() {
                return Err(DecimalError::Syntax);
            }
        }
        if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
            i += 1;
            let mut exp_negative = false;
            if i < text.len() && (text[i] == b'+' || text[i] == b'-') {
                exp_negative = text[i] == b'-';
                i += 1;
            }
            let start = i;
            while i < text.len() && text[i].is_ascii_digit() {
                exp = exp
                    .saturating_mul(10)
                    .saturating_add(i64::from(text[i] - b'0'));
                i += 1;
            }
            if start == i {
                return Err(DecimalError::Syntax);
            }
            if exp_negative {
                exp = -exp;
            }
        }
        if i != text.len() {
            return Err(DecimalError::Syntax);
        }
        // Trailing zeros of the whole digit string do not change the value: drop them first so
        // that `1.000000000000000000000000` is still a whole number of cents.
        let all = int_part.iter().chain(frac_part.iter());
        let total_len = int_part.len() + frac_part.len();
        let trailing_zeros = int_part
            .iter()
            .chain(frac_part.iter())
            .rev()
            .take_while(|&&d| d == b'0')
            .count();
        let significant = total_len - trailing_zeros;
        for &d in all.take(significant) {
            if digits == 0 && d == b'0' {
                continue;
            }
            ndigits += 1;
            if ndigits > 30 {
                return Err(DecimalError::OutOfRange);
            }
            digits = digits * 10 + u128::from(d - b'0');
        }
        if digits == 0 {
            return Ok(Decimal::from_cents(0));
        }
        // value = digits * 10^(power), power counted in cents.
        let dropped_frac = frac_part.len() as i64 - trailing_zeros as i64;
        let power = exp.saturating_add(2).saturating_sub(dropped_frac);
        let cents: u128 = if power >= 0 {
            if power > 38 {
                return Err(DecimalError::OutOfRange);
            }
            digits
                .checked_mul(10u128.pow(power as u32))
                .ok_or(DecimalError::OutOfRange)?
        } else {
            // digits has no trailing zeros, so it is never divisible by 10.
            return Err(DecimalError::NotCents);
        };
        let cents = i64::try_from(cents).map_err(|_| DecimalError::OutOfRange)?;
        Ok(Decimal::from_cents(if negative { -cents } else { cents }))
    }

    /// Writes the decimal with exactly two fraction digits (`218.62`, `2.00`, `-0.05`).
    pub fn write_to(self, out: &mut Vec<u8>) {
        let mut buf = [0u8; 24];
        let text = self.format(&mut buf);
        out.extend_from_slice(text);
    }

    fn format(self, buf: &mut [u8; 24]) -> &[u8] {
        let negative = self.cents < 0;
        let mut v = self.cents.unsigned_abs();
        let mut i = buf.len();
        for _ in 0..2 {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        i -= 1;
        buf[i] = b'.';
        i = digits_before(buf, i, v);
        if negative {
            i -= 1;
            buf[i] = b'-';
        }
        &buf[i..]
    }

    fn from_f64(x: f64) -> Option<Decimal> {
        let cents = (x * 100.0).round();
        if !cents.is_finite() || cents.abs() > (1u64 << 53) as f64 {
            return None;
        }
        let cents = cents as i64;
        ((cents as f64) / 100.0 == x).then_some(Decimal::from_cents(cents))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 24];
        let text = self.format(&mut buf);
        f.write_str(std::str::from_utf8(text).expect("digits are ASCII"))
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_f64(self.cents as f64 / 100.0)
        } else {
            serializer.serialize_i64(self.cents)
        }
    }
}

struct DecimalVisitor;

impl Visitor<'_> for DecimalVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a decimal number with at most two fraction digits")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
        v.checked_mul(100)
            .map(Decimal::from_cents)
            .ok_or_else(|| E::custom(DecimalError::OutOfRange))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
        i64::try_from(v)
            .ok()
            .and_then(|v| v.checked_mul(100))
            .map(Decimal::from_cents)
            .ok_or_else(|| E::custom(DecimalError::OutOfRange))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
        Decimal::from_f64(v).ok_or_else(|| E::custom(DecimalError::NotCents))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
        Decimal::parse_json_number(v.as_bytes()).map_err(E::custom)
    }
}

struct CentsVisitor;

impl Visitor<'_> for CentsVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number of cents")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
        Ok(Decimal::from_cents(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
        i64::try_from(v)
            .map(Decimal::from_cents)
            .map_err(|_| E::custom(DecimalError::OutOfRange))
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(DecimalVisitor)
        } else {
            deserializer.deserialize_i64(CentsVisitor)
        }
    }
}

/// Our [`Decimal`] as its cents, through fory's `i64` encoding.
///
/// It lives with the model because the model's fory derive names it. A separate serializer
/// type, selected with `#[fory(with = DecimalCents)]` on the model's price
/// fields, because fory's derive treats any field type named `Decimal` as its own
/// `fory::Decimal` (an arbitrary-precision unscaled integer plus a scale, like Java's
/// `BigDecimal`). For scale-2 prices the cents carry the same information in fewer bytes.
pub struct DecimalCents;

#[cfg(feature = "fory")]
impl fory::Serializer for DecimalCents {
    type Target = Decimal;

    fn write_data(value: &Decimal, context: &mut fory::WriteContext) -> Result<(), fory::Error> {
        <i64 as fory::Serializer>::write_data(&value.cents, context)
    }

    fn read_data(context: &mut fory::ReadContext) -> Result<Decimal, fory::Error> {
        <i64 as fory::Serializer>::read_data(context).map(Decimal::from_cents)
    }
}
