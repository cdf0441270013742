//! The `repeated_work` pair: a record's field names worked out per value (the trap) or once in a
//! `LazyLock` (the twin), beside texts escaped byte by byte.

use std::sync::LazyLock;

use serprof_api::__private::Config;
use serprof_api::{Codec, CodecError, Operation};

use super::pairs::{configs, own, sub};
use super::types::Names;

// ---- repeated work: the names of a record's fields worked out per value; the twin once ----

/// The field names of [`Names`] as text, the way a reflective serializer works them out.
#[inline(never)]
fn introspect_fields() -> Vec<String> {
    let mut names: Vec<String> = (0..16)
        .map(|k| format!("Text{k:02}").to_lowercase())
        .collect();
    names.sort();
    names
}

/// The field names worked out once.
static FIELDS: LazyLock<Vec<String>> = LazyLock::new(introspect_fields);

/// `name=text;` per field, the names worked out per value (`per_value`) or once; a text's `;`,
/// `=` and `\\` are escaped with a `\\`, byte by byte, so writing the texts is a part of the
/// encode beside the names.
struct NamedCodec {
    per_value: bool,
}

/// Whether `b` is escaped in a text.
fn is_special(b: u8) -> bool {
    matches!(b, b';' | b'=' | b'\\')
}

/// The fields of a `name=text;` payload: each field's text, unescaped.
fn named_texts(bytes: &[u8]) -> Result<Vec<String>, CodecError> {
    let mut texts = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let eq = rest
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| CodecError::decode("a field without '='"))?;
        rest = &rest[eq + 1..];
        let mut text = Vec::new();
        loop {
            match rest.split_first() {
                Some((b';', tail)) => {
                    rest = tail;
                    break;
                }
                Some((b'\\', tail)) => {
                    let (&b, tail) = tail
                        .split_first()
                        .ok_or_else(|| CodecError::decode("a '\\' at the end"))?;
                    text.push(b);
                    rest = tail;
                }
                Some((&b, tail)) => {
                    text.push(b);
                    rest = tail;
                }
                None => return Err(CodecError::decode("a field without ';'")),
            }
        }
        texts.push(String::from_utf8(text).map_err(CodecError::decode)?);
    }
    Ok(texts)
}

impl Codec<Names> for NamedCodec {
    fn encode(&mut self, v: &Names, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let fresh;
        let fields: &[String] = if self.per_value {
            fresh = introspect_fields();
            &fresh
        } else {
            &FIELDS
        };
        for (name, text) in fields.iter().zip(&v.texts) {
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            for &b in text.as_bytes() {
                if is_special(b) {
                    out.push(b'\\');
                }
                out.push(b);
            }
            out.push(b';');
        }
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Names, CodecError> {
        let texts: [String; 16] = named_texts(bytes)?
            .try_into()
            .map_err(|_| CodecError::decode("not 16 fields"))?;
        Ok(Names { texts })
    }
}

/// Records of texts of about 150 bytes, a few of them to escape.
fn escaped_names() -> Vec<Names> {
    (0..200)
        .map(|i| Names {
            texts: std::array::from_fn(|k| format!("{k:x}-{i}; {}", "a=b c\\d ".repeat(15))),
        })
        .collect()
}

pub(super) fn repeated_work() -> Vec<Config> {
    let s = sub("repeated")
        .dataset(escaped_names)
        .engine(own("repeated_work-trap", || NamedCodec { per_value: true }))
        .engine(own("repeated_work-twin", || NamedCodec {
            per_value: false,
        }))
        .operations([Operation::Serialize])
        .into();
    configs(s, Operation::Serialize)
}
