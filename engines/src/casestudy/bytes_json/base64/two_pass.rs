//! The two-pass base64 decoder of Fory JSON 1.7.0's first base64 reader, the first of the two
//! fixes in Ingo Kegel, "How we made Apache Fory JSON 4.5 times faster" (ej-technologies blog,
//! 2026-09-07), copied faithfully in its shape so that the `bytes` study measures what the
//! article profiled.
//!
//! Pass 1 validates: it walks the string, decodes any escape, and classifies every character with
//! an if-chain (A-Z, a-z, 0-9, `+`, `/`, `=`), counting digits and padding. Pass 2 decodes: it
//! walks the string again from the start, checks every character for an escape again, runs the
//! same if-chain again to get the 6-bit value, and then takes a 4-way branch on the digit's
//! position in its group of four to place its bits, pushing one byte at a time.
//!
//! This is honestly slow the way the article describes it, and not slower: no allocation per
//! character, no formatting, no extra passes. It takes the same strings as the table decoder and
//! the `base64` crate (canonical padding, zero trailing bits).

use super::common::{padding_error, TRAILING_BITS};
use crate::casestudy::bytes_json::error::ReadError;
use crate::casestudy::bytes_json::strings::{parse_escape, truncated};

/// One character of the string body, with a JSON escape decoded, and the index after it.
///
/// Fory's reader does this check for every character in both passes. A non-ASCII escaped
/// character can never be a base64 character: it becomes 0, which the if-chain rejects.
#[inline(always)]
fn next_char(input: &[u8], i: usize) -> Result<(u8, usize), ReadError> {
    let b = input[i];
    if b == b'\\' {
        let (c, next) = parse_escape(input, i)?;
        let c = if c.is_ascii() { c as u8 } else { 0 };
        return Ok((c, next));
    }
    Ok((b, i + 1))
}

/// The if-chain: the 6-bit value of a base64 digit, [`PADDING`] for `=`, [`NOT_BASE64`] for
/// anything else.
#[inline(always)]
pub fn classify(c: u8) -> u8 {
    if c.is_ascii_uppercase() {
        c - b'A'
    } else if c.is_ascii_lowercase() {
        c - b'a' + 26
    } else if c.is_ascii_digit() {
        c - b'0' + 52
    } else if c == b'+' {
        62
    } else if c == b'/' {
        63
    } else if c == b'=' {
        PADDING
    } else {
        NOT_BASE64
    }
}

pub const PADDING: u8 = 64;
pub const NOT_BASE64: u8 = 65;

/// Decodes the base64 string whose body starts at `input[start]` (after the opening quote) and
/// returns the bytes and the index after the closing quote.
///
/// Never inlined, and named for base64, so that profiles show it as its own frame.
#[inline(never)]
pub fn decode_base64_two_pass(input: &[u8], start: usize) -> Result<(Vec<u8>, usize), ReadError> {
    let (digits, body_end) = validate(input, start)?;
    let bytes = decode(input, start, body_end, digits)?;
    Ok((bytes, body_end + 1))
}

/// Pass 1: finds the closing quote, checks every character and the padding, and returns the
/// number of digits (padding excluded) and the index of the closing quote.
fn validate(input: &[u8], start: usize) -> Result<(usize, usize), ReadError> {
    let mut i = start;
    let mut digits = 0usize;
    let mut pads = 0usize;
    loop {
        if i >= input.len() {
            return Err(truncated(i));
        }
        if input[i] == b'"' {
            break;
        }
        let at = i;
        let (c, next) = next_char(input, i)?;
        i = next;
        let v = classify(c);
        if v == PADDING {
            pads += 1;
            if pads > 2 {
                return Err(ReadError::new(at, "too much base64 padding"));
            }
        } else if v == NOT_BASE64 {
            return Err(ReadError::new(
                at,
                if c < 0x20 && input[at] != b'\\' {
                    "control character in string (must be escaped)"
                } else {
                    "invalid base64 character"
                },
            ));
        } else if pads > 0 {
            return Err(ReadError::new(at, "base64 digit after padding"));
        } else {
            digits += 1;
        }
    }
    if let Some(message) = padding_error(digits, pads) {
        return Err(ReadError::new(i, message));
    }
    Ok((digits, i))
}

/// Pass 2: re-reads every character (escape check, if-chain) and places its bits with a 4-way
/// branch on its position in the group of four.
fn decode(input: &[u8], start: usize, end: usize, digits: usize) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::with_capacity(digits / 4 * 3 + 2);
    let mut i = start;
    let mut position = 0usize;
    let mut pending = 0u8;
    let mut last_at = start;
    while i < end {
        let at = i;
        let (c, next) = next_char(input, i)?;
        i = next;
        let v = classify(c);
        if v == PADDING {
            break;
        }
        match position % 4 {
            0 => pending = v << 2,
            1 => {
                out.push(pending | v >> 4);
                pending = (v & 0x0F) << 4;
            }
            2 => {
                out.push(pending | v >> 2);
                pending = (v & 0x03) << 6;
            }
            _ => {
                out.push(pending | v);
                pending = 0;
            }
        }
        position += 1;
        last_at = at;
    }
    // Bits left over from a partial group must be zero.
    if !position.is_multiple_of(4) && pending != 0 {
        return Err(ReadError::new(last_at, TRAILING_BITS));
    }
    Ok(out)
}
