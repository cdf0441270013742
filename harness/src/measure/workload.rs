//! The measured workload of one configuration: its codec on its dataset, verification, and the
//! measured loops every recording (timing, CPU samples, allocations) runs.
//!
//! Each recording runs the same measured loop ([`Workload::run`]) over the same dataset; the
//! loop holds nothing but the engine's work (clear the buffer, encode, decode, drop), so a
//! profiler or a counting allocator sees the codec and not the harness.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serprof_engines::codec::{Codec, CodecError};
use serprof_engines::dataset;
use serprof_engines::model::{Order, Sample};
use serprof_engines::studies::corpus::DocumentCodec;
use serprof_engines::studies::{AnyCodec, Config, DatasetKind, Operation};
use serprof_engines::verify::{DocumentStep, Finding, VerifyError};

/// What verification found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// Mean payload bytes per value over the whole dataset.
    pub payload_bytes: f64,
    /// Whether shared references survived (Orders only).
    pub shares_references: Option<bool>,
    /// What verification found that does not fail it (a document's changed numbers, what its
    /// engine does with duplicate keys).
    pub findings: Vec<Finding>,
}

/// A value a study measures: how to describe a difference after a round trip.
pub trait Value: Sized + 'static {
    /// The first difference between the original and the decoded value, if any.
    fn difference(&self, decoded: &Self) -> Option<String>;
    /// Whether shared references survived a round trip (`None` when the type has none).
    fn shares_references(&self) -> Option<bool>;
}

impl Value for Order {
    fn difference(&self, decoded: &Self) -> Option<String> {
        self.first_difference(decoded)
    }

    fn shares_references(&self) -> Option<bool> {
        Some(Order::shares_references(self))
    }
}

impl Value for Vec<Sample> {
    fn difference(&self, decoded: &Self) -> Option<String> {
        if self.len() != decoded.len() {
            return Some(format!(
                "expected {} samples, got {}",
                self.len(),
                decoded.len()
            ));
        }
        self.iter()
            .zip(decoded)
            .position(|(a, b)| a != b)
            .map(|i| format!("sample {i}: expected {:?}, got {:?}", self[i], decoded[i]))
    }

    fn shares_references(&self) -> Option<bool> {
        None
    }
}

/// A codec, its dataset, the operation, and the one reused output buffer.
pub struct Workload<T: 'static> {
    codec: Box<dyn Codec<T>>,
    data: &'static [T],
    operation: Operation,
    buf: Vec<u8>,
    next: usize,
}

/// The type-erased face of a [`Workload`], so a worker handles both datasets alike.
pub trait Measured {
    /// Round-trips every value of the dataset once and checks it comes back equal.
    fn verify(&mut self) -> Result<Verified, VerifyError>;
    /// Runs `n` operations, cycling through the dataset.
    fn run(&mut self, n: u64) -> Result<(), CodecError>;
    /// Values in the dataset (a whole pass is this many operations).
    fn dataset_len(&self) -> usize;
}

impl<T: Value> Workload<T> {
    pub fn new(codec: Box<dyn Codec<T>>, data: &'static [T], operation: Operation) -> Workload<T> {
        Workload {
            codec,
            data,
            operation,
            buf: Vec::new(),
            next: 0,
        }
    }
}

/// Runs `n` operations cycling through `data` from `*next`, each one `op(codec, value, buf)` on
/// the cleared buffer. Generic over `op`, so each loop below is compiled on its own and no
/// dispatch happens per operation.
#[inline(always)]
fn cycle<T, F>(
    codec: &mut dyn Codec<T>,
    data: &[T],
    buf: &mut Vec<u8>,
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &T, &mut Vec<u8>) -> Result<(), CodecError>,
{
    let mut i = *next;
    for _ in 0..n {
        let value = &data[i];
        i += 1;
        if i == data.len() {
            i = 0;
        }
        buf.clear();
        op(&mut *codec, black_box(value), &mut *buf)?;
    }
    *next = i;
    Ok(())
}

