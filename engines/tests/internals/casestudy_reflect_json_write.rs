//! `casestudy::reflect_json::write`.

use serprof_engines::casestudy::reflect_json::write::*;

fn string(text: &str) -> String {
    let mut s = String::new();
    write_string(text, &mut s);
    let mut v = Vec::new();
    write_string(text, &mut v);
    assert_eq!(s.as_bytes(), v, "both sinks write the same");
    s
}

#[test]
fn escapes_what_json_requires_and_nothing_else() {
    for (text, json) in [
        ("", r#""""#),
        ("kim", r#""kim""#),
        ("a\"b", r#""a\"b""#),
        ("a\\b", r#""a\\b""#),
        ("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#),
        ("\u{0}\u{1f}", r#""\u0000\u001f""#),
        ("\u{7f}/é한😀", "\"\u{7f}/é한😀\""),
        ("\"", r#""\"""#),
    ] {
        assert_eq!(string(text), json, "{text:?}");
    }
}

#[test]
fn escaped_strings_parse_back() {
    let text: String = (0u32..0x80)
        .filter_map(char::from_u32)
        .chain("é😀".chars())
        .collect();
    let parsed: String = serde_json::from_str(&string(&text)).unwrap();
    assert_eq!(parsed, text);
}

#[test]
fn integers_cover_the_range() {
    for n in [0, 7, -1, 10, 99_999, i64::MAX, i64::MIN, i32::MIN as i64] {
        let mut s = String::new();
        write_integer(n, &mut s);
        assert_eq!(s, n.to_string());
    }
}
