//! The reference decoder: the `base64` crate's `STANDARD` engine on the string body.

use ::base64::Engine as _;

use super::common::unescape_base64_string;
use crate::casestudy::bytes_json::error::ReadError;
use crate::casestudy::bytes_json::strings::truncated;

/// The reference: the `base64` crate's `STANDARD` engine (canonical padding, zero trailing bits)
/// on the string body, found by a scan for the closing quote; a string with a backslash is
/// unescaped first.
///
/// Never inlined, and named for base64, so that profiles show it as its own frame.
#[inline(never)]
pub(super) fn decode_base64_crate(
    input: &[u8],
    start: usize,
) -> Result<(Vec<u8>, usize), ReadError> {
    let rest = input.get(start..).unwrap_or_default();
    let Some(len) = rest.iter().position(|&b| b == b'"' || b == b'\\') else {
        return Err(truncated(input.len()));
    };
    if rest[len] == b'"' {
        let bytes = ::base64::engine::general_purpose::STANDARD
            .decode(&rest[..len])
            .map_err(|e| crate_error(start, &e, true))?;
        return Ok((bytes, start + len + 1));
    }
    let (body, end) = unescape_base64_string(input, start)?;
    let bytes = ::base64::engine::general_purpose::STANDARD
        .decode(&body)
        .map_err(|e| crate_error(start, &e, false))?;
    Ok((bytes, end))
}

/// The crate's error at its offset in the input, when the decoded text is the input itself.
#[cold]
fn crate_error(start: usize, e: &::base64::DecodeError, in_place: bool) -> ReadError {
    use ::base64::DecodeError as E;
    let offset = match (e, in_place) {
        (E::InvalidByte(at, _) | E::InvalidLastSymbol { offset: at, .. }, true) => start + at,
        _ => start,
    };
    ReadError::new(offset, format!("invalid base64: {e}"))
}
