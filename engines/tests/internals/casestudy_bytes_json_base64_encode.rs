//! `casestudy::bytes_json::base64::encode`.

use ::base64::Engine as _;

use serprof_engines::casestudy::bytes_json::base64::encode::*;

#[test]
fn encodes_rfc4648_vectors() {
    let cases = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];
    for (plain, want) in cases {
        let mut out = Vec::new();
        write_base64(&mut out, plain.as_bytes());
        assert_eq!(out, format!("\"{want}\"").as_bytes(), "{plain}");
    }
}

#[test]
fn agrees_with_the_base64_crate_on_every_length_and_byte() {
    let all: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    for len in 0..=all.len() {
        let bytes = &all[..len];
        let mut out = b"prefix".to_vec();
        write_base64(&mut out, bytes);
        let want = ::base64::engine::general_purpose::STANDARD.encode(bytes);
        assert_eq!(out, format!("prefix\"{want}\"").as_bytes(), "length {len}");
    }
}
