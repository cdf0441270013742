//! `casestudy::bytes_json::base64::table`.

use serprof_engines::casestudy::bytes_json::base64::common::ENCODE;
use serprof_engines::casestudy::bytes_json::base64::table::*;

#[test]
fn the_table_inverts_the_alphabet() {
    for (v, &c) in ENCODE.iter().enumerate() {
        assert_eq!(usize::from(DECODE[c as usize]), v);
    }
    let valid = DECODE.iter().filter(|&&v| v != INVALID).count();
    assert_eq!(valid, 64);
    assert_eq!(DECODE[b'=' as usize], INVALID);
    assert_eq!(DECODE[b'"' as usize], INVALID);
}
