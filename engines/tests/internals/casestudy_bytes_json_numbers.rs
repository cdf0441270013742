//! `casestudy::bytes_json::numbers`.

use serprof_engines::casestudy::bytes_json::numbers::*;

#[test]
fn scans_the_json_number_grammar() {
    let cases: &[(&str, Result<usize, usize>)] = &[
        ("0", Ok(1)),
        ("-0", Ok(2)),
        ("12,", Ok(2)),
        ("012", Ok(1)),
        ("1.5}", Ok(3)),
        ("3.994e2", Ok(7)),
        ("1E+10", Ok(5)),
        ("1e-3", Ok(4)),
        ("-", Err(1)),
        ("+1", Err(0)),
        (".5", Err(0)),
        ("1.", Err(2)),
        ("1.e3", Err(2)),
        ("1e", Err(2)),
        ("1e+", Err(3)),
        ("-a", Err(1)),
    ];
    for (text, want) in cases {
        let got = scan_number(text.as_bytes(), 0).map_err(|e| e.offset);
        assert_eq!(&got, want, "{text}");
    }
}

#[test]
fn integers_are_exact_in_every_form() {
    let cases: &[(&str, Option<i64>)] = &[
        ("0", Some(0)),
        ("-0", Some(0)),
        ("10024", Some(10024)),
        ("-5", Some(-5)),
        ("9223372036854775807", Some(i64::MAX)),
        ("-9223372036854775808", Some(i64::MIN)),
        ("9223372036854775808", None),
        ("10024.0", Some(10024)),
        ("1.0024e4", Some(10024)),
        ("100240e-1", Some(10024)),
        ("1753505827000", Some(1_753_505_827_000)),
        ("1.753505827E12", Some(1_753_505_827_000)),
        ("0.0e99999999999", Some(0)),
        ("1.5", None),
        ("1e-1", None),
        ("1e19", None),
        ("1e99999999999999999999", None),
        ("-1e18", Some(-1_000_000_000_000_000_000)),
    ];
    for (text, want) in cases {
        assert_eq!(integer_value(text.as_bytes()), *want, "{text}");
    }
}

#[test]
fn writes_integers_and_floats_like_jackson() {
    let ints = [
        (0, "0"),
        (7, "7"),
        (-42, "-42"),
        (i64::MAX, "9223372036854775807"),
        (i64::MIN, "-9223372036854775808"),
    ];
    for (v, want) in ints {
        let mut out = Vec::new();
        write_i64(&mut out, v);
        assert_eq!(out, want.as_bytes());
    }
    let floats = [
        (0.0, "0.0"),
        (0.24, "0.24"),
        (0.29, "0.29"),
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (f64::NAN, "\"NaN\""),
        (f64::INFINITY, "\"Infinity\""),
        (f64::NEG_INFINITY, "\"-Infinity\""),
    ];
    for (v, want) in floats {
        let mut out = Vec::new();
        write_f64(&mut out, v);
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
