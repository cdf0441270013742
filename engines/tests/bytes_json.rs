//! The `bytes_json` engine through its public API: the golden output, the payload totals (per
//! Order 9,814.14 bytes in the Jackson mapping, 9,742.765 with nulls omitted, 20,999.965 with
//! decimal arrays; the articles give 9,814, 9,742 and 20,999), round trips through every `bytes`
//! configuration, interoperation with serde_json, what the reader accepts, and what it rejects.

use serde_json::Value;
use serprof_engines::casestudy::bytes_json::{
    read_order, write_order, ByteArrayCodec, BytesJson, Options,
};
use serprof_engines::dataset::orders;
use serprof_engines::external::serde_json::SerdeJson;
use serprof_engines::model::{Decimal, Order, SerdeBytes};
use serprof_engines::studies;
use serprof_engines::Codec;

fn options(byte_arrays: ByteArrayCodec, write_nulls: bool) -> Options {
    Options {
        byte_arrays,
        write_nulls,
    }
}

fn encode(order: &Order, options: &Options) -> Vec<u8> {
    let mut out = Vec::new();
    write_order(order, options, &mut out);
    out
}

fn total_bytes(options: &Options) -> usize {
    let mut out = Vec::new();
    orders()
        .iter()
        .map(|order| {
            out.clear();
            write_order(order, options, &mut out);
            out.len()
        })
        .sum()
}

#[test]
fn jackson_options_reproduce_the_golden_file() {
    let golden = include_str!("fixtures/orders-000-009.jsonl");
    let lines: Vec<&str> = golden.lines().collect();
    assert_eq!(lines.len(), 10);
    for (i, want) in lines.iter().enumerate() {
        let got = encode(&orders()[i], &Options::jackson());
        assert_eq!(String::from_utf8(got).unwrap(), *want, "Order {i}");
    }
}

#[test]
fn payload_totals_match_the_articles() {
    let cases = [
        (options(ByteArrayCodec::Base64Table, true), 1_962_828),
        (options(ByteArrayCodec::Base64Table, false), 1_948_553),
        (options(ByteArrayCodec::DecimalSigned, false), 4_199_993),
    ];
    for (options, want) in cases {
        assert_eq!(total_bytes(&options), want, "{options:?}");
    }
    // Every base64 codec writes the same bytes.
    for codec in [ByteArrayCodec::Base64TwoPass, ByteArrayCodec::Base64Crate] {
        assert_eq!(total_bytes(&options(codec, false)), 1_948_553, "{codec:?}");
    }
}

#[test]
fn every_bytes_configuration_round_trips_every_order() {
    let study = studies::bytes::study();
    let configs = study.configs();
    let names: Vec<&str> = configs.iter().map(|c| c.info.config.as_str()).collect();
    assert_eq!(
        names,
        [
            "json-decimal",
            "json-base64-twopass",
            "json-base64-table",
            "json-base64-crate",
            "serde_json-default",
            "serde_json-base64",
        ]
    );
    for (config, engine) in configs.iter().zip(studies::bytes::engines()) {
        let mut codec = engine
            .build()
            .unwrap_or_else(|e| panic!("{}: {e}", config.info.name()));
        let mut buf = Vec::new();
        for (i, order) in orders().iter().enumerate() {
            buf.clear();
            codec.encode(order, &mut buf).unwrap();
            let back = codec
                .decode(&mut buf)
                .unwrap_or_else(|e| panic!("{} Order {i}: {e}", config.info.name()));
            assert!(
                back == *order,
                "{} Order {i}: {:?}",
                config.info.name(),
                order.first_difference(&back)
            );
        }
    }
}

#[test]
fn reads_what_serde_json_writes() {
    // Base64, and serde's default unsigned decimal arrays (`[179,255,99]`): the reader takes
    // -128..=255 as Jackson does for `byte[]`.
    for bytes in [SerdeBytes::Base64, SerdeBytes::Seq] {
        let mut serde = SerdeJson { bytes };
        let mut buf = Vec::new();
        for order in orders() {
            buf.clear();
            serde.encode(order, &mut buf).unwrap();
            for codec in ByteArrayCodec::ALL {
                let back = read_order(&buf, &options(codec, false)).unwrap();
                assert_eq!(back, *order, "{bytes:?}, {codec:?} on {}", order.id);
            }
        }
    }
    // serde_json writes 2.00 as 2.0, which is still 200 cents.
    let two = orders()
        .iter()
        .flat_map(|o| &o.lines)
        .any(|l| l.unit_price.cents % 10 == 0);
    assert!(two, "the dataset has prices with trailing zeros");
}

#[test]
fn serde_json_reads_what_we_write() {
    let mut serde = SerdeJson {
        bytes: SerdeBytes::Base64,
    };
    for write_nulls in [false, true] {
        for order in orders() {
            let mut json = encode(order, &options(ByteArrayCodec::Base64Table, write_nulls));
            let back: Order = serde.decode(&mut json).unwrap();
            assert_eq!(back, *order, "nulls written: {write_nulls}, {}", order.id);
        }
    }
}