/// The round-trip loop: encode into the reused buffer, decode the buffer itself (in-place
/// parsers parse it in place; the next encode clears it), drop the value.
#[inline(never)]
fn roundtrip_loop<T>(
    codec: &mut dyn Codec<T>,
    data: &[T],
    buf: &mut Vec<u8>,
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    cycle(codec, data, buf, next, n, |codec, value, buf| {
        codec.encode(value, buf)?;
        let back = codec.decode(black_box(buf.as_mut_slice()))?;
        drop(black_box(back));
        Ok(())
    })
}

/// The serialize-only loop.
#[inline(never)]
fn serialize_loop<T>(
    codec: &mut dyn Codec<T>,
    data: &[T],
    buf: &mut Vec<u8>,
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    cycle(codec, data, buf, next, n, |codec, value, buf| {
        codec.encode(value, buf)?;
        black_box(buf.as_slice());
        Ok(())
    })
}

impl<T: Value> Measured for Workload<T> {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let mut total = 0usize;
        let mut shares = None;
        for (index, value) in self.data.iter().enumerate() {
            self.buf.clear();
            self.codec
                .encode(value, &mut self.buf)
                .map_err(|error| VerifyError::Encode { index, error })?;
            total += self.buf.len();
            let back = self
                .codec
                .decode(self.buf.as_mut_slice())
                .map_err(|error| VerifyError::Decode { index, error })?;
            if let Some(difference) = value.difference(&back) {
                return Err(VerifyError::Differs { index, difference });
            }
            if let Some(s) = back.shares_references() {
                shares = Some(shares.unwrap_or(true) && s);
            }
        }
        Ok(Verified {
            payload_bytes: total as f64 / self.data.len() as f64,
            shares_references: shares,
            findings: Vec::new(),
        })
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        // Chosen once per call, outside the loop.
        let body = match self.operation {
            Operation::RoundTrip => roundtrip_loop::<T>,
            Operation::Serialize | Operation::Decode | Operation::Parse => serialize_loop::<T>,
        };
        body(
            self.codec.as_mut(),
            self.data,
            &mut self.buf,
            &mut self.next,
            n,
        )
    }

    fn dataset_len(&self) -> usize {
        self.data.len()
    }
}

/// One document's engine, the operation, the payload it parses and the one reused buffer.
pub struct DocumentWorkload {
    codec: Box<dyn DocumentCodec>,
    operation: Operation,
    payload: Vec<u8>,
    buf: Vec<u8>,
}

/// The parse loop: copy the payload into the reused buffer (in-place parsers rewrite it), parse
/// it, drop the value.
#[inline(never)]
fn parse_loop(
    codec: &mut dyn DocumentCodec,
    payload: &[u8],
    buf: &mut Vec<u8>,
    n: u64,
) -> Result<(), CodecError> {
    document_cycle(codec, buf, n, |codec, buf| {
        buf.extend_from_slice(payload);
        codec.parse(black_box(buf.as_mut_slice()))
    })
}

/// Runs `op(codec, buf)` `n` times on the cleared buffer (see [`cycle`]).
#[inline(always)]
fn document_cycle<F>(
    codec: &mut dyn DocumentCodec,
    buf: &mut Vec<u8>,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn DocumentCodec, &mut Vec<u8>) -> Result<(), CodecError>,
{
    for _ in 0..n {
        buf.clear();
        op(&mut *codec, &mut *buf)?;
    }
    Ok(())
}

/// The document serialize loop: write the held value into the cleared buffer.
#[inline(never)]
fn document_serialize_loop(
    codec: &mut dyn DocumentCodec,
    _payload: &[u8],
    buf: &mut Vec<u8>,
    n: u64,
) -> Result<(), CodecError> {
    document_cycle(codec, buf, n, |codec, buf| {
        codec.serialize(buf)?;
        black_box(buf.as_slice());
        Ok(())
    })
}

