//! The hidden `testkit-findings` study: for each kind of finding that names a fix
//! (docs/guide/findings.md), a trap that holds the cost and its fixed twin, the remedy applied,
//! on the same values and operation, so that one run measures both in lock-step. Configurations
//! are `KIND-trap` and `KIND-twin` (with `.access` for the in-place reads). Compiled only with
//! the `testkit` cargo feature.

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use serprof_api::__private::Config;
use serprof_api::{Codec, CodecError, Operation, Study};

use crate::external;

mod numbers;
mod pairs;
mod repeated;
mod types;
pub mod user;
pub use numbers::{Note, Notes};
use pairs::{access_pair, configs, own, serde_pair, sub};
pub use types::{
    Counts, Customer, Frame, FrameBytes, Fx, FxMap, LongNames, Names, Samples, ShortNames, SipMap,
    Wide, WideExact,
};

/// The study.
pub fn study() -> Study {
    let parts: Vec<Vec<Config>> = vec![
        owned_strings(),
        buffer_regrowth(),
        numbers::numbers(),
        utf8(),
        map_hashing(),
        field_names(),
        allocator(),
        repeated::repeated_work(),
        values_changed(),
        element_by_element(),
    ];
    parts.into_iter().flatten().fold(
        Study::new("testkit-findings", "Each finding's trap and its fixed twin")
            .source("serprof's test suite")
            .hidden(),
        Study::config,
    )
}

// ---- owned strings: decoding allocates a String per field; the twin borrows -------------

/// The same record, borrowed from its payload.
#[derive(Deserialize)]
struct NamesRef<'a> {
    #[serde(borrow)]
    texts: [&'a str; 16],
}

fn names() -> Vec<Names> {
    (0..200)
        .map(|i| Names {
            texts: std::array::from_fn(|k| format!("{k:x}-{i}")),
        })
        .collect()
}

/// What an in-place read of a record digests: each text's length and first byte.
fn names_digest<'a>(texts: impl Iterator<Item = &'a str>) -> u64 {
    bytes_digest(texts.map(str::as_bytes))
}

/// postcard; its in-place read decodes owned (`owned`) or borrowed strings.
struct NamesCodec {
    owned: bool,
}

impl Codec<Names> for NamesCodec {
    fn encode(&mut self, v: &Names, out: &mut Vec<u8>) -> Result<(), CodecError> {
        postcard::to_io(v, &mut *out).map_err(CodecError::encode)?;
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Names, CodecError> {
        postcard::from_bytes(bytes).map_err(CodecError::decode)
    }
    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        if self.owned {
            let v: Names = postcard::from_bytes(bytes).map_err(CodecError::decode)?;
            Ok(names_digest(v.texts.iter().map(String::as_str)))
        } else {
            let v: NamesRef = postcard::from_bytes(bytes).map_err(CodecError::decode)?;
            Ok(names_digest(v.texts.into_iter()))
        }
    }
}

fn owned_strings() -> Vec<Config> {
    access_pair(
        "owned_strings",
        names,
        |v: &Names| names_digest(v.texts.iter().map(String::as_str)),
        |fixed| NamesCodec { owned: !fixed },
    )
}

// ---- buffer regrowth: encoding into a fresh Vec grown push by push; the twin writes into the
// caller's reused buffer --------------------------------------------------------------------

/// A run of readings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The readings.
    pub xs: Vec<u64>,
}

/// Each reading as 8 little-endian bytes, written into a fresh buffer grown as it fills, which
/// then replaces the caller's (`fresh`), or into the caller's buffer, reused and reserved once.
struct SeriesCodec {
    fresh: bool,
}

#[inline(never)]
fn write_series(v: &Series, buf: &mut Vec<u8>) {
    for x in &v.xs {
        buf.extend_from_slice(&black_box(*x).to_le_bytes());
    }
}

