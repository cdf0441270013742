//! The cursor reader: a position over `&[u8]` and the JSON tokens the Order reader asks for.
//!
//! The Order reader (`super::read`) drives it with `begin_*`/`next_*` calls, the way generated
//! Jackson or Fory readers drive their parsers: it knows which value it expects next, so there is
//! no token tree. Unknown members are skipped with [`Cursor::skip_value`], which validates what
//! it skips. Nesting (objects and arrays, including `category.parent` chains) is limited to
//! [`MAX_DEPTH`] levels so that hostile input cannot exhaust the stack.

use super::error::ReadError;
use super::numbers::{integer_value, non_finite_from_name, scan_number};
use super::strings::{check_utf8, control_character, scan_string_run, truncated, unescape_into};
use crate::model::Decimal;

/// How deeply objects and arrays may nest, counting every level from the Order object down.
pub const MAX_DEPTH: u32 = 128;

pub struct Cursor<'a> {
    input: &'a [u8],
    pos: usize,
    depth: u32,
    /// Unescaped string bodies, reused; only strings with escapes use it.
    scratch: Vec<u8>,
}

/// What [`Cursor::next_member`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    /// The member named `names[i]`; the cursor is at its value.
    Known(usize),
    /// A member whose name is not in `names`; the cursor is at its value.
    Unknown,
    /// The closing brace (consumed).
    End,
}

/// The state of one object being read: whether a comma is due, and which known members were seen
/// (a second member of the same name is an error).
pub(super) struct Members {
    first: bool,
    seen: u64,
    /// The index after the last known member read: the name most likely to come next.
    next: usize,
    /// Where the object starts, for "missing member" errors.
    pub(super) start: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(input: &'a [u8]) -> Cursor<'a> {
        Cursor {
            input,
            pos: 0,
            depth: 0,
            scratch: Vec::new(),
        }
    }

    pub(super) fn input(&self) -> &'a [u8] {
        self.input
    }

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Skips whitespace and returns where the next token starts: the offset an error about the
    /// next value should point at.
    pub(super) fn next_token_at(&mut self) -> usize {
        self.peek();
        self.pos
    }

