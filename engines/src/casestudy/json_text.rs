//! The JSON text both hand-written engines write: the string escape table, the escape writer and
//! the integer text, for any [`Sink`] (a `String` or a `Vec<u8>`).
//!
//! `bytes_json` and `reflect_json` escape the same bytes the same way (only what RFC 8259
//! requires, as Jackson does: `"`, `\` and the control characters below 0x20; `/` and non-ASCII
//! characters are written as they are) and write integers the same way, so that code is here
//! once. Two things stay with each engine, on purpose:
//!
//! - The loop that finds the bytes to escape. `bytes_json` scans eight bytes per step
//!   (`bytes_json::strings::scan_string_run`, shared with its reader); `reflect_json` looks at
//!   one byte at a time (a lookup in `ESCAPE`), the plain loop of the article's reflective
//!   serializer, which the `reflection` study measures. The word scan is a different algorithm,
//!   not a faster form of the same one, so `reflect_json` keeps its loop; both loops stop at
//!   exactly the bytes of [`needs_escape`] and write them with [`write_escape`], so their output
//!   is the same.
//! - The functions CPU profiles name. `bytes_json::strings::write_str`,
//!   `bytes_json::numbers::write_i64`, `reflect_json::write::write_string` and
//!   `reflect_json::write::write_integer` stay in their engines and use the code here, which is
//!   inlined into them (all but the cold [`write_escape`]), so a profile still names the
//!   engine's own frame, which the studies recognise as engine code by its module path
//!   (`bytes_json`, `reflect_json`). Each engine's integer writer writes the sign and appends
//!   [`magnitude_digits`] itself: a generic function that only forwards is folded into its
//!   callers by rustc's MIR inliner, and `reflect_json::write::write_integer` would disappear
//!   from profiles.

use crate::model::decimal::digits_before;

/// Where JSON text goes: a `String` (the article's `StringBuilder`) or a `Vec<u8>`.
pub trait Sink {
    /// Appends one ASCII byte.
    fn push_ascii(&mut self, byte: u8);
    /// Appends bytes that are all ASCII.
    fn push_ascii_bytes(&mut self, bytes: &[u8]);
    /// Appends text.
    fn push_str(&mut self, text: &str);
}

impl Sink for String {
    #[inline]
    fn push_ascii(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        self.push(byte as char);
    }
    #[inline]
    fn push_ascii_bytes(&mut self, bytes: &[u8]) {
        debug_assert!(bytes.is_ascii());
        // ASCII is UTF-8: the check passes, and nothing is ever dropped.
        String::push_str(self, std::str::from_utf8(bytes).unwrap_or_default());
    }
    #[inline]
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn push_ascii(&mut self, byte: u8) {
        self.push(byte);
    }
    #[inline]
    fn push_ascii_bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn push_str(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
}

/// No escape needed: copy the byte.
const NO: u8 = 0;
/// Escape as `\u00XX`.
const UU: u8 = b'u';

/// Per byte: [`NO`] to copy it as is, otherwise the character after the backslash (`"`, `\`,
/// `b`, `f`, `n`, `r`, `t`, or `u` for `\u00XX`). Bytes from 0x80 up are parts of UTF-8
/// sequences and are copied: the text is a `&str`, so they are valid. Built at compile time, like
/// serde_json's `ESCAPE`.
///
/// The bytes a writer must escape are exactly the bytes at which a reader must stop scanning a
/// string body (quote, backslash, control character), so `bytes_json`'s reader stops at
/// [`needs_escape`] too.
static ESCAPE: [u8; 256] = build_escape_table();

const fn build_escape_table() -> [u8; 256] {
    let mut table = [NO; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = UU;
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
}

/// Whether `b` cannot stand as it is in a JSON string: a quote, a backslash or a control
/// character. For a reader, whether it must stop scanning a string body at `b`.
#[inline(always)]
pub fn needs_escape(b: u8) -> bool {
    ESCAPE[b as usize] != NO
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes the escape of `b`, a byte that [`needs_escape`]: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, or `\u00XX` with lowercase hex digits for the other control characters.
#[cold]
pub fn write_escape<S: Sink>(out: &mut S, b: u8) {
    let escape = ESCAPE[b as usize];
    if escape == UU {
        out.push_ascii_bytes(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xF)],
        ]);
    } else {
        out.push_ascii_bytes(&[b'\\', escape]);
    }
}

/// The decimal digits of `v`'s magnitude, written into the end of `buf` (19 digits hold
/// `i64::MIN`'s), as Java's `StringBuilder.append(long)` and Jackson write them: from the last
/// digit back, into a small stack buffer, with the crate's one digit loop
/// (`digits_before`, which `Decimal` writes with too). The caller writes the sign, then the
/// digits in one append. Integers are hot in both writers (ids, dates, quantities, ages), so
/// this avoids the `fmt` machinery.
///
/// Always inlined: the engines' own `write_i64` / `write_integer` are the frames profiles show.
#[inline(always)]
pub fn magnitude_digits(v: i64, buf: &mut [u8; 20]) -> &[u8] {
    let end = buf.len();
    let start = digits_before(buf, end, v.unsigned_abs());
    &buf[start..]
}
