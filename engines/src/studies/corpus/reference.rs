//! The corpus study's reference parser: a small, strict JSON parser of our own that keeps every
//! number as its text, so an integer beyond 64 bits and every float survive exactly. It checks
//! what the engines under test are compared against, without turning on a feature of theirs
//! (cargo unifies features: serde_json's `float_roundtrip` would change every serde_json
//! configuration of every study).
//!
//! Errors carry the byte offset where the input stops being JSON.

use std::fmt;

pub use serprof_api::__private::NumberChange;
use serprof_api::__private::{Finding, Mismatch, Stage};

/// A JSON value with its numbers as written.
#[derive(Debug, Clone, PartialEq)]
pub enum RefValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// The number's text, exactly as in the input.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array's elements.
    Array(Vec<RefValue>),
    /// Members in input order, duplicates kept.
    Object(Vec<(String, RefValue)>),
}

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// The byte where parsing stopped.
    pub offset: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

/// Nesting deeper than this is refused (the parser recurses; a damaged file of a million `[`
/// must give an error, not overflow the stack).
pub const MAX_DEPTH: usize = 512;

/// Parses one JSON document (whitespace around it allowed, nothing else).
pub fn parse(input: &[u8]) -> Result<RefValue, SyntaxError> {
    if let Err(e) = std::str::from_utf8(input) {
        return Err(SyntaxError {
            offset: e.valid_up_to(),
            message: "invalid UTF-8".into(),
        });
    }
    let mut p = Parser { s: input, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err("trailing characters after the document"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> SyntaxError {
        SyntaxError {
            offset: self.i,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &[u8], v: RefValue) -> Result<RefValue, SyntaxError> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<RefValue, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'n') => self.literal(b"null", RefValue::Null),
            Some(b't') => self.literal(b"true", RefValue::Bool(true)),
            Some(b'f') => self.literal(b"false", RefValue::Bool(false)),
            Some(b'"') => Ok(RefValue::String(self.string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(RefValue::Array(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(RefValue::Array(items));
                        }
                        _ => return Err(self.err("expected , or ] in an array")),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(RefValue::Object(members));
                }
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.err("expected a string key"));
                    }
                    let key = self.string()?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return Err(self.err("expected : after a key"));
                    }
                    self.i += 1;
                    self.ws();
                    members.push((key, self.value(depth + 1)?));
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(RefValue::Object(members));
                        }
                        _ => return Err(self.err("expected , or } in an object")),
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a value")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<RefValue, SyntaxError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("expected a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("expected a digit in the exponent"));
            }
        }
        // The input was checked to be UTF-8 and a number is ASCII.
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        Ok(RefValue::Number(text))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            match c {
                b'"' => {
                    self.i += 1;
                    // Bytes come from valid UTF-8 input and escapes write whole characters.
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                b'\\' => {
                    let (ch, next) = crate::casestudy::bytes_json::parse_escape(self.s, self.i)
                        .map_err(|e| SyntaxError {
                            offset: e.offset,
                            message: e.message,
                        })?;
                    self.i = next;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.err("control character in a string")),
                _ => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

/// What comparing an engine's value with the reference found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Numbers the engine holds differently (counted over the whole document).
    pub changed_numbers: usize,
    /// The first of them.
    pub first_change: Option<NumberChange>,
    /// The first difference that is not a number's (a string, a key, a shape): a failure.
    pub mismatch: Option<Mismatch>,
}

impl Comparison {
    /// The finding of changed numbers at `stage`, if any.
    pub fn finding(&self, stage: Stage) -> Option<Finding> {
        let first = self.first_change.clone()?;
        Some(Finding::NumbersChanged {
            stage,
            count: self.changed_numbers,
            first,
        })
    }
}

/// Compares `got` (an engine's value, as a serde_json `Value` made by `serde_json::to_value`,
/// which keeps the engine's f64 and integers bit for bit) with the reference. Duplicate keys
/// of the reference: the last one counts, as in a map.
pub fn compare(reference: &RefValue, got: &serde_json::Value) -> Comparison {
    let mut c = Comparison::default();
    let mut path = String::from("$");
    walk(reference, got, &mut path, &mut c);
    c
}

fn walk(r: &RefValue, g: &serde_json::Value, path: &mut String, c: &mut Comparison) {
    use serde_json::Value as V;
    if c.mismatch.is_some() {
        return;
    }
    match (r, g) {
        (RefValue::Null, V::Null) => {}
        (RefValue::Bool(a), V::Bool(b)) if a == b => {}
        (RefValue::String(a), V::String(b)) if a == b => {}
        (RefValue::Number(text), V::Number(n)) => {
            if let Some(expected) = number_change(text, n) {
                c.changed_numbers += 1;
                if c.first_change.is_none() {
                    c.first_change = Some(NumberChange {
                        path: path.clone(),
                        text: text.clone(),
                        expected,
                        got: n.to_string(),
                        from_text: true,
                    });
                }
            }
        }
        (RefValue::Array(a), V::Array(b)) => {
            if a.len() != b.len() {
                return mismatch(
                    c,
                    path,
                    format!("{} items, the engine has {}", a.len(), b.len()),
                );
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(x, y, path, c);
                path.truncate(len);
            }
        }
        (RefValue::Object(a), V::Object(b)) => {
            let mut last: Vec<(&String, &RefValue)> = Vec::with_capacity(a.len());
            for (k, v) in a {
                match last.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = v,
                    None => last.push((k, v)),
                }
            }
            if last.len() != b.len() {
                return mismatch(
                    c,
                    path,
                    format!("{} keys, the engine has {}", last.len(), b.len()),
                );
            }
            for (k, v) in last {
                let Some(y) = b.get(k) else {
                    return mismatch(c, path, format!("key {k:?} is missing"));
                };
                let len = path.len();
                path.push('.');
                path.push_str(k);
                walk(v, y, path, c);
                path.truncate(len);
            }
        }
        (r, g) => mismatch(
            c,
            path,
            format!("expected {}, the engine has {}", short(r), g),
        ),
    }
}

