//! The measured workload of one configuration: its codec on its dataset, its verification, and
//! the measured loops every recording (timing, CPU samples, allocations, instructions) runs.
//!
//! Every recording runs the same measured loop ([`Workload::run`]) over the same dataset; a loop
//! holds nothing but the engine's work (clear the one reused output buffer, encode, decode,
//! drop), so a profiler or a counting allocator sees the codec and not the harness. The loops
//! are functions of their own, never inlined, so that callgrind can count exactly one call of
//! one of them ([`Workload::loop_function`] names it).
//!
//! [`Workload`] is the type-erased face the harness drives; [`Values`] is the workload of a
//! [`Codec<T>`] on a dataset of `T`s, which the study builder makes. A workload of another shape
//! (the corpus study's documents) implements the trait itself.

use std::fmt::{self, Debug};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::codec::{Codec, CodecError};
use crate::verify::{Finding, VerifyError};

/// What one measured operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// Encode one value, then decode the payload back.
    RoundTrip,
    /// Encode one value (verification still decodes it back, untimed).
    Serialize,
    /// Decode one value's payload, encoded before anything is timed.
    Deserialize,
    /// Decode stored payloads (the damaged inputs of a [`StudyKind::Corrupt`] study).
    Decode,
    /// Parse a stored payload (a document's JSON text, or its transcoding) into a value.
    Parse,
    /// Read every field of a stored payload where it lies, unvalidated (zero-copy engines).
    Access,
    /// Validate a stored payload, then read every field where it lies (zero-copy engines).
    #[serde(rename = "validated-access")]
    ValidatedAccess,
}

impl Operation {
    /// Its name in files and configuration names: `roundtrip`, `serialize`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::RoundTrip => "roundtrip",
            Operation::Serialize => "serialize",
            Operation::Deserialize => "deserialize",
            Operation::Decode => "decode",
            Operation::Parse => "parse",
            Operation::Access => "access",
            Operation::ValidatedAccess => "validated-access",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What verification found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// Mean payload bytes per value over the whole dataset.
    pub payload_bytes: f64,
    /// Whether shared references survived every round trip (`None`: the study does not ask).
    pub shares_references: Option<bool>,
    /// What verification found that does not fail it (numbers an engine changes, what it does
    /// with duplicate keys).
    pub findings: Vec<Finding>,
}

/// What decoding a damaged payload gave (the corrupt study).
#[derive(Debug, Clone, PartialEq)]
pub enum Damaged {
    /// The engine refused it with an error.
    Refused(CodecError),
    /// It decoded to the original value.
    Unchanged,
    /// It decoded to another value; how it differs.
    Altered(String),
}

