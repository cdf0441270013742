//! The workload of a codec on a dataset of values, and its measured loops.

use std::hint::black_box;
use std::sync::Arc;

use super::diff::{debug_difference, DebugDiff};
use super::seam::{Checks, Damaged, Operation, Value, Verified, Workload};
use crate::codec::{Codec, CodecError};
use crate::fields::tally::{FieldsReport, Tally};
use crate::fields::FieldSplit;
use crate::verify::{Finding, VerifyError};

mod checks;
mod workload;

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
    /// Where the serialize loop writes, decided by its first run.
    output: Output,
    next: usize,
    /// The deserialize loop's inputs: every value's payload, encoded before any timing.
    payloads: Vec<Vec<u8>>,
    /// Whether the codec keeps every value's message ([`Codec::keep_messages`]), for the
    /// message encode.
    messages_kept: bool,
    /// How the engine's payloads split by field, and whether they are JSON text.
    fields: FieldSplit<T>,
    json: bool,
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
            output: Output::Undecided,
            next: 0,
            payloads: Vec::new(),
            messages_kept: false,
            fields: FieldSplit::Not(crate::fields::tally::NOT_SERDE.into()),
            json: false,
        }
    }

    /// The same workload, its payloads split by field as `fields` says (`json`: they are JSON
    /// text) when it verifies.
    pub fn with_fields(mut self, fields: FieldSplit<T>, json: bool) -> Values<T> {
        self.fields = fields;
        self.json = json;
        self
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
}

/// How a decoded value differs from its original.
enum Difference {
    /// Only in floating-point numbers: a finding.
    Floats(DebugDiff),
    /// Otherwise: a failure.
    Other(String),
}

/// Runs `n` operations cycling through `data` from `*next`, each one `op(codec, value, buf)`.
/// Generic over `op`, so each loop below is compiled on its own and no dispatch happens per
/// operation.
#[inline(always)]
fn cycle<T, B: ?Sized, F>(
    codec: &mut dyn Codec<T>,
    data: &[T],
    buf: &mut B,
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &T, &mut B) -> Result<(), CodecError>,
{
    let mut i = *next;
    for _ in 0..n {
        let value = &data[i];
        i += 1;
        if i == data.len() {
            i = 0;
        }
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
        let payload = encoded(codec, value, buf)?;
        let back = codec.decode(black_box(payload))?;
        drop(black_box(back));
        Ok(())
    })
}

/// `value` encoded into `buf`, cleared first: the payload.
#[inline(always)]
fn encoded<'b, T>(
    codec: &mut dyn Codec<T>,
    value: &T,
    buf: &'b mut Vec<u8>,
) -> Result<&'b mut [u8], CodecError> {
    buf.clear();
    codec.encode(value, buf)?;
    Ok(buf.as_mut_slice())
}

/// Where the serialize loop writes.
enum Output {
    /// Not decided yet: the first run decides ([`Values::prepare_output`]).
    Undecided,
    /// The reused `Vec`, cleared before each [`Codec::encode`].
    Vec,
    /// One slice allocated and zero-filled before the loop, for [`Codec::encode_to_slice`].
    Slice(Box<[u8]>),
}

