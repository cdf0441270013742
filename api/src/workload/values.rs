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

impl<T: Value> Workload for Values<T> {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let mut total = 0usize;
        let mut shares = None;
        let mut floats: Option<(usize, DebugDiff)> = None;
        let mut float_values = 0;
        // Whether the engine writes into a slice (the serialize loop's check).
        let mut slice_call: Option<bool> = None;
        let (mut scratch, mut expected) = (Vec::new(), Vec::new());
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            total += self.buf.len();
            if self.operation == Operation::Serialize {
                let answered = self.check_slice(index, &mut scratch, &mut expected)?;
                if *slice_call.get_or_insert(answered) != answered {
                    return Err(VerifyError::Check {
                        index,
                        message: "the engine's slice call (`Codec::encode_to_slice`) answers \
                                  for some values and not for others"
                            .into(),
                    });
                }
            }
            if self.operation == Operation::Deserialize && !self.in_place {
                self.check_reads_only(index)?;
            }
            if matches!(
                self.operation,
                Operation::Access | Operation::ValidatedAccess
            ) {
                self.check_access(index)?;
            }
            if self.operation == Operation::Borrow {
                self.check_borrow(index)?;
            }
            if self.operation == Operation::UnvalidatedDeserialize {
                self.check_unvalidated(index)?;
            }
            if matches!(
                self.operation,
                Operation::EncodeMessage | Operation::DecodeMessage
            ) {
                self.check_messages(index, &mut scratch, &mut expected)?;
            }
            if self.operation == Operation::Update {
                self.check_update(index, &mut scratch, &mut expected)?;
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
            Operation::Borrow => {
                self.encode_all()?;
                borrow_loop::<T>(self.codec.as_mut(), &self.payloads, &mut self.next, n)
            }
            Operation::UnvalidatedDeserialize => {
                self.encode_all()?;
                // SAFETY: the payloads are the ones the codec's `encode` wrote in
                // `encode_all`, unchanged: the contract of `decode_unchecked`.
                unsafe {
                    unvalidated_deserialize_loop::<T>(
                        self.codec.as_mut(),
                        &mut self.payloads,
                        &mut self.next,
                        n,
                    )
                }
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
            Operation::EncodeMessage => {
                self.keep_messages()?;
                message_encode_loop::<T>(
                    self.codec.as_mut(),
                    self.data.len(),
                    &mut self.buf,
                    &mut self.next,
                    n,
                )
            }
            Operation::DecodeMessage => {
                self.encode_all()?;
                message_decode_loop::<T>(self.codec.as_mut(), &self.payloads, &mut self.next, n)
            }
            Operation::Update => {
                self.encode_all()?;
                // SAFETY: the payloads are the ones the codec's `encode` wrote in
                // `encode_all`, changed since only by this loop's updates: the contract of
                // `update_unchecked`.
                unsafe {
                    update_loop::<T>(self.codec.as_mut(), &mut self.payloads, &mut self.next, n)
                }
            }
            Operation::RoundTrip => roundtrip_loop::<T>(
                self.codec.as_mut(),
                &self.data,
                &mut self.buf,
                &mut self.next,
                n,
            ),
            _ => {
                self.prepare_output()?;
                let out = match &mut self.output {
                    Output::Slice(slice) => Out::Slice(&mut slice[..]),
                    _ => Out::Vec(&mut self.buf),
                };
                serialize_loop::<T>(self.codec.as_mut(), &self.data, out, &mut self.next, n)
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

    fn decode_to_json(&mut self, bytes: &mut [u8]) -> Result<Option<String>, CodecError> {
        let Some(json) = self.checks.json.clone() else {
            return Ok(None);
        };
        let value = self.codec.decode(bytes)?;
        json(&value).map(Some)
    }

    /// Every value's payload split by field: encoded again by the codec (outside any timed
    /// loop), and recorded or read as the engine says.
    fn split_fields(&mut self) -> FieldsReport {
        if let FieldSplit::Not(why) = &self.fields {
            return FieldsReport::none(why.clone());
        }
        let mut tally = Tally::default();
        let mut payload = Vec::new();
        for (index, value) in self.data.iter().enumerate() {
            payload.clear();
            if let Err(e) = self.codec.encode(value, &mut payload) {
                return FieldsReport::none(format!(
                    "no field split: encoding value {index} again failed: {e}"
                ));
            }
            let paths = match &self.fields {
                FieldSplit::Record(record) => record(value),
                FieldSplit::Payload(read) => read(&payload),
                FieldSplit::Not(_) => unreachable!("returned above"),
            };
            let added = paths
                .map_err(|e| format!("no field split: value {index}: {e}"))
                .and_then(|paths| tally.add(index, paths, &payload).map_err(|e| e.to_string()));
            if let Err(e) = added {
                return FieldsReport::none(e);
            }
        }
        tally.report(self.json)
    }

    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError> {
        let mut payloads = Vec::with_capacity(self.data.len());
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            // A float changed in its last digits is a finding of verification, not a failure:
            // the payload is still the engine's.
            if back != self.data[index] {
                if let Difference::Other(difference) = self.differs(index, &self.data[index], &back)
                {
                    return Err(VerifyError::Differs { index, difference });
                }
            }
            payloads.push(self.buf.clone());
        }
        Ok(payloads)
    }

    fn retained_bytes(&mut self, live: &mut dyn FnMut() -> i64) -> Option<Result<f64, CodecError>> {
        match self.operation {
            // A borrowed value or a decoded message lives only inside the engine's call:
            // nothing is kept.
            // An update changes the payload where it lies: nothing is kept either.
            Operation::Serialize
            | Operation::EncodeMessage
            | Operation::Borrow
            | Operation::DecodeMessage
            | Operation::Update => None,
            _ => Some(self.retained(live)),
        }
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

/// Keeps a measured loop's machine code its own, once per call, outside the loop. In a
/// fat-LTO build, LLVM hands a loop the codec's method instead of its vtable (every caller
/// passes the same one), after which `borrow_loop` and `message_decode_loop` are the same code
/// and are merged into one function under one name; the CPU recording finds the loop's samples
/// by its name ([`values_loop`]), and would find none.
#[inline(always)]
fn own_code(operation: Operation) {
    black_box(operation);
}

/// Runs `op(codec, payload)` on `n` stored payloads, cycling from `*next` (see [`cycle`]).
#[inline(always)]
fn payload_cycle<T, F>(
    codec: &mut dyn Codec<T>,
    payloads: &[Vec<u8>],
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &[u8]) -> Result<(), CodecError>,
{
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
/// [`cycle`]).
#[inline(always)]
fn payload_cycle_mut<T, F>(
    codec: &mut dyn Codec<T>,
    payloads: &mut [Vec<u8>],
    next: &mut usize,
    n: u64,
    mut op: F,
) -> Result<(), CodecError>
where
    F: FnMut(&mut dyn Codec<T>, &mut [u8]) -> Result<(), CodecError>,
{
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
        payload_cycle(codec, payloads, next, n, |codec, payload| {
            black_box(codec.access(payload)?);
            Ok(())
        })
    } else {
        payload_cycle(codec, payloads, next, n, |codec, payload| {
            // SAFETY: every stored payload is one this codec's `encode` wrote (`encode_all`),
            // unchanged since.
            black_box(unsafe { codec.access_unchecked(payload)? });
            Ok(())
        })
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
    own_code(Operation::Borrow);
    payload_cycle(codec, payloads, next, n, |codec, payload| {
        codec.borrow(payload)
    })
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
    payload_cycle_mut(codec, payloads, next, n, |codec, input| {
        // SAFETY: the caller's contract.
        let back = unsafe { codec.decode_unchecked(input) }?;
        drop(black_box(back));
        Ok(())
    })
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
    own_code(Operation::DecodeMessage);
    payload_cycle(codec, payloads, next, n, |codec, payload| {
        codec.decode_message(payload)
    })
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
    payload_cycle_mut(codec, payloads, next, n, |codec, payload| {
        // SAFETY: the caller's contract.
        unsafe { codec.update_unchecked(payload) }
    })
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