/// What every recording of a configuration drives.
pub trait Workload: Send {
    /// Checks the engine before anything is timed: every value round-trips (or, for a study of
    /// documents, parses as the reference parser reads it).
    fn verify(&mut self) -> Result<Verified, VerifyError>;
    /// Runs `n` operations, cycling through the dataset.
    fn run(&mut self, n: u64) -> Result<(), CodecError>;
    /// Operations in one pass over the dataset.
    fn dataset_len(&self) -> usize;
    /// The measured loop's function as valgrind names it (legacy demangling: no generic
    /// arguments, so every instantiation is one function).
    fn loop_function(&self) -> &'static str;
    /// Whether the timed loop copies its input before each parse (only for engines that parse
    /// in place, so that each parse sees an intact payload): the figure includes that copy.
    fn copies_input(&self) -> bool {
        false
    }
    /// Value `index` as the engine encodes it (`serprof encode`).
    fn encode_value(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// A payload decoded, as its value's `{:#?}` (`serprof decode`).
    fn decode_to_text(&mut self, bytes: &mut [u8]) -> Result<String, CodecError>;
    /// Every value's payload, each checked to decode back equal (the corrupt study's valid
    /// inputs).
    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError>;
    /// Decodes a damaged copy of value `index`'s payload and compares it with the value.
    fn decode_damaged(&mut self, bytes: &mut [u8], index: usize) -> Damaged;
}

/// A value a study measures: what verification and the commands need of it.
pub trait Value: Debug + PartialEq + Send + Sync + 'static {}
impl<T: Debug + PartialEq + Send + Sync + 'static> Value for T {}

/// A check of a decoded value against its original: what is wrong or different, if anything.
pub type PairCheck<T> = Arc<dyn Fn(&T, &T) -> Option<String> + Send + Sync>;

/// A property of a decoded value.
pub type Property<T> = Arc<dyn Fn(&T) -> bool + Send + Sync>;

/// How a study checks a round trip beyond equality; all optional.
pub struct Checks<T> {
    /// Describes how two unequal values differ (default: the first differing line of their
    /// `{:#?}`).
    pub describe: Option<PairCheck<T>>,
    /// A further check of a decoded value against its original: what is wrong, if anything.
    pub verify_with: Option<PairCheck<T>>,
    /// Whether a decoded value kept its shared references (recorded, never a failure).
    pub shares_references: Option<Property<T>>,
    /// The digest of a value that an engine's in-place access must return for its payload
    /// (the access operations' check).
    pub digest: Option<Digester<T>>,
}

/// A value's digest (see [`crate::model::Digest`]).
pub type Digester<T> = Arc<dyn Fn(&T) -> u64 + Send + Sync>;

impl<T> Default for Checks<T> {
    fn default() -> Self {
        Checks {
            describe: None,
            verify_with: None,
            shares_references: None,
            digest: None,
        }
    }
}

impl<T> Clone for Checks<T> {
    fn clone(&self) -> Self {
        Checks {
            describe: self.describe.clone(),
            verify_with: self.verify_with.clone(),
            shares_references: self.shares_references.clone(),
            digest: self.digest.clone(),
        }
    }
}

/// A dataset's values: built by the process that measures them, or a static dataset of
/// serprof's own (measured where it was generated, never copied).
pub enum Data<T: 'static> {
    /// Built for this process.
    Shared(Arc<[T]>),
    /// A static dataset.
    Static(&'static [T]),
}

impl<T> Clone for Data<T> {
    fn clone(&self) -> Self {
        match self {
            Data::Shared(a) => Data::Shared(Arc::clone(a)),
            Data::Static(s) => Data::Static(s),
        }
    }
}

impl<T> std::ops::Deref for Data<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Data::Shared(a) => a,
            Data::Static(s) => s,
        }
    }
}

/// The workload of a codec on a dataset of `T`s: one value per operation, cycling.
pub struct Values<T: 'static> {
    codec: Box<dyn Codec<T>>,
    data: Data<T>,
    operation: Operation,
    checks: Checks<T>,
    in_place: bool,
    buf: Vec<u8>,
    next: usize,
    /// The deserialize loop's inputs: every value's payload, encoded before any timing.
    payloads: Vec<Vec<u8>>,
}

impl<T: Value> Values<T> {
    /// `codec` on `data`, measuring `operation`; `in_place`: the engine rewrites what it parses.
    pub fn new(
        codec: Box<dyn Codec<T>>,
        data: Data<T>,
        operation: Operation,
        checks: Checks<T>,
        in_place: bool,
    ) -> Values<T> {
        Values {
            codec,
            data,
            operation,
            checks,
            in_place,
            buf: Vec::new(),
            next: 0,
            payloads: Vec::new(),
        }
    }

    /// How `a` and `b` differ: the study's own account, else their `{:#?}`.
    fn differs(&self, index: usize, a: &T, b: &T) -> Difference {
        let account = self.checks.describe.as_ref().and_then(|f| f(a, b));
        match (account, debug_difference(a, b)) {
            (_, Some(d)) if d.floats_only => Difference::Floats(d),
            (Some(text), _) => Difference::Other(text),
            (None, Some(d)) => Difference::Other(d.to_string()),
            (None, None) => Difference::Other(format!(
                "value {index} compares unequal where its {{:#?}} shows no difference"
            )),
        }
    }

    /// Encodes value `index` into `self.buf` and decodes it back.
    fn round_trip(&mut self, index: usize) -> Result<T, VerifyError> {
        self.buf.clear();
        self.codec
            .encode(&self.data[index], &mut self.buf)
            .map_err(|error| VerifyError::Encode { index, error })?;
        self.codec
            .decode(self.buf.as_mut_slice())
            .map_err(|error| VerifyError::Decode { index, error })
    }