impl Codec<Series> for SeriesCodec {
    fn encode(&mut self, v: &Series, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if self.fresh {
            let mut buf = Vec::new();
            write_series(v, &mut buf);
            *out = buf;
        } else {
            out.reserve(v.xs.len() * 8);
            write_series(v, out);
        }
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Series, CodecError> {
        let xs = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        Ok(Series { xs })
    }
}

/// Short runs: their buffers stay under the allocator's mapping threshold, so each growth
/// copies.
fn short_series() -> Vec<Series> {
    (0..400u64)
        .map(|i| Series {
            xs: (0..1_000).map(|k| k * 7919 + i).collect(),
        })
        .collect()
}

fn buffer_regrowth() -> Vec<Config> {
    let s = sub("regrowth")
        .dataset(short_series)
        .engine(own("buffer_regrowth-trap", || SeriesCodec { fresh: true }))
        .engine(own("buffer_regrowth-twin", || SeriesCodec { fresh: false }))
        .operations([Operation::Serialize])
        .into();
    configs(s, Operation::Serialize)
}

// ---- UTF-8: an in-place read that checks every text is UTF-8; the twin keeps bytes ----------

/// Lengths and first bytes of `texts` (the in-place reads' digest).
fn bytes_digest<'a>(texts: impl Iterator<Item = &'a [u8]>) -> u64 {
    texts.fold(0u64, |h, t| {
        h.wrapping_mul(31)
            .wrapping_add(t.len() as u64)
            .wrapping_add(u64::from(t.first().copied().unwrap_or(0)))
    })
}

/// Length-prefixed texts; the in-place read validates them as UTF-8 (`validate`) or not.
struct TextsCodec {
    validate: bool,
}

/// The texts of a payload of `u32` lengths and bytes.
fn texts_of(bytes: &[u8]) -> Result<Vec<&[u8]>, CodecError> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let n = u32::from_le_bytes(*len) as usize;
        if n > tail.len() {
            return Err(CodecError::decode("a text runs past the payload"));
        }
        out.push(&tail[..n]);
        rest = &tail[n..];
    }
    Ok(out)
}

impl Codec<Names> for TextsCodec {
    fn encode(&mut self, v: &Names, out: &mut Vec<u8>) -> Result<(), CodecError> {
        for t in &v.texts {
            out.extend_from_slice(&(t.len() as u32).to_le_bytes());
            out.extend_from_slice(t.as_bytes());
        }
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Names, CodecError> {
        let texts = texts_of(bytes)?;
        let owned: Vec<String> = texts
            .into_iter()
            .map(|t| String::from_utf8(t.to_vec()).map_err(CodecError::decode))
            .collect::<Result<_, _>>()?;
        let texts: [String; 16] = owned
            .try_into()
            .map_err(|_| CodecError::decode("not 16 texts"))?;
        Ok(Names { texts })
    }
    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let texts = texts_of(bytes)?;
        if self.validate {
            for t in &texts {
                std::str::from_utf8(t).map_err(CodecError::decode)?;
            }
        }
        Ok(every_byte_digest(texts.into_iter()))
    }
}

