//! `model::decimal`.

use serprof_engines::model::decimal::*;

#[test]
fn parses_every_form_of_a_whole_number_of_cents() {
    let cases: &[(&str, Result<i64, DecimalError>)] = &[
        ("218.62", Ok(21862)),
        ("2.00", Ok(200)),
        ("2", Ok(200)),
        ("399.4", Ok(39940)),
        ("399.40", Ok(39940)),
        ("3.994e2", Ok(39940)),
        ("3994E-1", Ok(39940)),
        ("0.05", Ok(5)),
        ("-0.05", Ok(-5)),
        ("0", Ok(0)),
        ("-0", Ok(0)),
        ("1.000000000000000000000000000000000000", Ok(100)),
        ("1.001", Err(DecimalError::NotCents)),
        ("0.005", Err(DecimalError::NotCents)),
        ("1e-3", Err(DecimalError::NotCents)),
        ("01", Err(DecimalError::Syntax)),
        ("1.", Err(DecimalError::Syntax)),
        (".5", Err(DecimalError::Syntax)),
        ("1e", Err(DecimalError::Syntax)),
        ("+1", Err(DecimalError::Syntax)),
        ("", Err(DecimalError::Syntax)),
        ("1x", Err(DecimalError::Syntax)),
        ("1e400", Err(DecimalError::OutOfRange)),
        ("99999999999999999999", Err(DecimalError::OutOfRange)),
    ];
    for (text, want) in cases {
        let got = Decimal::parse_json_number(text.as_bytes()).map(|d| d.cents);
        assert_eq!(&got, want, "{text}");
    }
}

#[test]
fn writes_two_fraction_digits() {
    for (cents, text) in [
        (21862, "218.62"),
        (200, "2.00"),
        (5, "0.05"),
        (-5, "-0.05"),
        (0, "0.00"),
    ] {
        assert_eq!(Decimal::from_cents(cents).to_string(), text);
        let mut out = Vec::new();
        Decimal::from_cents(cents).write_to(&mut out);
        assert_eq!(out, text.as_bytes());
    }
}

#[test]
fn serde_json_round_trip_is_exact() {
    for cents in (0..100_000).step_by(7).chain([i64::from(i32::MAX), -12345]) {
        let d = Decimal::from_cents(cents);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<Decimal>(&json).unwrap(), d, "{json}");
    }
    assert!(serde_json::from_str::<Decimal>("1.001").is_err());
    assert_eq!(
        serde_json::to_string(&Decimal::from_cents(21862)).unwrap(),
        "218.62"
    );
}