    /// For the access loops: reading value `index`'s payload (in `buf`, just encoded) in place
    /// must give the digest of the value.
    fn check_access(&mut self, index: usize) -> Result<(), VerifyError> {
        let Some(digest) = &self.checks.digest else {
            return Err(VerifyError::Check {
                index,
                message: "the study gives no digest to check an access against \
                          (`StudyOf::digest`)"
                    .into(),
            });
        };
        let expected = digest(&self.data[index]);
        let read = match self.operation {
            // SAFETY: `buf` holds the payload this codec's `encode` wrote for value `index`.
            Operation::Access => unsafe { self.codec.access_unchecked(&self.buf) },
            _ => self.codec.access(&self.buf),
        }
        .map_err(|error| VerifyError::Decode { index, error })?;
        if read != expected {
            return Err(VerifyError::Check {
                index,
                message: format!(
                    "reading the payload in place gave digest {read:#018x}, the value's is \
                     {expected:#018x}: the access reads other fields than the digest does"
                ),
            });
        }
        Ok(())
    }

    /// For the deserialize loop, which decodes stored payloads where they are: the engine must
    /// leave its input as it was (an engine that parses in place says so, and its loop copies).
    fn check_reads_only(&mut self, index: usize) -> Result<(), VerifyError> {
        let mut input = self.buf.clone();
        self.codec
            .decode(&mut input)
            .map_err(|error| VerifyError::Decode { index, error })?;
        if input != self.buf {
            return Err(VerifyError::Check {
                index,
                message: "the engine writes into the payload it decodes: its codec must say \
                          so (`Codec::decodes_in_place`)"
                    .into(),
            });
        }
        Ok(())
    }

    /// Encodes every value once, for the deserialize loop.
    fn encode_all(&mut self) -> Result<(), CodecError> {
        if self.payloads.len() == self.data.len() {
            return Ok(());
        }
        let mut payloads = Vec::with_capacity(self.data.len());
        for value in self.data.iter() {
            let mut out = Vec::new();
            self.codec.encode(value, &mut out)?;
            payloads.push(out);
        }
        self.payloads = payloads;
        Ok(())
    }
}

/// How a decoded value differs from its original.
enum Difference {
    /// Only in floating-point numbers: a finding.
    Floats(DebugDiff),
    /// Otherwise: a failure.
    Other(String),
}