/// What a reader that uses every byte of its texts computes: FNV-1a over all of them. Beside it
/// validation is a part of the read, as in a real reader, not nearly all of it.
fn every_byte_digest<'a>(texts: impl Iterator<Item = &'a [u8]>) -> u64 {
    texts.flatten().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Records of long texts (the in-place read validates them, then digests every byte).
fn long_names() -> Vec<Names> {
    (0..100)
        .map(|i| Names {
            texts: std::array::from_fn(|k| format!("{k}-{i}-{}", "ü".repeat(400))),
        })
        .collect()
}

fn utf8() -> Vec<Config> {
    access_pair(
        "utf8_validation",
        long_names,
        |v: &Names| every_byte_digest(v.texts.iter().map(String::as_bytes)),
        |fixed| TextsCodec { validate: !fixed },
    )
}

// ---- map hashing: std's HashMap (SipHash) decoded by postcard; the twin's hasher is cheap ----

fn entries() -> impl Iterator<Item = (u64, u32)> {
    (0..5_000u32).map(|k| (u64::from(k).wrapping_mul(0x9e37_79b9), k))
}

fn map_hashing() -> Vec<Config> {
    serde_pair(
        "map_hashing",
        external::postcard::engine,
        external::postcard::engine,
        || {
            vec![
                SipMap {
                    m: entries().collect()
                };
                4
            ]
        },
        || {
            vec![
                FxMap {
                    m: entries().collect()
                };
                4
            ]
        },
        Operation::Deserialize,
    )
}

// ---- field names: long names in JSON; the twin renames them short ------------------------

/// A reading's four values.
fn reading(i: u8) -> [u8; 4] {
    [i, i / 3, i / 2, 7]
}

fn field_names() -> Vec<Config> {
    serde_pair(
        "field_names",
        external::serde_json::engine,
        external::serde_json::engine,
        || {
            (0..200)
                .map(|i| {
                    let [a, b, c, d] = reading(i);
                    LongNames {
                        temperature_of_the_sensor_in_kelvin: a,
                        relative_humidity_of_the_air_percent: b,
                        barometric_pressure_reading_in_hpa: c,
                        identifier_of_the_reporting_station: d,
                    }
                })
                .collect()
        },
        || {
            (0..200)
                .map(|i| {
                    let [a, b, c, d] = reading(i);
                    ShortNames {
                        temperature_of_the_sensor_in_kelvin: a,
                        relative_humidity_of_the_air_percent: b,
                        barometric_pressure_reading_in_hpa: c,
                        identifier_of_the_reporting_station: d,
                    }
                })
                .collect()
        },
        Operation::Serialize,
    )
}

// ---- the allocator: a box per reading on encode; the twin writes them straight ------------

/// Series as decimal text, a reading per line, each reading first boxed (`boxed`) or not: the
/// box is a part of the encode, beside writing the digits.
struct BoxingCodec {
    boxed: bool,
}

/// `x`'s decimal digits and a newline, written by hand (no formatting machinery).
fn write_decimal(x: u64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let first = crate::model::decimal::digits_before(&mut digits, 20, x);
    out.extend_from_slice(&digits[first..]);
    out.push(b'\n');
}

impl Codec<Series> for BoxingCodec {
    fn encode(&mut self, v: &Series, out: &mut Vec<u8>) -> Result<(), CodecError> {
        for x in &v.xs {
            let x = if self.boxed {
                *black_box(Box::new(*x))
            } else {
                black_box(*x)
            };
            write_decimal(x, out);
        }
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Series, CodecError> {
        let text = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        let xs = text
            .lines()
            .map(|l| l.parse::<u64>().map_err(CodecError::decode))
            .collect::<Result<_, _>>()?;
        Ok(Series { xs })
    }
}

/// Readings of one digit: writing one costs well under boxing it, so the allocator takes most
/// of the trap's samples, the low end of its interval well above the finding's threshold (30%)
/// on every quick run (readings of two or three digits leave it within a point of it).
fn small_readings() -> Vec<Series> {
    (0..20u64)
        .map(|i| Series {
            xs: (0..20_000).map(|k| (k * 7 + i) % 10).collect(),
        })
        .collect()
}

fn allocator() -> Vec<Config> {
    let s = sub("allocator")
        .dataset(small_readings)
        .engine(own("allocator-trap", || BoxingCodec { boxed: true }))
        .engine(own("allocator-twin", || BoxingCodec { boxed: false }))
        .operations([Operation::Serialize])
        .into();
    configs(s, Operation::Serialize)
}

// ---- values changed: serde_json's default float parser; the twin parses correctly rounded --

fn wide_floats() -> Vec<Vec<f64>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..20)
        .map(|_| {
            (0..500)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let x = f64::from_bits(state);
                    if x.is_finite() {
                        x
                    } else {
                        1.5
                    }
                })
                .collect()
        })
        .collect()
}

fn values_changed() -> Vec<Config> {
    serde_pair(
        "values_changed",
        external::serde_json::engine,
        external::serde_json::engine,
        || wide_floats().into_iter().map(|xs| Wide { xs }).collect(),
        || {
            wide_floats()
                .into_iter()
                .map(|xs| WideExact { xs })
                .collect()
        },
        Operation::RoundTrip,
    )
}

// ---- element by element: a Vec<u8> as a sequence; the twin as serde_bytes -----------------

fn raw(i: u32) -> Vec<u8> {
    (0..4096u32).map(|b| (b * 131 + i) as u8).collect()
}

fn element_by_element() -> Vec<Config> {
    serde_pair(
        "element_by_element",
        external::postcard::engine,
        external::postcard::engine,
        || (0..50).map(|id| Frame { id, raw: raw(id) }).collect(),
        || (0..50).map(|id| FrameBytes { id, raw: raw(id) }).collect(),
        Operation::RoundTrip,
    )
}

/// The configurations' names, trap and twin per kind, for the harness's test.
pub const KINDS: [&str; 10] = [
    "owned_strings",
    "buffer_regrowth",
    "numbers",
    "utf8_validation",
    "map_hashing",
    "field_names",
    "allocator",
    "repeated_work",
    "values_changed",
    "element_by_element",
];