fn mismatch(c: &mut Comparison, path: &str, what: String) {
    c.mismatch = Some(Mismatch {
        path: path.to_string(),
        what,
    });
}

fn short(r: &RefValue) -> String {
    match r {
        RefValue::Null => "null".into(),
        RefValue::Bool(b) => b.to_string(),
        RefValue::Number(t) => t.clone(),
        RefValue::String(s) => format!("{s:?}"),
        RefValue::Array(a) => format!("an array of {}", a.len()),
        RefValue::Object(o) => format!("an object of {} keys", o.len()),
    }
}

/// Whether `text` is an integer (no fraction, no exponent).
pub fn is_integer(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

/// `None` when the engine's number `n` is what `text` means; else what it should have been.
/// An integer must come back as that integer; beyond 64 bits no serde_json `Value` can hold it
/// (serde_json's `arbitrary_precision` is off), so it is a change whatever the engine does. A
/// float must be the correctly rounded f64 of its text (`str::parse::<f64>` rounds correctly).
fn number_change(text: &str, n: &serde_json::Number) -> Option<String> {
    if is_integer(text) {
        // A float of the integer's value is the same number while f64 holds it exactly.
        let exact_float = |v: f64| n.as_f64() == Some(v) && v.abs() < 9.007_199_254_740_992e15;
        let same = match (text.parse::<i64>(), text.parse::<u64>()) {
            (Ok(i), _) => n.as_i64() == Some(i) || exact_float(i as f64),
            (_, Ok(u)) => n.as_u64() == Some(u) || exact_float(u as f64),
            _ => false,
        };
        return (!same).then(|| text.to_string());
    }
    let expected: f64 = text.parse().ok()?;
    match n.as_f64() {
        Some(got) if got.to_bits() == expected.to_bits() || (got == 0.0 && expected == 0.0) => None,
        _ => Some(format!("{expected:?}")),
    }
}

/// Compares two serde_json values (an engine's value before and after a trip): numbers that
/// differ are counted as changes, anything else is a mismatch. An integer and a float of the
/// same value are the same JSON number.
pub fn compare_values(before: &serde_json::Value, after: &serde_json::Value) -> Comparison {
    fn go(a: &serde_json::Value, b: &serde_json::Value, path: &mut String, c: &mut Comparison) {
        use serde_json::Value as V;
        if c.mismatch.is_some() {
            return;
        }
        match (a, b) {
            (V::Number(x), V::Number(y)) => {
                if !same_number(x, y) {
                    c.changed_numbers += 1;
                    if c.first_change.is_none() {
                        c.first_change = Some(NumberChange {
                            path: path.clone(),
                            text: x.to_string(),
                            expected: x.to_string(),
                            got: y.to_string(),
                            from_text: false,
                        });
                    }
                }
            }
            (V::Array(x), V::Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    go(p, q, path, c);
                    path.truncate(len);
                }
            }
            (V::Object(x), V::Object(y)) if x.len() == y.len() => {
                for (k, p) in x {
                    let len = path.len();
                    path.push('.');
                    path.push_str(k);
                    match y.get(k) {
                        None => return mismatch(c, path, "key missing".into()),
                        Some(q) => go(p, q, path, c),
                    }
                    path.truncate(len);
                }
            }
            _ if a == b => {}
            _ => mismatch(c, path, format!("{} became {}", clip(a), clip(b))),
        }
    }
    let mut c = Comparison::default();
    go(before, after, &mut String::from("$"), &mut c);
    c
}

/// Whether two serde_json numbers are the same number (47 and 47.0 are).
fn same_number(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if x == y {
        return true;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => {
            (x.is_f64() || y.is_f64()) && a == b && a.abs() < 9.007_199_254_740_992e15
        }
        _ => false,
    }
}

/// The first difference between two serde_json values, with its path (`None` when equal; an
/// integer and a float of the same value are equal).
pub fn first_difference(a: &serde_json::Value, b: &serde_json::Value) -> Option<String> {
    let c = compare_values(a, b);
    c.mismatch.map(|m| m.to_string()).or_else(|| {
        c.first_change
            .map(|n| format!("at {}: {} became {}", n.path, n.expected, n.got))
    })
}

fn clip(v: &serde_json::Value) -> String {
    let mut s = v.to_string();
    if s.len() > 60 {
        let mut end = 60;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}