impl<T: Value> Workload for Values<T> {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let mut total = 0usize;
        let mut shares = None;
        let mut floats: Option<(usize, DebugDiff)> = None;
        let mut float_values = 0;
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            total += self.buf.len();
            if self.operation == Operation::Deserialize && !self.in_place {
                self.check_reads_only(index)?;
            }
            if matches!(
                self.operation,
                Operation::Access | Operation::ValidatedAccess
            ) {
                self.check_access(index)?;
            }
            let original = &self.data[index];
            if *original != back {
                match self.differs(index, original, &back) {
                    Difference::Floats(d) => {
                        float_values += 1;
                        floats.get_or_insert((index, d));
                    }
                    Difference::Other(difference) => {
                        return Err(VerifyError::Differs { index, difference })
                    }
                }
            }
            if let Some(message) = self
                .checks
                .verify_with
                .as_ref()
                .and_then(|f| f(original, &back))
            {
                return Err(VerifyError::Check { index, message });
            }
            if let Some(f) = &self.checks.shares_references {
                shares = Some(shares.unwrap_or(true) && f(&back));
            }
        }
        let findings = floats
            .map(|(index, d)| Finding::FloatsChanged {
                values: float_values,
                index,
                original: d.original,
                decoded: d.decoded,
            })
            .into_iter()
            .collect();
        Ok(Verified {
            payload_bytes: total as f64 / self.data.len().max(1) as f64,
            shares_references: shares,
            findings,
        })
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        // Chosen once per call, outside the loop.
        match self.operation {
            op @ (Operation::Access | Operation::ValidatedAccess) => {
                self.encode_all()?;
                access_loop::<T>(
                    self.codec.as_mut(),
                    &self.payloads,
                    &mut self.next,
                    n,
                    op == Operation::ValidatedAccess,
                )
            }
            Operation::Deserialize => {
                self.encode_all()?;
                deserialize_loop::<T>(
                    self.codec.as_mut(),
                    &mut self.payloads,
                    &mut self.buf,
                    &mut self.next,
                    n,
                    self.in_place,
                )
            }
            op => {
                let body = match op {
                    Operation::RoundTrip => roundtrip_loop::<T>,
                    _ => serialize_loop::<T>,
                };
                body(
                    self.codec.as_mut(),
                    &self.data,
                    &mut self.buf,
                    &mut self.next,
                    n,
                )
            }
        }
    }

    fn dataset_len(&self) -> usize {
        self.data.len()
    }

    fn loop_function(&self) -> &'static str {
        values_loop(self.operation)
    }

    fn copies_input(&self) -> bool {
        self.operation == Operation::Deserialize && self.in_place
    }

    fn encode_value(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let value = self.data.get(index).ok_or_else(|| {
            CodecError::setup(format_args!(
                "there is no value {index}: the dataset has {} (0 to {})",
                self.data.len(),
                self.data.len().saturating_sub(1)
            ))
        })?;
        self.codec.encode(value, out)
    }

    fn decode_to_text(&mut self, bytes: &mut [u8]) -> Result<String, CodecError> {
        self.codec.decode(bytes).map(|v| format!("{v:#?}"))
    }

    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError> {
        let mut payloads = Vec::with_capacity(self.data.len());
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            if back != self.data[index] {
                let difference = match self.differs(index, &self.data[index], &back) {
                    Difference::Floats(d) => d.to_string(),
                    Difference::Other(text) => text,
                };
                return Err(VerifyError::Differs { index, difference });
            }
            payloads.push(self.buf.clone());
        }
        Ok(payloads)
    }

    fn decode_damaged(&mut self, bytes: &mut [u8], index: usize) -> Damaged {
        match self.codec.decode(bytes) {
            Err(e) => Damaged::Refused(e),
            Ok(value) if value == self.data[index] => Damaged::Unchanged,
            Ok(value) => match self.differs(index, &self.data[index], &value) {
                Difference::Floats(d) => Damaged::Altered(d.to_string()),
                Difference::Other(text) => Damaged::Altered(text),
            },
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

/// The access loop: read each stored payload in place (a zero-copy engine's access), keep the
/// digest. `validated` is chosen once, outside the loop.
#[inline(never)]
fn access_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &[Vec<u8>],
    next: &mut usize,
    n: u64,
    validated: bool,
) -> Result<(), CodecError> {
    let mut i = *next;
    let len = payloads.len();
    for _ in 0..n {
        let payload = black_box(payloads[i].as_slice());
        i += 1;
        if i == len {
            i = 0;
        }
        let digest = if validated {
            codec.access(payload)?
        } else {
            // SAFETY: every stored payload is one this codec's `encode` wrote (`encode_all`),
            // unchanged since.
            unsafe { codec.access_unchecked(payload)? }
        };
        black_box(digest);
    }
    *next = i;
    Ok(())
}

/// The deserialize-only loop: decode each stored payload, drop the value. An engine that only
/// reads its input (verification checks that it leaves it as it was) decodes the stored
/// payload where it is; one that parses in place (`copy`) decodes a copy in the reused buffer,
/// and its figure includes that copy. The choice is made once, outside the loop.
#[inline(never)]
fn deserialize_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &mut [Vec<u8>],
    buf: &mut Vec<u8>,
    next: &mut usize,
    n: u64,
    copy: bool,
) -> Result<(), CodecError> {
    let mut i = *next;
    let len = payloads.len();
    if copy {
        for _ in 0..n {
            buf.clear();
            buf.extend_from_slice(&payloads[i]);
            i += 1;
            if i == len {
                i = 0;
            }
            let back = codec.decode(black_box(buf.as_mut_slice()))?;
            drop(black_box(back));
        }
    } else {
        for _ in 0..n {
            let input = payloads[i].as_mut_slice();
            i += 1;
            if i == len {
                i = 0;
            }
            let back = codec.decode(black_box(input))?;
            drop(black_box(back));
        }
    }
    *next = i;
    Ok(())
}

