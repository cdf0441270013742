//! Byte arrays as arrays of decimal numbers: Fory JSON 1.7.0's form, the "before" state of Ingo
//! Kegel, "How we made Apache Fory JSON 4.5 times faster" (ej-technologies blog, 2026-09-07):
//! `[-77,-1,99,...]`, signed as Java's `byte` is. Up to 5 characters a byte (`-128,`)
//! where base64 takes 1.33: 20,999 B per Order instead of 9,742.

use super::cursor::Cursor;
use super::error::ReadError;

/// Writes `bytes` as a JSON array of signed decimals (Java's `byte`: -128..=127).
///
/// Never inlined, and named for byte arrays, so that profiles show it as its own frame.
#[inline(never)]
pub fn write_byte_array_decimal(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'[');
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_i8(out, b as i8);
    }
    out.push(b']');
}

fn write_i8(out: &mut Vec<u8>, v: i8) {
    if v < 0 {
        out.push(b'-');
    }
    let n = v.unsigned_abs();
    if n >= 100 {
        out.extend_from_slice(&[b'1', b'0' + n / 10 % 10, b'0' + n % 10]);
    } else if n >= 10 {
        out.extend_from_slice(&[b'0' + n / 10, b'0' + n % 10]);
    } else {
        out.push(b'0' + n);
    }
}

/// Reads a JSON array of numbers as bytes, one number at a time through the cursor, the way a
/// generic array reader does. Accepts -128..=255 as Jackson does for `byte[]`, so both Java's
/// signed bytes and serde's unsigned ones (`[179,255,99]`) read back to the same bytes.
///
/// Never inlined, and named for byte arrays, so that profiles show it as its own frame.
#[inline(never)]
pub fn read_byte_array_decimal(cursor: &mut Cursor<'_>) -> Result<Vec<u8>, ReadError> {
    cursor.begin_array()?;
    // Every element takes at least two bytes of input, so growth is bounded by the input.
    let mut out = Vec::new();
    let mut first = true;
    while cursor.next_entry(&mut first, b']')? {
        let at = cursor.next_token_at();
        let v = cursor.parse_i64()?;
        if !(-128..=255).contains(&v) {
            return Err(ReadError::new(at, "byte value out of range -128..=255"));
        }
        out.push(v as u8);
    }
    Ok(out)
}
