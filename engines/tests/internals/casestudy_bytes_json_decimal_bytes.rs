//! `casestudy::bytes_json::decimal_bytes`.

use serprof_engines::casestudy::bytes_json::cursor::Cursor;
use serprof_engines::casestudy::bytes_json::decimal_bytes::*;

#[test]
fn writes_java_signed_bytes() {
    let cases: &[(&[u8], &str)] = &[
        (&[], "[]"),
        (&[0xb3, 0xff, 0x63, 0x98], "[-77,-1,99,-104]"),
        (&[0, 9, 10, 99, 100, 127, 128], "[0,9,10,99,100,127,-128]"),
    ];
    for (bytes, want) in cases {
        let mut out = Vec::new();
        write_byte_array_decimal(&mut out, bytes);
        assert_eq!(String::from_utf8(out).unwrap(), *want);
    }
    let every: Vec<u8> = (0..=255).collect();
    let mut out = Vec::new();
    write_byte_array_decimal(&mut out, &every);
    let java: Vec<i8> = serde_json::from_slice(&out).unwrap();
    assert_eq!(java, every.iter().map(|&b| b as i8).collect::<Vec<_>>());
}

#[test]
fn reads_signed_and_unsigned_and_rejects_the_rest() {
    let cases: &[(&str, Result<&[u8], usize>)] = &[
        ("[]", Ok(&[])),
        ("[ -77 , -1,99,-104 ]", Ok(&[0xb3, 0xff, 0x63, 0x98])),
        ("[179,255,99]", Ok(&[0xb3, 0xff, 0x63])),
        ("[-128,255,1.0e2]", Ok(&[0x80, 0xff, 100])),
        ("[256]", Err(1)),
        ("[-129]", Err(1)),
        ("[1.5]", Err(1)),
        ("[1,]", Err(3)),
        ("[\"1\"]", Err(1)),
        ("[1", Err(2)),
    ];
    for (text, want) in cases {
        let mut cursor = Cursor::new(text.as_bytes());
        let got = read_byte_array_decimal(&mut cursor).map_err(|e| e.offset);
        assert_eq!(got.as_deref().map_err(|e| *e), *want, "{text}");
    }
}