/// Runs operations until `min` has passed, doubling the count each time; returns the
/// operations run and the time they took (a warm-up that also calibrates batch sizes).
pub fn warm_up(w: &mut dyn Workload, min: Duration) -> Result<(u64, Duration), CodecError> {
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

/// The first line where two values' `{:#?}` differ.
#[derive(Debug, Clone, PartialEq)]
pub struct DebugDiff {
    /// 1-based line of the `{:#?}` text.
    pub line: usize,
    /// The line as it was.
    pub original: String,
    /// The line after the round trip.
    pub decoded: String,
    /// Whether every differing line differs only in floating-point numbers, each within a
    /// few units in the last place.
    pub floats_only: bool,
}

impl fmt::Display for DebugDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} of its {{:#?}}: expected `{}`, got `{}`",
            self.line,
            self.original.trim(),
            self.decoded.trim()
        )
    }
}

/// How two values' `{:#?}` differ, or `None` when the texts are equal.
pub fn debug_difference<T: Debug>(a: &T, b: &T) -> Option<DebugDiff> {
    let (ta, tb) = (format!("{a:#?}"), format!("{b:#?}"));
    if ta == tb {
        return None;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (ta.lines().collect(), tb.lines().collect());
    let first = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i))?;
    let floats_only = la.len() == lb.len()
        && la
            .iter()
            .zip(&lb)
            .all(|(x, y)| x == y || floats_only_differ(x, y));
    Some(DebugDiff {
        line: first + 1,
        original: la.get(first).copied().unwrap_or("(nothing)").to_string(),
        decoded: lb.get(first).copied().unwrap_or("(nothing)").to_string(),
        floats_only,
    })
}

/// Units in the last place two floats may differ by and still count as a float's round trip
/// (serde_json without `float_roundtrip` is off by one).
const FLOAT_ULPS: u64 = 4;

/// Whether two lines are the same but for float literals that are a few ulps apart.
fn floats_only_differ(a: &str, b: &str) -> bool {
    let (ta, tb) = (tokens(a), tokens(b));
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || match (float_of(x), float_of(y)) {
                    (Some(p), Some(q)) => ulps_apart(p, q) <= FLOAT_ULPS,
                    _ => false,
                }
        })
}

/// A line cut into runs of number characters and runs of others.
fn tokens(line: &str) -> Vec<&str> {
    let numberish = |c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E');
    let mut out = Vec::new();
    let mut start = 0;
    let mut kind = None;
    for (i, c) in line.char_indices() {
        let k = numberish(c);
        if kind.is_some_and(|prev| prev != k) {
            out.push(&line[start..i]);
            start = i;
        }
        kind = Some(k);
    }
    out.push(&line[start..]);
    out
}

/// The token as a float, when it is a float literal (it has a fraction or an exponent).
fn float_of(token: &str) -> Option<f64> {
    (token.contains('.') || token.contains('e') || token.contains('E'))
        .then(|| token.parse().ok())
        .flatten()
}

