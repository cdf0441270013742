//! Base64 both ways, and the choice among the decoders.
//!
//! This file dispatches: `decode_base64_string` picks the decoder a [`ByteArrayCodec`] names,
//! and [`base64_decode`] is the public seam over it. The codecs are its children, and their
//! dependencies point one way, dispatcher -> codecs -> `common`:
//!
//! - `table`: the table-driven decoder (Fory JSON's fix);
//! - `two_pass`: the two-pass branchy decoder (Fory JSON 1.7.0's first base64 reader);
//! - `reference`: the `base64` crate, the reference decoder;
//! - `encode`: the one base64 writer of every base64 configuration;
//! - `common`: the alphabet, the padding rules and the escape-aware slow path they share.
//!
//! No child imports anything from this file. Every decoder reads a JSON string in place: it
//! starts after the opening quote and returns the bytes and the index after the closing quote,
//! so the fast decoders find the end of the string in the same scan that validates it.
//!
//! The module shadows the `base64` crate inside `bytes_json`; its files name the crate
//! `::base64`.

#[doc(hidden)]
pub mod common;
#[doc(hidden)]
pub mod encode;
mod reference;
#[doc(hidden)]
pub mod table;
#[doc(hidden)]
pub mod two_pass;

pub(super) use self::encode::write_base64;

use self::reference::decode_base64_crate;
use self::table::decode_base64_table;
use self::two_pass::decode_base64_two_pass;
use super::error::ReadError;
use super::options::ByteArrayCodec;

/// Decodes the base64 string whose body starts at `input[start]` with `codec`'s decoder
/// ([`ByteArrayCodec::DecimalSigned`] reads base64 with the table decoder), and returns the bytes
/// and the index after the closing quote.
///
/// `#[inline]`: the reader's `read_byte_array` takes the dispatch in, so that profiles show the
/// decoder right under it, with no frame of the dispatcher between them.
#[inline]
pub(super) fn decode_base64_string(
    input: &[u8],
    start: usize,
    codec: ByteArrayCodec,
) -> Result<(Vec<u8>, usize), ReadError> {
    match codec {
        ByteArrayCodec::Base64TwoPass => decode_base64_two_pass(input, start),
        ByteArrayCodec::Base64Table | ByteArrayCodec::DecimalSigned => {
            decode_base64_table(input, start)
        }
        ByteArrayCodec::Base64Crate => decode_base64_crate(input, start),
    }
}

/// Decodes the body of a JSON string (what stands between the quotes, escapes and all) as
/// standard base64 with `codec`'s decoder. Offsets in errors count from the start of `body`.
///
/// This is the seam tests use to hold the decoders against each other and against the `base64`
/// crate; the reader calls the same decoders on the payload in place.
pub fn base64_decode(body: &[u8], codec: ByteArrayCodec) -> Result<Vec<u8>, ReadError> {
    // The decoders stop at the closing quote: give them one.
    let mut quoted = Vec::with_capacity(body.len() + 1);
    quoted.extend_from_slice(body);
    quoted.push(b'"');
    let (bytes, end) = decode_base64_string(&quoted, 0, codec)?;
    if end != quoted.len() {
        return Err(ReadError::new(end - 1, "unescaped quote inside the string"));
    }
    Ok(bytes)
}