/// The serialize loop's output, borrowed for one run.
enum Out<'a> {
    Vec(&'a mut Vec<u8>),
    Slice(&'a mut [u8]),
}

/// The serialize-only loop: into the cleared reused `Vec` ([`Codec::encode`]), or into the one
/// slice allocated before the loop and reused without clearing ([`Codec::encode_to_slice`]).
/// The choice is made once, outside the loop.
#[inline(never)]
fn serialize_loop<T>(
    codec: &mut dyn Codec<T>,
    data: &[T],
    out: Out<'_>,
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    match out {
        Out::Vec(buf) => cycle(codec, data, buf, next, n, |codec, value, buf| {
            black_box(encoded(codec, value, buf)?);
            Ok(())
        }),
        Out::Slice(slice) => {
            let room = slice.len();
            cycle(
                codec,
                data,
                slice,
                next,
                n,
                |codec, value, slice: &mut [u8]| match codec.encode_to_slice(value, slice) {
                    Some(Ok(payload)) => {
                        black_box(payload);
                        Ok(())
                    }
                    Some(Err(e)) => Err(checks::in_slice(e, room)),
                    None => Err(CodecError::encode(
                        "the engine's slice call (`Codec::encode_to_slice`) stopped answering",
                    )),
                },
            )
        }
    }
}

/// Runs `op(codec, payload)` on `n` stored payloads, cycling from `*next` (see [`cycle`]).
///
/// It first stores `operation` (once per call, outside the loop), which keeps the machine code
/// of each loop built on it its own. In a fat-LTO build, LLVM hands a loop the codec's method
/// instead of its vtable (every caller passes the same one), after which two loops that differ
/// only in the method they call (`borrow_loop` and `message_decode_loop`) are the same code and
/// are merged into one function under one name; the CPU recording finds a loop's samples by
/// its name ([`values_loop`]), and would find none for the other.
#[inline(always)]
fn payload_cycle<T, F>(
    operation: Operation,
    codec: &mut dyn Codec<T>,
    payloads: &[Vec<u8>],
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &[u8]) -> Result<(), CodecError>,
{
    black_box(operation);
    let mut i = *next;
    let len = payloads.len();
    for _ in 0..n {
        let payload = black_box(payloads[i].as_slice());
        i += 1;
        if i == len {
            i = 0;
        }
        op(&mut *codec, payload)?;
    }
    *next = i;
    Ok(())
}

/// Runs `op(codec, payload)` on `n` stored payloads given mutably, cycling from `*next` (see
/// [`cycle`]), after storing `operation` as [`payload_cycle`] does.
#[inline(always)]
fn payload_cycle_mut<T, F>(
    operation: Operation,
    codec: &mut dyn Codec<T>,
    payloads: &mut [Vec<u8>],
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &mut [u8]) -> Result<(), CodecError>,
{
    black_box(operation);
    let mut i = *next;
    let len = payloads.len();
    for _ in 0..n {
        let payload = black_box(payloads[i].as_mut_slice());
        i += 1;
        if i == len {
            i = 0;
        }
        op(&mut *codec, payload)?;
    }
    *next = i;
    Ok(())
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
    if validated {
        payload_cycle(
            Operation::ValidatedAccess,
            codec,
            payloads,
            next,
            n,
            |codec, payload| {
                black_box(codec.access(payload)?);
                Ok(())
            },
        )
    } else {
        payload_cycle(
            Operation::Access,
            codec,
            payloads,
            next,
            n,
            |codec, payload| {
                // SAFETY: every stored payload is one this codec's `encode` wrote (`encode_all`),
                // unchanged since.
                black_box(unsafe { codec.access_unchecked(payload)? });
                Ok(())
            },
        )
    }
}

/// The borrow loop: decode each stored payload into the engine's borrowed form of the value,
/// which the engine drops before it returns.
#[inline(never)]
fn borrow_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &[Vec<u8>],
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    payload_cycle(
        Operation::Borrow,
        codec,
        payloads,
        next,
        n,
        |codec, payload| codec.borrow(payload),
    )
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

/// The unvalidated deserialize loop: decode each stored payload without validation
/// ([`Codec::decode_unchecked`]), drop the value.
///
/// # Safety
///
/// `payloads` must be payloads `codec`'s `encode` wrote, unchanged.
#[inline(never)]
unsafe fn unvalidated_deserialize_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &mut [Vec<u8>],
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    payload_cycle_mut(
        Operation::UnvalidatedDeserialize,
        codec,
        payloads,
        next,
        n,
        |codec, input| {
            // SAFETY: the caller's contract.
            let back = unsafe { codec.decode_unchecked(input) }?;
            drop(black_box(back));
            Ok(())
        },
    )
}

/// The message encode loop: write value `i`'s kept message ([`Codec::encode_message`]) into
/// the cleared reused `Vec`, for `i` cycling over the `len` values from `*next`.
#[inline(never)]
fn message_encode_loop<T>(
    codec: &mut dyn Codec<T>,
    len: usize,
    buf: &mut Vec<u8>,
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    let mut i = *next;
    for _ in 0..n {
        buf.clear();
        codec.encode_message(black_box(i), buf)?;
        black_box(buf.as_slice());
        i += 1;
        if i == len {
            i = 0;
        }
    }
    *next = i;
    Ok(())
}

/// The message decode loop: read each stored payload into the engine's message, which the
/// engine drops before it returns ([`Codec::decode_message`]).
#[inline(never)]
fn message_decode_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &[Vec<u8>],
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    payload_cycle(
        Operation::DecodeMessage,
        codec,
        payloads,
        next,
        n,
        |codec, payload| codec.decode_message(payload),
    )
}

/// The update loop: update each stored payload in place, unvalidated; a pass updates the
/// payloads the pass before updated.
///
/// # Safety
///
/// Every payload is one `codec`'s `encode` wrote, changed since only by its
/// [`Codec::update_unchecked`].
#[inline(never)]
unsafe fn update_loop<T>(
    codec: &mut dyn Codec<T>,
    payloads: &mut [Vec<u8>],
    next: &mut usize,
    n: u64,
) -> Result<(), CodecError> {
    payload_cycle_mut(
        Operation::Update,
        codec,
        payloads,
        next,
        n,
        |codec, payload| {
            // SAFETY: the caller's contract.
            unsafe { codec.update_unchecked(payload) }
        },
    )
}

/// The measured loop of a [`Values`] workload of `operation`, as valgrind names it.
pub fn values_loop(operation: Operation) -> &'static str {
    match operation {
        Operation::RoundTrip => "serprof_api::workload::values::roundtrip_loop",
        Operation::Deserialize => "serprof_api::workload::values::deserialize_loop",
        Operation::UnvalidatedDeserialize => {
            "serprof_api::workload::values::unvalidated_deserialize_loop"
        }
        Operation::Access | Operation::ValidatedAccess => {
            "serprof_api::workload::values::access_loop"
        }
        Operation::Borrow => "serprof_api::workload::values::borrow_loop",
        Operation::EncodeMessage => "serprof_api::workload::values::message_encode_loop",
        Operation::DecodeMessage => "serprof_api::workload::values::message_decode_loop",
        Operation::Update => "serprof_api::workload::values::update_loop",
        _ => "serprof_api::workload::values::serialize_loop",
    }
}