/// How many representable doubles lie between `a` and `b` (for values of one sign).
fn ulps_apart(a: f64, b: f64) -> u64 {
    if a.is_sign_negative() != b.is_sign_negative() {
        return if a == b { 0 } else { u64::MAX };
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// An engine holding one document's value (the corpus study): what its configurations time.
///
/// Not a [`Codec<T>`]: its `decode` would return a `T` that cannot borrow the input, while a
/// document's engines each have their own value type (typed structs, three DOMs), and
/// simd-json's borrowed value borrows the very buffer it parses. Here `parse` drops the value
/// before it returns, so the borrowed value fits.
pub trait DocumentCodec: Send {
    /// What `parse` reads: the document's JSON, or its transcoding (MessagePack, CBOR).
    fn payload(&self) -> &[u8];
    /// Parses `input` and drops the value. An engine that rewrites its input says so
    /// ([`DocumentCodec::parses_in_place`]) and gets a fresh copy of the payload every time;
    /// the others get the payload itself and must leave it as it is (verification checks).
    fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError>;
    /// Whether `parse` rewrites its input (simd-json). Default is false.
    fn parses_in_place(&self) -> bool {
        false
    }
    /// Serialises the held value into `out` (cleared by the caller).
    fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// Checks the engine against the reference before anything is timed: findings (numbers it
    /// changes, what it does with duplicate keys), or why it fails.
    fn verify(&mut self) -> Result<Vec<Finding>, VerifyError>;
}

/// The workload of one document's engine: the operation, the payload it parses and the one
/// reused buffer.
pub struct Documents {
    codec: Box<dyn DocumentCodec>,
    operation: Operation,
    payload: Vec<u8>,
    buf: Vec<u8>,
    /// The engine rewrites what it parses: each timed parse reads a fresh copy.
    in_place: bool,
}

impl Documents {
    /// `codec` measured on `operation`.
    pub fn new(codec: Box<dyn DocumentCodec>, operation: Operation) -> Documents {
        let payload = codec.payload().to_vec();
        let in_place = codec.parses_in_place();
        Documents {
            codec,
            operation,
            payload,
            buf: Vec::new(),
            in_place,
        }
    }

    fn parses(&self) -> bool {
        matches!(
            self.operation,
            Operation::Parse
                | Operation::Decode
                | Operation::Deserialize
                | Operation::Access
                | Operation::ValidatedAccess
        )
    }
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

/// The parse loop: parse the payload and drop the value. An in-place parser gets a copy of the
/// payload in the reused buffer before each parse (the copy is in its figure); the others parse
/// the payload itself.
#[inline(never)]
fn parse_loop(
    codec: &mut dyn DocumentCodec,
    payload: &mut [u8],
    buf: &mut Vec<u8>,
    in_place: bool,
    n: u64,
) -> Result<(), CodecError> {
    if !in_place {
        for _ in 0..n {
            codec.parse(black_box(&mut *payload))?;
        }
        return Ok(());
    }
    document_cycle(codec, buf, n, |codec, buf| {
        buf.extend_from_slice(payload);
        codec.parse(black_box(buf.as_mut_slice()))
    })
}

/// The document serialize loop: write the held value into the cleared buffer.
#[inline(never)]
fn document_serialize_loop(
    codec: &mut dyn DocumentCodec,
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
    buf: &mut Vec<u8>,
    n: u64,
) -> Result<(), CodecError> {
    document_cycle(codec, buf, n, |codec, buf| {
        codec.serialize(buf)?;
        codec.parse(black_box(buf.as_mut_slice()))
    })
}

/// What a document's workload cannot do (the commands and studies that take values).
fn not_for_documents(what: &str) -> CodecError {
    CodecError::setup(format_args!(
        "a configuration of a document does not {what}: it holds one parsed value"
    ))
}

impl Workload for Documents {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let findings = self.codec.verify()?;
        // An engine that says it leaves its input alone parses the payload itself in the
        // timed loop: one parse here checks that it does.
        if !self.in_place && self.parses() {
            let mut probe = self.payload.clone();
            self.codec
                .parse(&mut probe)
                .map_err(|error| VerifyError::DocumentStep {
                    step: crate::verify::DocumentStep::ParsePayload,
                    error,
                })?;
            if probe != self.payload {
                return Err(VerifyError::DocumentStep {
                    step: crate::verify::DocumentStep::ParsePayload,
                    error: CodecError::setup(
                        "the parse rewrote its input, but the engine does not say it parses in place (DocumentCodec::parses_in_place)",
                    ),
                });
            }
        }
        let mut out = Vec::new();
        self.codec
            .serialize(&mut out)
            .map_err(|error| VerifyError::DocumentStep {
                step: crate::verify::DocumentStep::Serialize,
                error,
            })?;
        // A parse reads its payload (the document as it is, or its transcoding); a serialize
        // or round trip writes what the engine writes.
        let bytes = match self.parses() {
            true => self.payload.len(),
            false => out.len(),
        };
        Ok(Verified {
            payload_bytes: bytes as f64,
            shares_references: None,
            findings,
        })
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        let parses = self.parses();
        let codec = self.codec.as_mut();
        match self.operation {
            _ if parses => parse_loop(codec, &mut self.payload, &mut self.buf, self.in_place, n),
            Operation::Serialize => document_serialize_loop(codec, &mut self.buf, n),
            _ => document_roundtrip_loop(codec, &mut self.buf, n),
        }
    }

    fn dataset_len(&self) -> usize {
        1
    }

    fn loop_function(&self) -> &'static str {
        documents_loop(self.operation)
    }

    fn copies_input(&self) -> bool {
        self.in_place && self.parses()
    }

    fn encode_value(&mut self, _index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.codec.serialize(out)
    }

    fn decode_to_text(&mut self, _bytes: &mut [u8]) -> Result<String, CodecError> {
        Err(not_for_documents(
            "decode payloads into a value it can show",
        ))
    }

    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError> {
        Err(VerifyError::DocumentStep {
            step: crate::verify::DocumentStep::ParsePayload,
            error: not_for_documents("make damaged inputs"),
        })
    }

    fn decode_damaged(&mut self, _bytes: &mut [u8], _index: usize) -> Damaged {
        Damaged::Refused(not_for_documents("decode damaged inputs"))
    }
}

/// The measured loop of a [`Values`] workload of `operation`, as valgrind names it.
pub fn values_loop(operation: Operation) -> &'static str {
    match operation {
        Operation::RoundTrip => "serprof_engines::workload::roundtrip_loop",
        Operation::Deserialize => "serprof_engines::workload::deserialize_loop",
        Operation::Access | Operation::ValidatedAccess => "serprof_engines::workload::access_loop",
        _ => "serprof_engines::workload::serialize_loop",
    }
}

