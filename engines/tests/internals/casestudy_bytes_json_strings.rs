//! `casestudy::bytes_json::strings`.

use serprof_engines::casestudy::bytes_json::strings::*;
use serprof_engines::casestudy::json_text::needs_escape;

#[test]
fn writes_only_the_escapes_json_requires() {
    let cases = [
        ("plain", r#""plain""#),
        ("a\"b\\c", r#""a\"b\\c""#),
        ("tab\tnl\ncr\rbs\u{8}ff\u{c}", r#""tab\tnl\ncr\rbs\bff\f""#),
        ("\u{1}\u{1f}", r#""\u0001\u001f""#),
        ("/ü€😀\u{7f}", "\"/ü€😀\u{7f}\""),
        (
            "a longer run of plain text, then \"quoted\" words\nand a tab\t!",
            r#""a longer run of plain text, then \"quoted\" words\nand a tab\t!""#,
        ),
        ("0123456\"89abcdef\u{0}", r#""0123456\"89abcdef\u0000""#),
        ("", r#""""#),
    ];
    for (text, want) in cases {
        let mut out = Vec::new();
        write_str(&mut out, text);
        assert_eq!(String::from_utf8(out).unwrap(), want, "{text:?}");
        // Whatever we write, serde_json reads back unchanged.
        assert_eq!(serde_json::from_str::<String>(want).unwrap(), text);
    }
}

/// The eight-at-a-time scan against a byte loop: every byte value as the stop (or not) at
/// every position of strings up to 40 bytes, after ASCII or non-ASCII runs, from every start.
#[test]
fn the_word_scan_finds_what_the_byte_loop_finds() {
    fn reference(bytes: &[u8], from: usize) -> (usize, bool) {
        let end = (from..bytes.len())
            .find(|&i| needs_escape(bytes[i]))
            .unwrap_or(bytes.len());
        (end, bytes[from..end].is_ascii())
    }
    for len in 0..40 {
        for at in 0..len {
            for b in 0..=255u8 {
                for filler in [b'a', 0xC3, 0x01, b'"' + 1, b'\\' - 1] {
                    let mut bytes = vec![filler; len];
                    bytes[at] = b;
                    for from in [0, 1, 7, 9] {
                        let from = from.min(len);
                        assert_eq!(
                            scan_string_run(&bytes, from),
                            reference(&bytes, from),
                            "{bytes:?} from {from}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn unescapes_every_escape_and_surrogate_pairs() {
    let cases: &[(&str, Result<&str, usize>)] = &[
        (r#"abc""#, Ok("abc")),
        (r#"a\"b\\c\/d\b\f\n\r\t""#, Ok("a\"b\\c/d\u{8}\u{c}\n\r\t")),
        (r#"\u0041\u00fc\u20AC""#, Ok("Aü€")),
        (r#"\ud83d\ude00!""#, Ok("😀!")),
        (r#"\x""#, Err(0)),
        (r#"\u12G4""#, Err(4)),
        (r#"\ud83d""#, Err(0)),
        (r#"\ud83d\u0041""#, Err(6)),
        (r#"\ude00""#, Err(0)),
        ("a\u{1}\"", Err(1)),
        (r#"abc"#, Err(3)),
        (r#"\u00"#, Err(4)),
        (r#"\"#, Err(1)),
    ];
    for (body, want) in cases {
        let mut out = Vec::new();
        let got = unescape_into(body.as_bytes(), 0, &mut out)
            .map(|_| String::from_utf8(out).unwrap())
            .map_err(|e| e.offset);
        assert_eq!(got.as_deref().map_err(|e| *e), *want, "{body}");
    }
}

#[test]
fn rejects_invalid_utf8_at_its_offset() {
    let input = b"ok\xff\xfe\"";
    let e = unescape_into(input, 0, &mut Vec::new()).unwrap_err();
    assert_eq!(e.offset, 2);
    let input = b"\\n\xc3\"";
    let e = unescape_into(input, 0, &mut Vec::new()).unwrap_err();
    assert_eq!(e.offset, 2);
}
