//! `casestudy::json_text`.

use serprof_engines::casestudy::json_text::*;

/// The same write into a `String` and into a `Vec<u8>`: both sinks must get the same bytes.
fn both(into_string: impl Fn(&mut String), into_vec: impl Fn(&mut Vec<u8>)) -> String {
    let mut s = String::new();
    into_string(&mut s);
    let mut v = Vec::new();
    into_vec(&mut v);
    assert_eq!(s.as_bytes(), v, "both sinks write the same");
    s
}

#[test]
fn escapes_exactly_what_json_requires() {
    for b in 0..=255u8 {
        let required = b < 0x20 || b == b'"' || b == b'\\';
        assert_eq!(needs_escape(b), required, "byte {b:#04x}");
    }
}

#[test]
fn writes_every_escape_as_serde_json_reads_it() {
    let cases = [
        (b'"', r#"\""#),
        (b'\\', r"\\"),
        (0x08, r"\b"),
        (0x09, r"\t"),
        (0x0A, r"\n"),
        (0x0C, r"\f"),
        (0x0D, r"\r"),
        (0x00, r"\u0000"),
        (0x1F, r"\u001f"),
    ];
    for (b, want) in cases {
        let got = both(|s| write_escape(s, b), |v| write_escape(v, b));
        assert_eq!(got, want, "byte {b:#04x}");
    }
    for b in (0..=255u8).filter(|&b| needs_escape(b)) {
        let escape = both(|s| write_escape(s, b), |v| write_escape(v, b));
        let back: String = serde_json::from_str(&format!("\"{escape}\"")).unwrap();
        assert_eq!(back, char::from(b).to_string());
    }
}

#[test]
fn digits_are_the_magnitude_over_the_whole_range() {
    for n in [0, -1, 99_999, i64::MAX, i64::MIN] {
        let mut buf = [0u8; 20];
        let digits = magnitude_digits(n, &mut buf);
        assert_eq!(digits, n.unsigned_abs().to_string().as_bytes());
    }
}