/// The measured loop of a [`Documents`] workload of `operation`, as valgrind names it.
pub fn documents_loop(operation: Operation) -> &'static str {
    match operation {
        // A document is text with no in-place form: the access operations, which no document
        // configuration has, would parse it.
        Operation::Parse
        | Operation::Decode
        | Operation::Deserialize
        | Operation::Access
        | Operation::ValidatedAccess => "serprof_engines::workload::parse_loop",
        Operation::Serialize => "serprof_engines::workload::document_serialize_loop",
        Operation::RoundTrip => "serprof_engines::workload::document_roundtrip_loop",
    }
}

/// The regular expression over frame names that matches every measured loop (`serprof flame
/// --from-loop`).
pub const LOOP_FRAMES: &str = r"serprof_engines::workload::\w+_loop";

#[cfg(test)]
mod tests {
    use super::*;

    /// A document engine that overwrites the first byte of what it parses.
    struct Rewriter {
        payload: Vec<u8>,
        says_in_place: bool,
    }

    impl DocumentCodec for Rewriter {
        fn payload(&self) -> &[u8] {
            &self.payload
        }
        fn parses_in_place(&self) -> bool {
            self.says_in_place
        }
        fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError> {
            input[0] = b'!';
            Ok(())
        }
        fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError> {
            out.extend_from_slice(&self.payload);
            Ok(())
        }
        fn verify(&mut self) -> Result<Vec<Finding>, VerifyError> {
            Ok(Vec::new())
        }
    }

    fn rewriter(says_in_place: bool) -> Box<Rewriter> {
        Box::new(Rewriter {
            payload: b"[1]".to_vec(),
            says_in_place,
        })
    }

    #[test]
    fn only_in_place_parsers_get_a_copy_and_an_engine_that_hides_one_fails_verification() {
        let mut hidden = Documents::new(rewriter(false), Operation::Parse);
        let err = hidden.verify().unwrap_err().to_string();
        assert!(err.contains("parses_in_place"), "{err}");
        assert!(!hidden.copies_input());
        // Without a copy, the timed parse reads (and here rewrites) the payload itself.
        hidden.run(1).unwrap();
        assert_eq!(hidden.payload, b"!1]");

        let mut honest = Documents::new(rewriter(true), Operation::Parse);
        honest.verify().unwrap();
        assert!(honest.copies_input());
        honest.run(3).unwrap();
        // Every timed parse read an intact copy.
        assert_eq!(honest.payload, b"[1]");

        // A serialize never copies, whatever the engine says.
        assert!(!Documents::new(rewriter(true), Operation::Serialize).copies_input());
    }
}
