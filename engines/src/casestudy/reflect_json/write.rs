//! JSON text for single values: strings with escapes, integers, literals, into any [`Sink`].
//!
//! The same code writes into a `String` (the article's `StringBuilder`, for `reflect-noncached`
//! and `reflect-cached`) and into the caller's `Vec<u8>` (the tuned variants), so the variants
//! differ only where they are meant to.

/// Where JSON text goes: a `String` or a `Vec<u8>`.
pub trait Sink {
    /// Appends one ASCII byte.
    fn push_ascii(&mut self, byte: u8);
    /// Appends text.
    fn push_str(&mut self, text: &str);
}

impl Sink for String {
    #[inline]
    fn push_ascii(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        self.push(byte as char);
    }
    #[inline]
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn push_ascii(&mut self, byte: u8) {
        self.push(byte);
    }
    #[inline]
    fn push_str(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
}

/// Marks the bytes a JSON string may not hold as they are (RFC 8259 section 7): `0` passes,
/// `u` means `\u00XX`, anything else is the letter after the backslash.
static ESCAPE: [u8; 256] = escape_table();

const fn escape_table() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
}

/// Writes `text` as a JSON string, quotes included. Runs of bytes that need no escape are copied
/// whole; every byte that does is ASCII, so the runs end on character boundaries.
#[inline]
pub fn write_string<S: Sink>(text: &str, out: &mut S) {
    out.push_ascii(b'"');
    let mut start = 0;
    for (i, &byte) in text.as_bytes().iter().enumerate() {
        let escape = ESCAPE[byte as usize];
        if escape == 0 {
            continue;
        }
        if start < i {
            out.push_str(&text[start..i]);
        }
        write_escape(byte, escape, out);
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push_ascii(b'"');
}

#[cold]
fn write_escape<S: Sink>(byte: u8, escape: u8, out: &mut S) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_ascii(b'\\');
    out.push_ascii(escape);
    if escape == b'u' {
        out.push_str("00");
        out.push_ascii(HEX[(byte >> 4) as usize]);
        out.push_ascii(HEX[(byte & 0xf) as usize]);
    }
}

/// Writes an integer in decimal, as `StringBuilder.append(long)` does: digits into a small
/// stack buffer from the end, then one append.
#[inline]
pub fn write_integer<S: Sink>(n: i64, out: &mut S) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut rest = n.unsigned_abs();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push_ascii(b'-');
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[pos..]).unwrap_or_default());
}

/// Writes `true` or `false`.
#[inline]
pub fn write_bool<S: Sink>(b: bool, out: &mut S) {
    out.push_str(if b { "true" } else { "false" });
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