/// Rewrites every object of a JSON value: members in reverse order (sorted by name where
/// serde_json's map sorts, as it does without `preserve_order`), and, outside `attributes` (a
/// map, where any name is data), two unknown members.
fn reorder_and_add_unknown(value: &mut Value, in_attributes: bool) {
    match value {
        Value::Object(map) => {
            let members: Vec<(String, Value)> = std::mem::take(map).into_iter().rev().collect();
            if !in_attributes {
                let unknown: Value = serde_json::from_str(
                    r#"{"a":[1,{"b":null,"c":[[],{}]}],"d":"\u00e9\ud83d\ude00","e":-1.5e3,"f":true}"#,
                )
                .unwrap();
                map.insert("zzUnknown".into(), unknown);
                map.insert("aaUnknown".into(), Value::Array(vec![Value::Null]));
            }
            for (key, mut v) in members {
                reorder_and_add_unknown(&mut v, key == "attributes");
                map.insert(key, v);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| reorder_and_add_unknown(v, false)),
        _ => {}
    }
}

#[test]
fn reads_reordered_members_whitespace_and_unknown_members() {
    for order in &orders()[..20] {
        for write_nulls in [false, true] {
            let json = encode(order, &options(ByteArrayCodec::Base64Table, write_nulls));
            let mut value: Value = serde_json::from_slice(&json).unwrap();
            reorder_and_add_unknown(&mut value, false);
            let text = serde_json::to_string_pretty(&value).unwrap();
            assert!(
                !text.starts_with("{\n  \"id\""),
                "members were not reordered"
            );
            // The attributes' order is data, and it went through the same map: expect what the
            // map made of it.
            let mut want = order.clone();
            let reordered: Vec<(String, String)> = value["attributes"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect();
            want.attributes.0 = reordered.into_iter().collect();
            for codec in ByteArrayCodec::ALL {
                let back = read_order(text.as_bytes(), &options(codec, false)).unwrap();
                assert_eq!(back, want, "{codec:?} on {}", order.id);
            }
        }
    }
}

/// Order 0 in the Jackson mapping, with the first `from` replaced by `to`.
fn order0_with(from: &str, to: &str) -> String {
    let json = String::from_utf8(encode(&orders()[0], &Options::jackson())).unwrap();
    assert!(json.contains(from), "{from}");
    json.replacen(from, to, 1)
}

#[test]
fn decimals_are_exact_in_any_number_form() {
    let cases: &[(&str, Option<i64>)] = &[
        ("218.62", Some(21862)),
        ("2.1862e2", Some(21862)),
        ("21862E-2", Some(21862)),
        ("218.620000", Some(21862)),
        ("399.4", Some(39940)),
        ("3.994e2", Some(39940)),
        ("1.001", None),
        ("218.625", None),
        ("1e400", None),
        ("\"218.62\"", None),
    ];
    for (text, want) in cases {
        let json = order0_with(r#""unitPrice":218.62,"#, &format!(r#""unitPrice":{text},"#));
        let got = read_order(json.as_bytes(), &Options::default());
        match want {
            Some(cents) => {
                let order = got.unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(order.lines[0].unit_price, Decimal::from_cents(*cents));
                assert_eq!(order.lines[1..], orders()[0].lines[1..]);
            }
            None => {
                let e = got.unwrap_err();
                assert_eq!(&json[e.offset..e.offset + text.len()], *text, "{e}");
            }
        }
    }
}

#[test]
fn reads_escapes_and_absent_or_null_optionals() {
    let original = &orders()[0];
    let cases = [
        (r#""ORD-2026-000000""#, r#""ORD\u002d2026\/000000""#),
        (r#""notes":null"#, r#""notes":"\ud83d\ude00 \"q\" \\ \n""#),
        (r#","notes":null"#, ""),
        (r#""parent":null"#, r#""parent" : null"#),
    ];
    let expected = |i: usize| {
        let mut o = original.clone();
        match i {
            0 => o.id = "ORD-2026/000000".into(),
            1 => o.notes = Some("😀 \"q\" \\ \n".into()),
            _ => {}
        }
        o
    };
    for (i, (from, to)) in cases.iter().enumerate() {
        let json = order0_with(from, to);
        let back = read_order(json.as_bytes(), &Options::default())
            .unwrap_or_else(|e| panic!("{to}: {e}"));
        assert_eq!(back, expected(i), "{to}");
    }
}

/// Member names are matched as raw bytes when they have no escapes: escaped names, non-ASCII
/// unknown names and names that merely share a prefix or length must read to the same Order.
#[test]
fn member_names_match_with_escapes_and_unicode() {
    let original = &orders()[0];
    let same = [
        (r#"{"id":"#, r#"{"\u0069d":"#),
        (r#""firstName":"#, r#""first\u004eame":"#),
        (r#""street":"#, r#""\u0073treet":"#),
        (
            r#""notes":null"#,
            r#""notes":null,"n\u00f6tes":1,"noteß":2,"note":3,"notesX":4"#,
        ),
        (r#""sku":"#, r#""skü":[],"sku":"#),
    ];
    for (from, to) in same {
        let json = order0_with(from, to);
        let back = read_order(json.as_bytes(), &Options::default())
            .unwrap_or_else(|e| panic!("{to}: {e}"));
        assert_eq!(&back, original, "{to}");
    }
    // An escaped duplicate is still a duplicate; a bad byte in an unknown name is found.
    let json = order0_with(r#""vip":false"#, r#""vip":false,"\u0076ip":true"#);
    let e = read_order(json.as_bytes(), &Options::default()).unwrap_err();
    assert!(json[e.offset..].starts_with(r#""\u0076ip""#), "{e}");
    let json = order0_with(r#""vip":false"#, r#""vip":false,"v\u00e9":true"#);
    let mut bytes = json.replace(r"\u00e9", "\u{e9}").into_bytes();
    let at = bytes.iter().position(|&b| b == 0xc3).unwrap();
    assert!(read_order(&bytes, &Options::default()).is_ok());
    bytes[at + 1] = b'x';
    let e = read_order(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.offset, at, "{e}");
}

/// Inputs that are not an Order, each with the text the error must point at.
#[test]
fn rejects_malformed_input_with_an_offset() {
    let bad_thumbnail = order0_with(r#""thumbnail":"s/9j"#, r#""thumbnail":"s/9!"#);
    let cases: Vec<(String, &str)> = vec![
        (
            order0_with(r#""vip":false"#, r#""vip":fals"#),
            r#","addresses""#,
        ),
        (order0_with(r#""ORD-2026-000000""#, r#""ORD\q""#), r"\q"),
        (order0_with("ORD-2026-000000", "ORD\u{1}"), "\u{1}"),
        (
            order0_with(r#""quantity":5,"#, r#""quantity":5e10,"#),
            "5e10",
        ),
        (order0_with(r#""quantity":5,"#, r#""quantity":5.5,"#), "5.5"),
        (
            order0_with(
                r#""created":1753505827000"#,
                r#""created":99999999999999999999"#,
            ),
            "9999",
        ),
        (
            order0_with(r#""discount":0.0}"#, r#""discount":1e999}"#),
            "1e999",
        ),
        (
            order0_with(r#""status":"SHIPPED""#, r#""status":"SENT""#),
            r#""SENT""#,
        ),
        (order0_with(r#","status":"SHIPPED""#, ""), "{\"id\":\"ORD"),
        (
            order0_with(r#","created":1753505827000"#, r#","id":"x","created":1"#),
            r#""id":"x""#,
        ),
        (
            order0_with(r#""notes":null"#, r#""notes":null,"x":[1,]"#),
            "]}",
        ),
        (order0_with(r#""notes":null"#, r#""notes":null}"#), "}"),
        (order0_with(r#""notes":null"#, r#""notes":7"#), "7}"),
        (order0_with(r#""vip":false"#, r#""vip":null"#), "null"),
        (bad_thumbnail, "!"),
        (
            order0_with(r#""giftWrap1""#, r#""campaign0""#),
            r#""campaign0":"incididunt amet"#,
        ),
    ];
    for (json, at) in &cases {
        let e = read_order(json.as_bytes(), &Options::default()).unwrap_err();
        assert!(
            json[e.offset..].starts_with(at),
            "{e}: points at {:?}, want {at:?}",
            &json[e.offset..(e.offset + 20).min(json.len())]
        );
    }
}

#[test]
fn rejects_invalid_utf8_deep_nesting_and_truncation() {
    let json = order0_with("Vienna", "Vi\u{e9}nna");
    let mut bytes = json.into_bytes();
    let at = bytes.iter().position(|&b| b == 0xc3).unwrap();
    bytes[at + 1] = b'x';
    let e = read_order(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.offset, at, "{e}");

    let deep = "[".repeat(10_000);
    let json = order0_with(r#""notes":null"#, &format!(r#""notes":null,"x":{deep}"#));
    let e = read_order(json.as_bytes(), &Options::default()).unwrap_err();
    assert!(e.message.contains("nesting"), "{e}");

    let json = encode(&orders()[1], &options(ByteArrayCodec::DecimalSigned, true));
    for codec in ByteArrayCodec::ALL {
        for len in (0..json.len()).step_by(37) {
            let e = read_order(&json[..len], &options(codec, false)).unwrap_err();
            assert!(e.offset <= len, "{codec:?} at {len}: {e}");
        }
    }
    assert!(read_order(b"  ", &Options::default()).is_err());
    let mut trailing = encode(&orders()[0], &Options::default());
    trailing.extend_from_slice(b" {}");
    let e = read_order(&trailing, &Options::default()).unwrap_err();
    assert_eq!(e.offset, trailing.len() - 2);
}

#[test]
fn codec_errors_carry_the_offset() {
    let mut codec = BytesJson::default();
    let mut input = b"{\"id\":1}".to_vec();
    match codec.decode(&mut input) {
        Err(serprof_engines::CodecError::Decode { offset, .. }) => assert_eq!(offset, Some(6)),
        other => panic!("{other:?}"),
    }
}
