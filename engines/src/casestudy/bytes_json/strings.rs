//! JSON strings both ways: the string writer, the eight-bytes-a-step scan, and escape decoding.
//!
//! The escape rules are `casestudy::json_text`'s, which `reflect_json` writes with too: the bytes
//! a writer must escape (`"`, `\` and the control characters below 0x20) are exactly the bytes at
//! which a reader must stop scanning a string body, so [`needs_escape`] is also the reader's
//! "stop here" test. What is this engine's own is the scan that finds them eight bytes per step.

use super::error::ReadError;
use crate::casestudy::json_text::{self, needs_escape};

/// A `u64` with `b` in every byte.
const fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// The top bit of every byte.
const HIGH_BITS: u64 = splat(0x80);

/// The eight bytes of `bytes[i..i + 8]` as a little-endian word (the first byte lowest), if there
/// are eight.
#[inline(always)]
fn word_at(bytes: &[u8], i: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// The top bit set in each byte of `w` that [`needs_escape`]: `"`, `\` or below 0x20.
///
/// The classic "has a zero byte" test (`(x - 0x01..) & !x & 0x80..`) on `w ^ '"'`, `w ^ '\'`,
/// and its "has a byte below n" form on `w` itself. A borrow can mark a byte above a marked one,
/// never below, so the lowest marked byte is exact, and that is the only one callers use. Bytes
/// from 0x80 up are never marked (the `!x` term clears their top bit).
#[inline(always)]
fn stop_bits(w: u64) -> u64 {
    let quote = w ^ splat(b'"');
    let backslash = w ^ splat(b'\\');
    let zero_quote = quote.wrapping_sub(splat(1)) & !quote;
    let zero_backslash = backslash.wrapping_sub(splat(1)) & !backslash;
    let control = w.wrapping_sub(splat(0x20)) & !w;
    (zero_quote | zero_backslash | control) & HIGH_BITS
}

/// The index of the first byte of `bytes` from `i` on that [`needs_escape`], or `bytes.len()`,
/// and whether every byte before it is ASCII (then the run is valid UTF-8 without a check).
///
/// Eight bytes per step: string bodies run for dozens of bytes between stops, and a per-byte table
/// lookup would make this scan the reader's and the writer's hottest loop.
#[inline]
pub fn scan_string_run(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut high = 0u64;
    while let Some(w) = word_at(bytes, i) {
        let stops = stop_bits(w);
        if stops != 0 {
            let before = stops.trailing_zeros() as usize / 8;
            // The bytes below the stop: `before` is 0..8, so the shift never overflows.
            let kept = w & ((1u64 << (before * 8)) - 1);
            return (i + before, (high | kept) & HIGH_BITS == 0);
        }
        high |= w;
        i += 8;
    }
    let mut ascii = high & HIGH_BITS == 0;
    while let Some(&b) = bytes.get(i) {
        if needs_escape(b) {
            break;
        }
        ascii &= b.is_ascii();
        i += 1;
    }
    (i, ascii)
}

/// Writes `s` as a JSON string, quotes included, escaping only what JSON requires (as Jackson
/// does: `/` and non-ASCII characters are written as they are).
///
/// Runs that need no escape (in the dataset, every string whole) are found eight bytes at a time
/// by [`scan_string_run`] and copied with one `extend_from_slice`; the escapes are
/// `json_text`'s. This engine's own frame in profiles (see `casestudy::json_text`).
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        let (stop, _) = scan_string_run(bytes, start);
        out.extend_from_slice(&bytes[start..stop]);
        let Some(&b) = bytes.get(stop) else { break };
        json_text::write_escape(out, b);
        start = stop + 1;
    }
    out.push(b'"');
}

/// Decodes the escape whose backslash is at `input[at]` and returns the character and the index
/// after the escape. A `\uXXXX` high surrogate must be followed by a `\uXXXX` low surrogate;
/// lone surrogates are errors (they are not characters, and `String` cannot hold them).
pub fn parse_escape(input: &[u8], at: usize) -> Result<(char, usize), ReadError> {
    let Some(&kind) = input.get(at + 1) else {
        return Err(truncated(input.len()));
    };
    let simple = match kind {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return parse_unicode_escape(input, at),
        _ => return Err(ReadError::new(at, "invalid escape in string")),
    };
    Ok((simple, at + 2))
}

fn parse_unicode_escape(input: &[u8], at: usize) -> Result<(char, usize), ReadError> {
    let first = parse_hex4(input, at + 2)?;
    if !(0xD800..0xE000).contains(&first) {
        // Not a surrogate: always a valid scalar value.
        let c = char::from_u32(first).ok_or_else(|| ReadError::new(at, "invalid \\u escape"))?;
        return Ok((c, at + 6));
    }
    if first >= 0xDC00 {
        return Err(ReadError::new(at, "lone low surrogate in \\u escape"));
    }
    match (input.get(at + 6), input.get(at + 7)) {
        (Some(b'\\'), Some(b'u')) => {}
        (None, _) | (Some(b'\\'), None) => return Err(truncated(input.len())),
        _ => {
            return Err(ReadError::new(
                at,
                "high surrogate not followed by a \\u escape",
            ))
        }
    }
    let second = parse_hex4(input, at + 8)?;
    if !(0xDC00..0xE000).contains(&second) {
        return Err(ReadError::new(
            at + 6,
            "high surrogate not followed by a low surrogate",
        ));
    }
    let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
    let c = char::from_u32(scalar).ok_or_else(|| ReadError::new(at, "invalid surrogate pair"))?;
    Ok((c, at + 12))
}

fn parse_hex4(input: &[u8], at: usize) -> Result<u32, ReadError> {
    let Some(digits) = input.get(at..at + 4) else {
        return Err(truncated(input.len()));
    };
    let mut value = 0u32;
    for (i, &d) in digits.iter().enumerate() {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return Err(ReadError::new(at + i, "invalid hex digit in \\u escape")),
        };
        value = value << 4 | u32::from(v);
    }
    Ok(value)
}

/// Copies the string body starting at `input[start]` (after the opening quote) into `out` with
/// every escape decoded, and returns the index after the closing quote. Checks what JSON
/// requires of a string: no raw control characters, valid escapes, valid UTF-8.
pub fn unescape_into(input: &[u8], start: usize, out: &mut Vec<u8>) -> Result<usize, ReadError> {
    let mut i = start;
    loop {
        let segment = i;
        let ascii;
        (i, ascii) = scan_string_run(input, i);
        // Escapes and quotes are ASCII, so a segment never splits a UTF-8 sequence: checking
        // each segment checks the whole string, and gives the exact offset of a bad byte.
        if !ascii {
            check_utf8(&input[segment..i], segment)?;
        }
        out.extend_from_slice(&input[segment..i]);
        match input.get(i) {
            None => return Err(truncated(input.len())),
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') => {
                let (c, next) = parse_escape(input, i)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                i = next;
            }
            Some(_) => return Err(control_character(i)),
        }
    }
}

/// `bytes` as UTF-8, or an error at `offset + ` the first bad byte.
pub(super) fn check_utf8(bytes: &[u8], offset: usize) -> Result<&str, ReadError> {
    std::str::from_utf8(bytes)
        .map_err(|e| ReadError::new(offset + e.valid_up_to(), "invalid UTF-8 in string"))
}

#[cold]
pub(super) fn truncated(at: usize) -> ReadError {
    ReadError::new(at, "unexpected end of input")
}

#[cold]
pub(super) fn control_character(at: usize) -> ReadError {
    ReadError::new(at, "control character in string (must be escaped)")
}
