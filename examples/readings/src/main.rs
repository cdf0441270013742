//! serprof on a crate's own type and codec: which engine for sensor readings?
//!
//! `cargo run --release -p serprof-example-readings -- run --quick` measures every serde engine
//! serprof ships, the ten libraries whose own derives the type below carries (borsh, rkyv with
//! its in-place reads, speedy, wincode, bitcode, Müsli, nanoserde, msgpacker, minicbor,
//! bilrost) and fory, and the hand-written codec below, on the same readings, and the serde
//! engines again on the readings with `serde_bytes` on their byte array; every other
//! serprof command works on this binary too (`list`, `hotspots`, `flame`, `before-after`, ...).

use serde::{Deserialize, Serialize};
use serprof::{Codec, CodecError, Operation, Study};

/// One reading of a sensor, with the derives of every library it is measured with.
#[derive(
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    speedy::Readable,
    speedy::Writable,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    bitcode::Encode,
    bitcode::Decode,
    musli::Encode,
    musli::Decode,
    nanoserde::SerBin,
    nanoserde::DeBin,
    msgpacker::MsgPacker,
    minicbor::Encode,
    minicbor::Decode,
    bilrost::Message,
    fory::ForyStruct,
)]
pub struct Reading {
    #[n(0)]
    pub sensor: String,
    #[n(1)]
    pub at: u64,
    #[n(2)]
    pub values: Vec<f64>,
    #[n(3)]
    #[bilrost(encoding(plainbytes))]
    pub raw: Vec<u8>,
}

/// The same reading with its byte array written as bytes (`serde_bytes`): the serde engines'
/// other way to write a `Vec<u8>`, measured in the `readings-bytes` study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadingBytes {
    pub sensor: String,
    pub at: u64,
    pub values: Vec<f64>,
    #[serde(with = "serde_bytes")]
    pub raw: Vec<u8>,
}

impl From<Reading> for ReadingBytes {
    fn from(r: Reading) -> Self {
        ReadingBytes {
            sensor: r.sensor,
            at: r.at,
            values: r.values,
            raw: r.raw,
        }
    }
}

/// Every field of a reading, for rkyv's in-place reads: the study's digest of a value, and the
/// same digest read from the archive where it lies.
fn digest(sensor: &str, at: u64, values: impl Iterator<Item = f64>, raw: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(sensor.as_bytes());
    eat(&at.to_le_bytes());
    for v in values {
        eat(&v.to_bits().to_le_bytes());
    }
    eat(raw);
    h
}

/// 500 readings of 20 sensors, the same every run.
fn readings() -> Vec<Reading> {
    (0u64..500)
        .map(|i| Reading {
            sensor: format!("sensor-{:02}", i % 20),
            at: 1_700_000_000_000 + i * 250,
            values: (0..16).map(|k| (i * 16 + k) as f64 * 0.125).collect(),
            raw: (0..96)
                .map(|k| (i as u8).wrapping_mul(31).wrapping_add(k))
                .collect(),
        })
        .collect()
}

/// A hand-written binary codec: little-endian numbers, length-prefixed strings and bytes.
#[derive(Default)]
struct Handwritten;

impl Codec<Reading> for Handwritten {
    fn encode(&mut self, v: &Reading, out: &mut Vec<u8>) -> Result<(), CodecError> {
        put_bytes(out, v.sensor.as_bytes());
        out.extend_from_slice(&v.at.to_le_bytes());
        out.extend_from_slice(&(v.values.len() as u32).to_le_bytes());
        for x in &v.values {
            out.extend_from_slice(&x.to_le_bytes());
        }
        put_bytes(out, &v.raw);
        out.extend_from_slice(&checksum(&v.raw).to_le_bytes());
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Reading, CodecError> {
        let mut r = Reader { bytes, at: 0 };
        let sensor = String::from_utf8(r.bytes()?.to_vec()).map_err(CodecError::decode)?;
        let at = u64::from_le_bytes(r.array()?);
        let n = u32::from_le_bytes(r.array()?) as usize;
        if n > r.bytes.len() / 8 {
            return Err(CodecError::decode_at(r.at, "more values than bytes"));
        }
        let values = (0..n)
            .map(|_| r.array().map(f64::from_le_bytes))
            .collect::<Result<_, _>>()?;
        let raw = r.bytes()?.to_vec();
        let sum = u32::from_le_bytes(r.array()?);
        if sum != checksum(&raw) {
            return Err(CodecError::decode_at(r.at, "checksum does not match"));
        }
        if r.at != r.bytes.len() {
            return Err(CodecError::decode_at(r.at, "bytes after the reading"));
        }
        Ok(Reading {
            sensor,
            at,
            values,
            raw,
        })
    }
}

/// The codec's hot spot: a checksum of the raw bytes, written and checked per reading.
#[inline(never)]
pub fn checksum(raw: &[u8]) -> u32 {
    let mut h = 0x811c_9dc5u32;
    for &b in raw {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads a payload from the front.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let end = self.at + N;
        let part = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| CodecError::decode_at(self.at, "the payload ends early"))?;
        self.at = end;
        Ok(part.try_into().expect("N bytes"))
    }

    fn bytes(&mut self) -> Result<&[u8], CodecError> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| CodecError::decode_at(self.at, "a length past the end"))?;
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }
}

fn studies() -> Vec<Study> {
    vec![
        Study::new("readings", "Which engine for our sensor readings?")
            .dataset(readings)
            .operations([Operation::Serialize, Operation::Deserialize])
            .engines(serprof::engines::serde())
            .engine(serprof::engines::borsh())
            .engine(serprof::engines::rkyv_access(|r: &ArchivedReading| {
                let values = r.values.iter().map(|v| v.to_native());
                digest(&r.sensor, r.at.to_native(), values, &r.raw)
            }))
            .engine(serprof::engines::speedy())
            .engine(serprof::engines::wincode())
            .engine(serprof::engines::bitcode())
            .engine(serprof::engines::musli())
            .engine(serprof::engines::nanoserde())
            .engine(serprof::engines::msgpacker())
            .engine(serprof::engines::minicbor())
            .engine(serprof::engines::bilrost())
            .engine(serprof::engines::fory(|f| f.register::<Reading>(1)))
            .digest(|r: &Reading| digest(&r.sensor, r.at, r.values.iter().copied(), &r.raw))
            .codec("handwritten", || Ok(Handwritten))
            .baseline("serde_json")
            .question("checksum", "the checksum")
            .into(),
        Study::new(
            "readings-bytes",
            "The same readings, the byte array written as bytes (serde_bytes)",
        )
        .dataset(|| readings().into_iter().map(ReadingBytes::from).collect())
        .operations([Operation::Serialize, Operation::Deserialize])
        .engines(serprof::engines::serde())
        .baseline("serde_json")
        .into(),
    ]
}

serprof::main!(studies);
