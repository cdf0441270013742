//! The table-driven base64 decoder: Fory JSON's fix, the second of the two fixes in Ingo Kegel,
//! "How we made Apache Fory JSON 4.5 times faster" (ej-technologies blog, 2026-09-07).
//!
//! One validation scan looks every character up in a 256-entry table ([`DECODE`]: the 6-bit
//! value, or [`INVALID`]) and stops at the first character that is not a base64 digit, which in a
//! well-formed payload is the padding or the closing quote: the scan finds the end of the string
//! and validates it at once (eight characters per step, their entries ORed). The decode loop then
//! turns each group of 4 characters into 3 bytes through the same table, two groups per
//! iteration (8 characters into 6 bytes through a `u64`), with no branches: every character is
//! known to be valid. A string with
//! a backslash (a JSON escape, which no writer needs for base64) takes the escape-aware slow path:
//! unescape, then the same two steps.
//!
//! Like the `base64` crate's `STANDARD` engine it requires canonical padding and zero trailing
//! bits, so the two accept exactly the same strings.

use super::common::{padding_error, unescape_base64_string, ENCODE, PAD, TRAILING_BITS};
use crate::casestudy::bytes_json::error::ReadError;
use crate::casestudy::bytes_json::strings::truncated;

/// Marks a byte that is not a base64 digit in [`DECODE`].
pub const INVALID: u8 = 0xFF;

/// Per byte: its 6-bit value in the standard alphabet, or [`INVALID`]. 256 entries, so any `u8`
/// indexes it without a bounds check. Built at compile time from the alphabet the encoder writes
/// with ([`ENCODE`]), so the two cannot disagree.
pub static DECODE: [u8; 256] = build_decode_table();

const fn build_decode_table() -> [u8; 256] {
    let mut table = [INVALID; 256];
    let mut v = 0;
    while v < 64 {
        table[ENCODE[v] as usize] = v as u8;
        v += 1;
    }
    table
}

/// Decodes the base64 string whose body starts at `input[start]` (after the opening quote) and
/// returns the bytes and the index after the closing quote.
///
/// Never inlined, and named for base64, so that profiles show it as its own frame.
#[inline(never)]
pub fn decode_base64_table(input: &[u8], start: usize) -> Result<(Vec<u8>, usize), ReadError> {
    let digits_end = scan_digits(input, start);
    let mut i = digits_end;
    while input.get(i) == Some(&PAD) {
        i += 1;
    }
    match input.get(i) {
        Some(b'"') => {}
        Some(b'\\') => {
            let (body, end) = unescape_base64_string(input, start)?;
            // Offsets into the unescaped body do not map back to the input: report the string.
            let bytes = decode_unescaped(&body).map_err(|(_, message)| error(start, message))?;
            return Ok((bytes, end));
        }
        Some(&b) => return Err(invalid_character(i, b, i > digits_end)),
        None => return Err(truncated(i)),
    }
    let bytes = decode_digits(&input[start..digits_end], i - digits_end)
        .map_err(|(offset, message)| error(start + offset, message))?;
    Ok((bytes, i + 1))
}

/// The validation scan: the index of the first byte from `start` on that is not a base64 digit.
///
/// Eight characters per iteration: their table entries are ORed together, and since a digit's
/// entry is below 64 and [`INVALID`] has the top bit set, one test on the OR says whether all
/// eight are digits. Only the block holding the first non-digit is then looked at byte by byte.
#[inline(always)]
fn scan_digits(input: &[u8], start: usize) -> usize {
    let digits = input.get(start..).unwrap_or_default();
    let mut blocks = digits.chunks_exact(8);
    let mut valid = 0;
    for block in &mut blocks {
        let any = block.iter().fold(0u8, |acc, &b| acc | DECODE[b as usize]);
        if any & INVALID_BIT != 0 {
            break;
        }
        valid += 8;
    }
    let rest = &digits[valid..];
    start
        + valid
        + rest
            .iter()
            .position(|&b| DECODE[b as usize] == INVALID)
            .unwrap_or(rest.len())
}

/// The bit every [`INVALID`] entry has and no digit's value (0..64) has.
const INVALID_BIT: u8 = 0x80;

/// Decodes an unescaped string body (no quotes): digits, then padding, then nothing.
pub(super) fn decode_unescaped(body: &[u8]) -> Result<Vec<u8>, (usize, &'static str)> {
    let digits_end = scan_digits(body, 0);
    let pads = body[digits_end..].iter().take_while(|&&b| b == PAD).count();
    let end = digits_end + pads;
    if let Some(&b) = body.get(end) {
        return Err((end, invalid_character_message(b, pads > 0)));
    }
    decode_digits(&body[..digits_end], pads)
}

/// Decodes `digits` (all valid base64 digits, checked by [`scan_digits`]) followed by `pads`
/// padding characters. Errors carry an offset into `digits`.
fn decode_digits(digits: &[u8], pads: usize) -> Result<Vec<u8>, (usize, &'static str)> {
    if let Some(message) = padding_error(digits.len(), pads) {
        return Err((digits.len(), message));
    }
    let tail = digits.len() % 4;
    let tail_bytes = tail.saturating_sub(1);
    let full = digits.len() - tail;
    let mut out = vec![0u8; full / 4 * 3 + tail_bytes];
    let (body, last) = out.split_at_mut(full / 4 * 3);
    // Two groups of four per iteration: eight characters become 48 bits of a `u64`, stored as six
    // bytes at once; then the odd group of four, if any.
    let mut octets = digits[..full].chunks_exact(8);
    let mut sextets = body.chunks_exact_mut(6);
    for (chars, bytes) in (&mut octets).zip(&mut sextets) {
        let n = chars
            .iter()
            .fold(0u64, |n, &c| n << 6 | u64::from(DECODE[c as usize]));
        bytes.copy_from_slice(&n.to_be_bytes()[2..]);
    }
    let quad = octets.remainder();
    if !quad.is_empty() {
        let triple = sextets.into_remainder();
        let n = quad
            .iter()
            .fold(0u32, |n, &c| n << 6 | u32::from(DECODE[c as usize]));
        triple.copy_from_slice(&n.to_be_bytes()[1..]);
    }
    if tail > 0 {
        let rest = &digits[full..];
        let n = rest.iter().enumerate().fold(0u32, |n, (k, &c)| {
            n | u32::from(DECODE[c as usize]) << (18 - 6 * k)
        });
        // The bits below the last whole byte must be zero.
        let unused_bits = if tail == 2 { n & 0xFFFF } else { n & 0xFF };
        if unused_bits != 0 {
            return Err((digits.len() - 1, TRAILING_BITS));
        }
        for (k, b) in last.iter_mut().enumerate() {
            *b = (n >> (16 - 8 * k)) as u8;
        }
    }
    Ok(out)
}

#[cold]
fn error(offset: usize, message: &'static str) -> ReadError {
    ReadError::new(offset, message)
}

#[cold]
fn invalid_character(at: usize, b: u8, after_padding: bool) -> ReadError {
    error(at, invalid_character_message(b, after_padding))
}

fn invalid_character_message(b: u8, after_padding: bool) -> &'static str {
    if after_padding && DECODE[b as usize] != INVALID {
        "base64 digit after padding"
    } else if b < 0x20 {
        "control character in string (must be escaped)"
    } else {
        "invalid base64 character"
    }
}
