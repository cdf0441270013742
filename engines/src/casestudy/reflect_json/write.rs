//! JSON text for single values: strings with escapes, integers, literals, into any [`Sink`].
//!
//! The same code writes into a `String` (the article's `StringBuilder`, for `reflect-noncached`
//! and `reflect-cached`) and into the caller's `Vec<u8>` (the tuned variants), so the variants
//! differ only where they are meant to. The sinks, the escape table and escapes, and the integer
//! writer are `casestudy::json_text`'s, shared with `bytes_json`. The string loop is this
//! engine's own, on purpose: it looks at one byte at a time, the plain writer of the article's
//! serializer, where `bytes_json` scans eight bytes per step. The `reflection` study measures
//! this loop; the word scan would be another algorithm, not a faster build of this one.

use crate::casestudy::json_text::{self, needs_escape, Sink};

/// Writes `text` as a JSON string, quotes included. Runs of bytes that need no escape are copied
/// whole; every byte that does is ASCII, so the runs end on character boundaries.
#[inline]
pub fn write_string<S: Sink>(text: &str, out: &mut S) {
    out.push_ascii(b'"');
    let mut start = 0;
    for (i, &byte) in text.as_bytes().iter().enumerate() {
        if !needs_escape(byte) {
            continue;
        }
        if start < i {
            out.push_str(&text[start..i]);
        }
        json_text::write_escape(out, byte);
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push_ascii(b'"');
}

/// Writes an integer in decimal: the sign, then `casestudy::json_text`'s digits (written into a
/// small stack buffer from the end, as `StringBuilder.append(long)` does, and shared with
/// `bytes_json`) in one append. This engine's own frame in profiles.
pub fn write_integer<S: Sink>(n: i64, out: &mut S) {
    let mut buf = [0u8; 20];
    let digits = json_text::magnitude_digits(n, &mut buf);
    if n < 0 {
        out.push_ascii(b'-');
    }
    out.push_ascii_bytes(digits);
}

/// Writes `true` or `false`.
#[inline]
pub fn write_bool<S: Sink>(b: bool, out: &mut S) {
    out.push_str(if b { "true" } else { "false" });
}
