//! A payload of JSON text read by field, for JSON engines that do not write through serde:
//! an object's members are fields (`.key`), an array's object or array elements are `[]`; a
//! member's bytes run from the comma before it to the end of its value, as a serde format's
//! field does. An object the caller names as a map (its path in `maps`) is read as a serde
//! format's map: its entries are `{}`, a node only when their values are compound, so its keys
//! never become paths.
//! An array of integers each from -128 to 255 is read as a byte array written element by
//! element (Java's signed bytes, or serde's `u8`s).

use std::collections::BTreeMap;

use super::error::{FieldsError, JsonProblem};
use super::record::{PathBytes, PayloadPaths};

/// `text` split by its members; `root` names the value (`Order`), `maps` the paths of the
/// objects that are maps (`Order.attributes`).
pub fn json_text(root: &str, maps: &[&str], text: &[u8]) -> Result<PayloadPaths, FieldsError> {
    let mut p = Parser {
        b: text,
        i: 0,
        maps,
        paths: BTreeMap::new(),
    };
    p.node(root.to_string(), 0, |p| p.value(root))?;
    let end = p.i;
    p.ws();
    if p.i != text.len() {
        return Err(json(JsonProblem::Trailing, p.i));
    }
    if let Some(r) = p.paths.get_mut(root) {
        // The root keeps the whitespace after the value too.
        r.own += text.len() - end;
    }
    Ok(PayloadPaths {
        bytes: text.to_vec(),
        paths: p.paths,
    })
}

/// What parsing one value found.
#[derive(Default)]
struct Parsed {
    /// The bytes its child nodes hold.
    children: usize,
    /// The bytes of its elements when it is an array of byte-sized integers.
    byte_elements: usize,
}

impl Parsed {
    fn compound(children: usize, byte_elements: usize) -> Parsed {
        Parsed {
            children,
            byte_elements,
        }
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    maps: &'a [&'a str],
    paths: BTreeMap<String, PathBytes>,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), FieldsError> {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(json(JsonProblem::Expected(c as char), self.i))
        }
    }

    /// Runs `f` (which parses one value) as the node `path` from `start`: adds its own bytes
    /// and returns its inclusive bytes.
    fn node(
        &mut self,
        path: String,
        start: usize,
        f: impl FnOnce(&mut Self) -> Result<Parsed, FieldsError>,
    ) -> Result<usize, FieldsError> {
        let order = self.paths.len();
        let parsed = f(self)?;
        let children = parsed.children;
        let inclusive = self.i - start;
        let p = self.paths.entry(path).or_insert_with(|| PathBytes {
            order,
            ..PathBytes::default()
        });
        p.own += inclusive - children;
        p.u8_elements += parsed.byte_elements;
        Ok(inclusive)
    }

    /// Parses one value at `path`.
    fn value(&mut self, path: &str) -> Result<Parsed, FieldsError> {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut children = 0;
                let mut first = true;
                loop {
                    let start = self.i;
                    self.ws();
                    if self.b.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Ok(Parsed::compound(children, 0));
                    }
                    if !first {
                        self.expect(b',')?;
                        self.ws();
                    }
                    first = false;
                    let key_at = self.i;
                    self.string()?;
                    // Its text between the quotes, escapes as written.
                    let key = String::from_utf8_lossy(&self.b[key_at + 1..self.i - 1]);
                    self.expect(b':')?;
                    if self.maps.contains(&path) {
                        self.ws();
                        let child = format!("{path}{{}}");
                        if matches!(self.b.get(self.i), Some(b'{' | b'[')) {
                            children += self.node(child.clone(), start, |p| p.value(&child))?;
                        } else {
                            self.value(&child)?;
                        }
                        continue;
                    }
                    let child = format!("{path}.{key}");
                    children += self.node(child.clone(), start, |p| p.value(&child))?;
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut children = 0;
                let mut first = true;
                let child = format!("{path}[]");
                // The bytes of its elements while every one is an integer from -128 to 255.
                let mut bytes = Some(0);
                loop {
                    let start = self.i;
                    self.ws();
                    if self.b.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Ok(Parsed::compound(children, bytes.unwrap_or(0)));
                    }
                    if !first {
                        self.expect(b',')?;
                    }
                    first = false;
                    self.ws();
                    if matches!(self.b.get(self.i), Some(b'{' | b'[')) {
                        bytes = None;
                        children += self.node(child.clone(), start, |p| p.value(&child))?;
                    } else {
                        let at = self.i;
                        self.value(&child)?;
                        let byte = std::str::from_utf8(&self.b[at..self.i])
                            .ok()
                            .and_then(|t| t.parse::<i16>().ok())
                            .is_some_and(|n| (-128..=255).contains(&n));
                        bytes = bytes.filter(|_| byte).map(|b| b + self.i - start);
                    }
                }
            }
            Some(b'"') => self.string().map(|_| Parsed::default()),
            Some(_) => {
                let start = self.i;
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
                {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(json(JsonProblem::NoValue, start));
                }
                Ok(Parsed::default())
            }
            None => Err(json(JsonProblem::EndsEarly, self.i)),
        }
    }

    fn string(&mut self) -> Result<(), FieldsError> {
        let start = self.i;
        if self.b.get(self.i) != Some(&b'"') {
            return Err(json(JsonProblem::ExpectedString, start));
        }
        self.i += 1;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => return Ok(()),
                _ => {}
            }
        }
        Err(json(JsonProblem::UnendedString, start))
    }
}

fn json(problem: JsonProblem, at: usize) -> FieldsError {
    FieldsError::Json { problem, at }
}