/// The document round-trip loop: write the held value, parse what was written (in place).
#[inline(never)]
fn document_roundtrip_loop(
    codec: &mut dyn DocumentCodec,
    _payload: &[u8],
    buf: &mut Vec<u8>,
    n: u64,
) -> Result<(), CodecError> {
    document_cycle(codec, buf, n, |codec, buf| {
        codec.serialize(buf)?;
        codec.parse(black_box(buf.as_mut_slice()))
    })
}

impl Measured for DocumentWorkload {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let findings = self.codec.verify()?;
        let mut out = Vec::new();
        self.codec
            .serialize(&mut out)
            .map_err(|error| VerifyError::DocumentStep {
                step: DocumentStep::Serialize,
                error,
            })?;
        // A parse reads its payload (the document as it is, or its transcoding); a serialize
        // or round trip writes what the engine writes.
        let bytes = match self.operation {
            Operation::Parse | Operation::Decode => self.payload.len(),
            Operation::Serialize | Operation::RoundTrip => out.len(),
        };
        Ok(Verified {
            payload_bytes: bytes as f64,
            shares_references: None,
            findings,
        })
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        let body = match self.operation {
            Operation::Parse | Operation::Decode => parse_loop,
            Operation::Serialize => document_serialize_loop,
            Operation::RoundTrip => document_roundtrip_loop,
        };
        body(self.codec.as_mut(), &self.payload, &mut self.buf, n)
    }

    fn dataset_len(&self) -> usize {
        1
    }
}

/// The measured loop function of a configuration, as valgrind names it (legacy demangling: no
/// generic arguments, so every instantiation is one function).
pub fn loop_function(dataset: DatasetKind, operation: Operation) -> &'static str {
    match (dataset, operation) {
        (DatasetKind::Document, Operation::Parse | Operation::Decode) => {
            "serprof::measure::workload::parse_loop"
        }
        (DatasetKind::Document, Operation::Serialize) => {
            "serprof::measure::workload::document_serialize_loop"
        }
        (DatasetKind::Document, Operation::RoundTrip) => {
            "serprof::measure::workload::document_roundtrip_loop"
        }
        (_, Operation::RoundTrip) => "serprof::measure::workload::roundtrip_loop",
        (_, Operation::Serialize | Operation::Decode | Operation::Parse) => {
            "serprof::measure::workload::serialize_loop"
        }
    }
}

/// Builds the workload of `config`: its codec on its dataset.
pub fn workload(config: &Config) -> Result<Box<dyn Measured>, CodecError> {
    let op = config.info.operation;
    Ok(match (config.codec()?, config.info.dataset) {
        (AnyCodec::Orders(c), DatasetKind::Orders) => {
            Box::new(Workload::new(c, dataset::orders(), op))
        }
        (AnyCodec::Samples(c), DatasetKind::Samples) => {
            Box::new(Workload::new(c, dataset::samples(), op))
        }
        (AnyCodec::Document(codec), DatasetKind::Document) => {
            let payload = codec.payload().to_vec();
            Box::new(DocumentWorkload {
                codec,
                operation: op,
                payload,
                buf: Vec::new(),
            })
        }
        _ => return Err(CodecError::setup("codec and dataset do not match")),
    })
}

/// Runs operations until `min` has passed, doubling the count each time; returns the
/// operations run and the time they took (a warm-up that also calibrates batch sizes).
pub fn warm_up(w: &mut dyn Measured, min: Duration) -> Result<(u64, Duration), CodecError> {
    let _span = tracing::info_span!("warm_up").entered();
    let start = Instant::now();
    let mut ops = 0u64;
    let mut n = 1u64;
    while start.elapsed() < min {
        w.run(n)?;
        ops += n;
        n = (n * 2).min(1 << 20);
    }
    Ok((ops.max(1), start.elapsed()))
}

/// Operations per batch so that a batch lasts about `batch` given `ns_per_op`.
pub fn ops_per_batch(ns_per_op: f64, batch: Duration) -> u64 {
    ((batch.as_nanos() as f64 / ns_per_op.max(1.0)).round() as u64).max(1)
}