    pub(super) fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Skips whitespace and returns the next byte without consuming it.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.input.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Skips whitespace and consumes `byte`, or fails naming what was `expected`.
    #[inline]
    pub(super) fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), ReadError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// The error for "wanted `expected` here", or "unexpected end" at the end of the input.
    #[cold]
    pub(super) fn unexpected(&self, expected: &str) -> ReadError {
        if self.pos >= self.input.len() {
            truncated(self.pos)
        } else {
            ReadError::new(self.pos, format!("expected {expected}"))
        }
    }

    /// After the value: only whitespace may follow.
    pub fn finish(&mut self) -> Result<(), ReadError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(ReadError::new(
                self.pos,
                "trailing characters after the value",
            )),
        }
    }

    /// One level deeper; `at` is the opening bracket, where a too-deep error points.
    fn enter(&mut self, at: usize) -> Result<(), ReadError> {
        if self.depth >= MAX_DEPTH {
            return Err(ReadError::new(
                at,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Consumes `{` and starts reading an object's members.
    pub(super) fn begin_object(&mut self) -> Result<Members, ReadError> {
        self.expect(b'{', "an object")?;
        let start = self.pos - 1;
        self.enter(start)?;
        Ok(Members {
            first: true,
            seen: 0,
            next: 0,
            start,
        })
    }

    /// Consumes `[` and starts reading an array's elements.
    pub(super) fn begin_array(&mut self) -> Result<(), ReadError> {
        self.expect(b'[', "an array")?;
        self.enter(self.pos - 1)
    }

    /// Reads a member name and says which of `names` (ASCII, with nothing JSON would escape) it
    /// is. `names[hint]` is tried first, straight against the input before any scan, since
    /// members usually come in model order. Otherwise a name without escapes is compared as raw
    /// bytes: a match needs no UTF-8 check, and only a name that matches none is checked. A name
    /// with escapes takes [`Self::parse_str`].
    #[inline]
    fn parse_member_name(
        &mut self,
        names: &[&str],
        hint: usize,
    ) -> Result<Option<usize>, ReadError> {
        self.expect(b'"', "a string")?;
        let input = self.input;
        let start = self.pos;
        // The expected name, then a quote: no name holds a quote, backslash or control
        // character, so the string is exactly that name, and no scan is needed.
        if let Some(name) = names.get(hint) {
            let end = start + name.len();
            if input[start..].starts_with(name.as_bytes()) && input.get(end) == Some(&b'"') {
                self.pos = end + 1;
                return Ok(Some(hint));
            }
        }
        let (end, ascii) = scan_string_run(input, start);
        if input.get(end) != Some(&b'"') {
            // An escape, or an error that parse_str reports: take the general path.
            self.pos = start - 1;
            let name = self.parse_str()?;
            return Ok(names.iter().position(|n| *n == name));
        }
        let raw = &input[start..end];
        self.pos = end + 1;
        let found = names.iter().position(|n| n.as_bytes() == raw);
        if found.is_none() && !ascii {
            check_utf8(raw, start)?;
        }
        Ok(found)
    }

    /// Moves to the next member of an object: consumes the separating comma and the member name
    /// and colon, and says which of `names` it is; consumes `}` at the end.
    pub(super) fn next_member(
        &mut self,
        members: &mut Members,
        names: &[&str],
    ) -> Result<Member, ReadError> {
        if !self.next_entry(&mut members.first, b'}')? {
            return Ok(Member::End);
        }
        let name_at = self.pos;
        let member = match self.parse_member_name(names, members.next)? {
            Some(i) => {
                members.next = i + 1;
                let bit = 1u64 << i;
                if members.seen & bit != 0 {
                    return Err(ReadError::new(
                        name_at,
                        format!("duplicate member \"{}\"", names[i]),
                    ));
                }
                members.seen |= bit;
                Member::Known(i)
            }
            None => Member::Unknown,
        };
        self.expect(b':', "':' after the member name")?;
        Ok(member)
    }

    /// Moves to the next member of a map-like object (any names): consumes the separating comma,
    /// the name and the colon, and returns where the name starts and the name; `None` at the
    /// closing brace (consumed).
    pub(super) fn next_key(
        &mut self,
        members: &mut Members,
    ) -> Result<Option<(usize, String)>, ReadError> {
        if !self.next_entry(&mut members.first, b'}')? {
            return Ok(None);
        }
        let at = self.pos;
        let name = self.parse_string()?;
        self.expect(b':', "':' after the member name")?;
        Ok(Some((at, name)))
    }

    /// Moves to the next element of an array (or entry of an object when `close` is `}`):
    /// consumes the comma before every entry but the first, and the closing bracket at the end,
    /// where it returns `false`.
    pub(super) fn next_entry(&mut self, first: &mut bool, close: u8) -> Result<bool, ReadError> {
        match self.peek() {
            Some(b) if b == close => {
                self.pos += 1;
                self.depth -= 1;
                return Ok(false);
            }
            Some(b',') if !*first => self.pos += 1,
            _ if *first => {}
            _ => {
                return Err(self.unexpected(if close == b'}' {
                    "',' or '}'"
                } else {
                    "',' or ']'"
                }))
            }
        }
        // `[1,]` and `{"a":1,}` are not JSON.
        if !*first && self.peek() == Some(close) {
            return Err(self.unexpected("a value after ','"));
        }
        *first = false;
        Ok(true)
    }

    /// Consumes `null` if it is next; `false` (consuming nothing) otherwise.
    pub(super) fn parse_null(&mut self) -> Result<bool, ReadError> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.parse_literal(b"null")?;
        Ok(true)
    }

    fn parse_literal(&mut self, literal: &'static [u8]) -> Result<(), ReadError> {
        let end = self.pos + literal.len();
        match self.input.get(self.pos..end) {
            Some(text) if text == literal => {
                self.pos = end;
                Ok(())
            }
            // Report the first byte that differs, or the end of the input.
            _ => {
                let same = self.input[self.pos..]
                    .iter()
                    .zip(literal)
                    .take_while(|(a, b)| a == b)
                    .count();
                let at = self.pos + same;
                Err(if at >= self.input.len() {
                    truncated(at)
                } else {
                    ReadError::new(at, "invalid literal")
                })
            }
        }
    }

    pub(super) fn parse_bool(&mut self) -> Result<bool, ReadError> {
        match self.peek() {
            Some(b't') => self.parse_literal(b"true").map(|()| true),
            Some(b'f') => self.parse_literal(b"false").map(|()| false),
            _ => Err(self.unexpected("true or false")),
        }
    }

    /// Scans a number and returns its text (ASCII, grammar checked).
    fn scan_number_text(&mut self) -> Result<(usize, &'a [u8]), ReadError> {
        let input = self.input;
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {}
            _ => return Err(self.unexpected("a number")),
        }
        let start = self.pos;
        self.pos = scan_number(input, start)?;
        Ok((start, &input[start..self.pos]))
    }

    pub fn parse_i64(&mut self) -> Result<i64, ReadError> {
        let (at, text) = self.scan_number_text()?;
        integer_value(text).ok_or_else(|| not_an_integer(at, "a 64-bit integer"))
    }

    pub fn parse_i32(&mut self) -> Result<i32, ReadError> {
        let (at, text) = self.scan_number_text()?;
        integer_value(text)
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| not_an_integer(at, "a 32-bit integer"))
    }

    /// An exact decimal: the number's text goes to [`Decimal::parse_json_number`], never
    /// through a float.
    pub fn parse_decimal(&mut self) -> Result<Decimal, ReadError> {
        let (at, text) = self.scan_number_text()?;
        Decimal::parse_json_number(text)
            .map_err(|e| ReadError::new(at, format!("invalid decimal: {e}")))
    }

    /// A float: a JSON number parsed by `str::parse::<f64>` (correctly rounded), or one of the
    /// strings Jackson writes for non-finite values (`"NaN"`, `"Infinity"`, `"-Infinity"`).
    pub fn parse_f64(&mut self) -> Result<f64, ReadError> {
        if self.peek() == Some(b'"') {
            let at = self.pos;
            let name = self.parse_str()?;
            return non_finite_from_name(name)
                .ok_or_else(|| ReadError::new(at, "expected a number"));
        }
        let (at, text) = self.scan_number_text()?;
        // The grammar was checked, so the text is ASCII and `parse` cannot fail; a number too
        // large for an f64 parses as infinity, which no JSON number means.
        match std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
        {
            Some(v) if v.is_finite() => Ok(v),
            _ => Err(ReadError::new(at, "number out of range for a double")),
        }
    }

    /// An owned string.
    pub fn parse_string(&mut self) -> Result<String, ReadError> {
        self.parse_str().map(str::to_owned)
    }

    /// A string, borrowed from the input when it has no escapes (the common case: one scan that
    /// also tells whether it is all ASCII, and a UTF-8 check only when it is not), from the
    /// scratch buffer otherwise.
    pub fn parse_str(&mut self) -> Result<&str, ReadError> {
        self.expect(b'"', "a string")?;
        let input = self.input;
        let start = self.pos;
        let (i, ascii) = scan_string_run(input, start);
        match input.get(i) {
            Some(b'"') if ascii => {
                self.pos = i + 1;
                // SAFETY: `scan_string_run` saw every byte of `input[start..i]` and found them all
                // below 0x80 (its unit test holds it to `is_ascii` on every byte value at every
                // position), and ASCII is valid UTF-8. This skips a second validation pass over
                // every string of the payload (3% of a round trip in the profile).
                Ok(unsafe { std::str::from_utf8_unchecked(&input[start..i]) })
            }
            Some(b'"') => {
                self.pos = i + 1;
                check_utf8(&input[start..i], start)
            }
            Some(b'\\') => {
                self.scratch.clear();
                self.pos = unescape_into(input, start, &mut self.scratch)?;
                // Every segment and every escape was checked while copying.
                check_utf8(&self.scratch, start)
            }
            Some(_) => Err(control_character(i)),
            None => Err(truncated(i)),
        }
    }

    /// Skips one JSON value of any kind, checking that it is valid JSON (strings are unescaped
    /// and UTF-8 checked, numbers and literals follow the grammar, nesting is limited).
    pub fn skip_value(&mut self) -> Result<(), ReadError> {
        match self.peek() {
            Some(b'"') => self.parse_str().map(drop),
            Some(b'{') => {
                let mut members = self.begin_object()?;
                while self.next_member(&mut members, &[])? != Member::End {
                    self.skip_value()?;
                }
                Ok(())
            }
            Some(b'[') => {
                self.begin_array()?;
                let mut first = true;
                while self.next_entry(&mut first, b']')? {
                    self.skip_value()?;
                }
                Ok(())
            }
            Some(b't' | b'f') => self.parse_bool().map(drop),
            Some(b'n') => self.parse_null().map(drop),
            Some(b'-' | b'0'..=b'9') => self.scan_number_text().map(drop),
            _ => Err(self.unexpected("a value")),
        }
    }
}

#[cold]
fn not_an_integer(at: usize, what: &str) -> ReadError {
    ReadError::new(at, format!("number is not {what}"))
}
