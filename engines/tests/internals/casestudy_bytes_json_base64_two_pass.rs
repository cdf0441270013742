//! `casestudy::bytes_json::base64::two_pass`.

use serprof_engines::casestudy::bytes_json::base64::two_pass::*;

#[test]
fn the_if_chain_classifies_every_byte_like_the_alphabet() {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for b in 0..=255u8 {
        let want = match alphabet.iter().position(|&a| a == b) {
            Some(v) => v as u8,
            None if b == b'=' => PADDING,
            None => NOT_BASE64,
        };
        assert_eq!(classify(b), want, "byte {b}");
    }
}
