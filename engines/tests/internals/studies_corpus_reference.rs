//! `studies::corpus::reference`.

use serprof_api::__private::{Finding, Stage};
use serprof_engines::studies::corpus::reference::*;

#[test]
fn keeps_number_text_and_duplicate_keys() {
    let v = parse(br#" {"a": 123456789012345678901234567890, "b": [1.5e-3, -0], "a": "\u00e9\ud83d\ude00\n"} "#)
        .unwrap();
    let RefValue::Object(m) = v else {
        panic!("not an object")
    };
    assert_eq!(m.len(), 3);
    assert_eq!(
        m[0].1,
        RefValue::Number("123456789012345678901234567890".into())
    );
    assert_eq!(
        m[1].1,
        RefValue::Array(vec![
            RefValue::Number("1.5e-3".into()),
            RefValue::Number("-0".into())
        ])
    );
    assert_eq!(m[2].1, RefValue::String("é😀\n".into()));
}

#[test]
fn errors_name_the_byte() {
    let cases: [(&[u8], usize); 9] = [
        (b"{\"a\":1,}", 7),
        (b"[1,2", 4),
        (b"[01]", 2),
        (b"\"\\x\"", 1),
        (b"[1] 2", 4),
        (b"{\"a\" 1}", 5),
        (b"\"\xff\"", 1),
        (b"[1.]", 3),
        (b"\"\\ud800\"", 1),
    ];
    for (text, offset) in cases {
        let e = parse(text).unwrap_err();
        assert_eq!(e.offset, offset, "{:?}: {e}", String::from_utf8_lossy(text));
    }
    let deep = vec![b'['; MAX_DEPTH + 10];
    assert_eq!(parse(&deep).unwrap_err().offset, MAX_DEPTH + 1);
}

#[test]
fn compare_finds_changed_floats_and_mismatches() {
    let r = parse(br#"{"x": [0.1, 2.5, 7], "s": "a"}"#).unwrap();
    let same: serde_json::Value = serde_json::json!({"x": [0.1, 2.5, 7], "s": "a"});
    assert_eq!(compare(&r, &same), Comparison::default());
    let moved = serde_json::json!({"x": [0.1, 2.5000000000000004, 7], "s": "a"});
    let c = compare(&r, &moved);
    assert_eq!(c.changed_numbers, 1);
    assert_eq!(c.first_change.as_ref().unwrap().path, "$.x[1]");
    match c.finding(Stage::Parse) {
        Some(Finding::NumbersChanged { first, .. }) => {
            assert_eq!(first.got, "2.5000000000000004")
        }
        other => panic!("{other:?}"),
    }
    assert!(c.mismatch.is_none());
    let other = serde_json::json!({"x": [0.1, 2.5, 7], "s": "b"});
    assert_eq!(compare(&r, &other).mismatch.unwrap().path, "$.s");
    let big = parse(b"[18446744073709551616]").unwrap();
    let as_float = serde_json::json!([18446744073709551616.0]);
    assert_eq!(compare(&big, &as_float).changed_numbers, 1);
}

#[test]
fn first_difference_names_the_path() {
    let a = serde_json::json!({"a": [1, {"b": "x"}]});
    let b = serde_json::json!({"a": [1, {"b": "y"}]});
    assert_eq!(first_difference(&a, &a), None);
    assert!(first_difference(&a, &b).unwrap().starts_with("at $.a[1].b"));
}
