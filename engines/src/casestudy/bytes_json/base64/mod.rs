//! Base64 both ways, and the choice among the decoders.
//!
//! This file dispatches: [`decode_base64_string`] picks the decoder a [`ByteArrayCodec`] names,
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

mod common;
mod encode;
mod reference;
mod table;
mod two_pass;

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

#[cfg(test)]
mod tests {
    use ::base64::Engine as _;

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
        ::base64::engine::general_purpose::STANDARD
            .decode(body)
            .ok()
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
            let body = ::base64::engine::general_purpose::STANDARD.encode(plain);
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

    /// Where each of the two hand-written decoders reports an error (offsets into the string
    /// body): the two-pass decoder counts the padding before it judges it, so it reports some
    /// padding errors further on.
    #[test]
    fn errors_point_at_the_bad_character() {
        // Input, the table decoder's offset, the two-pass decoder's offset.
        let cases: &[(&str, usize, usize)] = &[
            ("Zg=\"", 2, 3),
            ("Z!==\"", 1, 1),
            ("AA=A\"", 3, 3),
            ("=AAA\"", 1, 1),
            ("A===\"", 1, 3),
            ("Zh==\"", 1, 1),
            ("Zm9", 3, 3),
            ("Zm9v", 4, 4),
            ("\\u00e9AAA\"", 0, 0),
            ("Zm9v\u{1}\"", 4, 4),
        ];
        for &(text, table, two_pass) in cases {
            let e = decode_base64_table(text.as_bytes(), 0).unwrap_err();
            assert_eq!(e.offset, table, "table on {text}: {e}");
            let e = decode_base64_two_pass(text.as_bytes(), 0).unwrap_err();
            assert_eq!(e.offset, two_pass, "two-pass on {text}: {e}");
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
