//! The `numbers` pair: notes with a float each, written as JSON; the float through `core::fmt`
//! (the trap) or zmij (the twin), the text around it the same.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serprof_api::__private::Config;
use serprof_api::{Codec, CodecError, Operation};

use super::pairs::{configs, own, sub};

// ---- numbers: notes with a float each, written as JSON; the float through core::fmt (the
// trap) or through zmij (the twin: the remedy the finding names first), the rest the same ------

/// A station's notes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notes {
    /// The notes.
    pub items: Vec<Note>,
}

/// A note and its reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    /// Free text, of about 30 bytes.
    pub text: String,
    /// The reading.
    pub x: f64,
}

fn notes() -> Vec<Notes> {
    (0..50u32)
        .map(|i| Notes {
            items: (0..200u32)
                .map(|k| Note {
                    text: format!("station {i} note {k}: \"calm\", dry. "),
                    x: f64::from(k) * 1.000_123_7 + f64::from(i) / 3.0,
                })
                .collect(),
        })
        .collect()
}

/// JSON text of [`Notes`]: `[{"text":"...","x":1.5},...]`, its floats written with `core::fmt`
/// (`fmt`) or zmij.
struct NotesCodec {
    fmt: bool,
}

impl Codec<Notes> for NotesCodec {
    fn encode(&mut self, v: &Notes, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let mut floats = zmij::Buffer::new();
        let mut text = String::new();
        out.push(b'[');
        for (i, note) in v.items.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"text\":\"");
            for &b in note.text.as_bytes() {
                if b == b'"' || b == b'\\' {
                    out.push(b'\\');
                }
                out.push(b);
            }
            out.extend_from_slice(b"\",\"x\":");
            if self.fmt {
                text.clear();
                write!(text, "{:?}", note.x).map_err(CodecError::encode)?;
                out.extend_from_slice(text.as_bytes());
            } else {
                out.extend_from_slice(floats.format(note.x).as_bytes());
            }
            out.push(b'}');
        }
        out.push(b']');
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Notes, CodecError> {
        let bad = || CodecError::decode("not the notes' JSON");
        let mut rest = bytes.strip_prefix(b"[").ok_or_else(bad)?;
        let mut items = Vec::new();
        while let Some(after) = rest.strip_prefix(b"{\"text\":\"") {
            let mut text = Vec::new();
            let mut at = 0;
            loop {
                match after.get(at).ok_or_else(bad)? {
                    b'\\' => {
                        text.push(*after.get(at + 1).ok_or_else(bad)?);
                        at += 2;
                    }
                    b'"' => break,
                    &b => {
                        text.push(b);
                        at += 1;
                    }
                }
            }
            let after = after[at..].strip_prefix(b"\",\"x\":").ok_or_else(bad)?;
            let end = after.iter().position(|&b| b == b'}').ok_or_else(bad)?;
            let x = std::str::from_utf8(&after[..end])
                .map_err(CodecError::decode)?
                .parse::<f64>()
                .map_err(CodecError::decode)?;
            let text = String::from_utf8(text).map_err(CodecError::decode)?;
            items.push(Note { text, x });
            rest = &after[end + 1..];
            rest = rest.strip_prefix(b",").unwrap_or(rest);
        }
        match rest {
            b"]" => Ok(Notes { items }),
            _ => Err(bad()),
        }
    }
}

pub(super) fn numbers() -> Vec<Config> {
    let s = sub("numbers")
        .dataset(notes)
        .engine(own("numbers-trap", || NotesCodec { fmt: true }).json())
        .engine(own("numbers-twin", || NotesCodec { fmt: false }).json())
        .operations([Operation::Serialize])
        .into();
    configs(s, Operation::Serialize)
}
