//! What the base64 codecs share: the alphabet, the padding rules, and the escape-aware slow path.
//!
//! A leaf: it imports nothing of `base64`, and every codec of `base64` imports from it.

use crate::casestudy::bytes_json::error::ReadError;
use crate::casestudy::bytes_json::strings::unescape_into;

/// The standard alphabet (RFC 4648 section 4): the character for each 6-bit value.
pub static ENCODE: [u8; 64] = *b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The padding character.
pub(super) const PAD: u8 = b'=';

/// What is wrong with `digits` base64 digits followed by `pads` padding characters, if anything.
/// Canonical padding, as RFC 4648 and the `base64` crate's `STANDARD` engine require: a last
/// group of 2 digits takes `==`, of 3 digits `=`, of 4 none; a group of 1 digit is never valid.
pub(super) fn padding_error(digits: usize, pads: usize) -> Option<&'static str> {
    match (digits % 4, pads) {
        (0, 0) | (2, 2) | (3, 1) => None,
        (1, _) => Some("base64 length leaves a lone character"),
        (_, 0) => Some("missing base64 padding"),
        _ => Some("invalid base64 padding"),
    }
}

/// Why a last group with non-zero unused bits is refused: two strings would decode to the same
/// bytes (the `base64` crate refuses them too).
pub(super) const TRAILING_BITS: &str = "non-zero trailing bits in the last base64 character";

/// The escape-aware slow path: the string body starting at `input[start]`, every JSON escape
/// decoded, and the index after the closing quote. Base64 never needs an escape, so only
/// unusual writers (`\/` for `/`, `\u0041` for `A`) send a string here.
#[cold]
#[inline(never)]
pub(super) fn unescape_base64_string(
    input: &[u8],
    start: usize,
) -> Result<(Vec<u8>, usize), ReadError> {
    let mut body = Vec::new();
    let end = unescape_into(input, start, &mut body)?;
    Ok((body, end))
}
