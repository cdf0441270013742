//! `casestudy::bytes_json::base64`.

use ::base64::Engine as _;

use serprof_engines::casestudy::bytes_json::base64::table::decode_base64_table;
use serprof_engines::casestudy::bytes_json::base64::two_pass::decode_base64_two_pass;
use serprof_engines::casestudy::bytes_json::base64::*;
use serprof_engines::casestudy::bytes_json::ByteArrayCodec;

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
