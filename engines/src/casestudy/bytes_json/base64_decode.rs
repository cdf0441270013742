//! Base64 decoding: the choice among the decoders, the `base64` crate as the reference decoder,
//! and the escape-aware slow path the table and crate decoders share.
//!
//! Every decoder reads a JSON string in place: it starts after the opening quote and returns the
//! bytes and the index after the closing quote, so the fast decoders find the end of the string
//! in the same scan that validates it.

use base64::Engine as _;

use super::base64_table::decode_base64_table;
use super::base64_two_pass::decode_base64_two_pass;
use super::strings::{truncated, unescape_into};
use super::{ByteArrayCodec, ReadError};

/// Decodes the base64 string whose body starts at `input[start]` with `codec`'s decoder
/// ([`ByteArrayCodec::DecimalSigned`] reads base64 with the table decoder), and returns the bytes
/// and the index after the closing quote.
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
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&rest[..len])
            .map_err(|e| crate_error(start, &e, true))?;
        return Ok((bytes, start + len + 1));
    }
    let (body, end) = unescape_base64_string(input, start)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&body)
        .map_err(|e| crate_error(start, &e, false))?;
    Ok((bytes, end))
}

/// The crate's error at its offset in the input, when the decoded text is the input itself.
#[cold]
fn crate_error(start: usize, e: &base64::DecodeError, in_place: bool) -> ReadError {
    use base64::DecodeError as E;
    let offset = match (e, in_place) {
        (E::InvalidByte(at, _) | E::InvalidLastSymbol { offset: at, .. }, true) => start + at,
        _ => start,
    };
    ReadError::new(offset, format!("invalid base64: {e}"))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic, varied bytes (xorshift), so lengths and values are "random-ish" but every
    /// run tests the same ones.
    fn bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn reference(body: &[u8]) -> Option<Vec<u8>> {
        base64::engine::general_purpose::STANDARD.decode(body).ok()
    }

    /// Every codec's decoder on `body`: all must give `want`.
    fn assert_all_decode(body: &[u8], want: &[u8]) {
        for codec in ByteArrayCodec::ALL {
            let got = base64_decode(body, codec);
            assert_eq!(
                got.as_deref(),
                Ok(want),
                "{codec:?} on {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn decoders_agree_with_the_crate_on_every_byte_and_length() {
        let every_byte: Vec<u8> = (0..=255).collect();
        let mut inputs = vec![
            every_byte.clone(),
            every_byte.iter().rev().copied().collect(),
        ];
        inputs.extend((0..=64).map(|len| bytes(len, len as u64 * 7919)));
        inputs.extend([1000, 1001, 1002, 2047].map(|len| bytes(len, 42)));
        for plain in &inputs {
            let body = base64::engine::general_purpose::STANDARD.encode(plain);
            assert_eq!(reference(body.as_bytes()).as_deref(), Some(&plain[..]));
            assert_all_decode(body.as_bytes(), plain);
        }
    }

    #[test]
    fn decoders_read_the_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ];
        for (body, plain) in cases {
            assert_all_decode(body.as_bytes(), plain.as_bytes());
        }
    }

    #[test]
    fn decoders_decode_escaped_characters() {
        let cases: &[(&str, &[u8])] = &[
            (r"A\u0051I=", &[1, 2]),
            (r"Zm9v\/w==", b"foo\xff"),
            (r"\u005Am9v", b"foo"),
            (r"Zg\u003d=", b"f"),
            (r"Zg\u003D\u003d", b"f"),
        ];
        for (body, plain) in cases {
            assert_all_decode(body.as_bytes(), plain);
        }
    }

    #[test]
    fn decoders_reject_what_the_crate_rejects() {
        let invalid = [
            "Zg",
            "Zg=",
            "Zg===",
            "Z",
            "Z===",
            "A===",
            "AA=A",
            "=AAA",
            "====",
            "==",
            "Zm9v!",
            "Zm 9v",
            "Zm9v\n",
            " Zm9v",
            "Zh==",
            "Zm9=",
            "Zg==Zg==",
            "Zm9vYg=",
            "Zm9vYmE",
            "Zm-v",
            "Zm_v",
            "Zm9vé===",
            "Zm9v\u{7f}",
        ];
        for body in invalid {
            assert_eq!(reference(body.as_bytes()), None, "the crate takes {body:?}");
            for codec in ByteArrayCodec::ALL {
                let got = base64_decode(body.as_bytes(), codec);
                assert!(got.is_err(), "{codec:?} takes {body:?}: {got:?}");
                let offset = got.unwrap_err().offset;
                assert!(
                    offset <= body.len(),
                    "{codec:?} on {body:?}: offset {offset}"
                );
            }
        }
    }

    #[test]
    fn decoders_reject_bad_escapes_and_bytes() {
        let invalid: &[&[u8]] = &[
            br"Zm9v\x",
            br"Zm9v\u00",
            br"Zm9v\u00e9AAA",
            br"Zm9v\ud83d\ude00AA",
            br"Zm9v\n",
            b"Zm9v\"AAAA",
            b"Zm9v\xff===",
            b"Zm\x009v",
            b"Zm9v\\",
        ];
        for body in invalid {
            for codec in ByteArrayCodec::ALL {
                let got = base64_decode(body, codec);
                assert!(got.is_err(), "{codec:?} takes {body:?}: {got:?}");
            }
        }
    }
}
