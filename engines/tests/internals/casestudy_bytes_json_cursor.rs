//! `casestudy::bytes_json::cursor`.

use serprof_engines::casestudy::bytes_json::cursor::*;
use serprof_engines::model::Decimal;

/// Skips one value and requires the end of the input after it.
fn skip(text: &str) -> Result<(), usize> {
    let mut c = Cursor::new(text.as_bytes());
    c.skip_value()
        .and_then(|()| c.finish())
        .map_err(|e| e.offset)
}

#[test]
fn skipping_validates_what_it_skips() {
    let cases: &[(&str, Result<(), usize>)] = &[
        (
            r#" {"a":[1,-2.5e3,true,false,null,{"b":{}},[]],"c":"\u00fc"} "#,
            Ok(()),
        ),
        ("[]", Ok(())),
        ("{}", Ok(())),
        (r#""x""#, Ok(())),
        ("[1,]", Err(3)),
        ("[1 2]", Err(3)),
        (r#"{"a":1,}"#, Err(7)),
        (r#"{"a" 1}"#, Err(5)),
        (r#"{a:1}"#, Err(1)),
        ("[tru]", Err(4)),
        ("nul", Err(3)),
        ("[01]", Err(2)),
        (r#"["\q"]"#, Err(2)),
        ("[\"\u{1}\"]", Err(2)),
        ("[1", Err(2)),
        ("{", Err(1)),
        ("[] x", Err(3)),
        ("", Err(0)),
    ];
    for (text, want) in cases {
        assert_eq!(skip(text), *want, "{text}");
    }
}

#[test]
fn nesting_is_limited() {
    let ok = "[".repeat(MAX_DEPTH as usize) + &"]".repeat(MAX_DEPTH as usize);
    assert_eq!(skip(&ok), Ok(()));
    let deep = "[".repeat(MAX_DEPTH as usize + 1) + &"]".repeat(MAX_DEPTH as usize + 1);
    assert_eq!(skip(&deep), Err(MAX_DEPTH as usize));
    // Far deeper than the stack could take without the limit.
    let hostile = "[{\"a\":".repeat(100_000);
    assert!(skip(&hostile).is_err());
}

#[test]
fn strings_borrow_or_unescape() {
    let mut c = Cursor::new(br#""plain" "a\nb" "\ud83d\ude00""#);
    assert_eq!(c.parse_string().unwrap(), "plain");
    assert_eq!(c.parse_string().unwrap(), "a\nb");
    assert_eq!(c.parse_string().unwrap(), "😀");
    assert_eq!(c.parse_string().unwrap_err().offset, 29);
}

/// The ASCII fast path and the UTF-8 check, with a non-ASCII or an invalid byte at every
/// position of strings around the scan's eight-byte steps.
#[test]
fn strings_are_utf8_checked_unless_ascii() {
    for len in 1..20 {
        for at in 0..len {
            let mut body = vec![b'a'; len];
            let text = |body: &[u8]| [b"\"", body, b"\" "].concat();
            assert_eq!(Cursor::new(&text(&body)).parse_str().unwrap().len(), len);
            body[at] = 0xC3;
            body.insert(at + 1, 0xA9);
            let want = String::from_utf8(body.clone()).unwrap();
            assert_eq!(Cursor::new(&text(&body)).parse_str().unwrap(), want);
            body[at + 1] = b'x';
            let e = Cursor::new(&text(&body)).parse_str().unwrap_err();
            assert_eq!(e.offset, at + 1, "{body:?}");
        }
    }
}

#[test]
fn numbers_by_kind() {
    let mut c = Cursor::new(b"5 2147483648 1e2 399.4 1.001 0.24 1e999 \"NaN\" x");
    assert_eq!(c.parse_i32().unwrap(), 5);
    assert!(c.parse_i32().is_err());
    assert_eq!(c.parse_i64().unwrap(), 100);
    assert_eq!(c.parse_decimal().unwrap(), Decimal::from_cents(39940));
    assert_eq!(c.parse_decimal().unwrap_err().offset, 23);
    assert_eq!(c.parse_f64().unwrap(), 0.24);
    assert!(c.parse_f64().is_err());
    assert!(c.parse_f64().unwrap().is_nan());
    assert_eq!(c.parse_f64().unwrap_err().offset, 46);
}
