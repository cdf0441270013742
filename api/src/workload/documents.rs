//! The workload of one document's engine (the corpus study), and its measured loops.

use std::hint::black_box;

use super::seam::{Damaged, Operation, Verified, Workload};
use crate::codec::CodecError;
use crate::fields::tally::FieldsReport;
use crate::verify::{Finding, VerifyError};

/// An engine holding one document's value (the corpus study): what its configurations time.
///
/// Not a [`Codec<T>`](crate::Codec): its `decode` would return a `T` that cannot borrow the input, while a
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
    pub(super) payload: Vec<u8>,
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
                | Operation::UnvalidatedDeserialize
                | Operation::Access
                | Operation::ValidatedAccess
                | Operation::Borrow
                | Operation::DecodeMessage
                | Operation::Update
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

    fn split_fields(&mut self) -> FieldsReport {
        FieldsReport::none(
            "no field split: a document's JSON has no type whose fields serprof records",
        )
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        let parses = self.parses();
        let codec = self.codec.as_mut();
        match self.operation {
            _ if parses => parse_loop(codec, &mut self.payload, &mut self.buf, self.in_place, n),
            Operation::Serialize | Operation::EncodeMessage => {
                document_serialize_loop(codec, &mut self.buf, n)
            }
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

/// The measured loop of a [`Documents`] workload of `operation`, as valgrind names it.
pub fn documents_loop(operation: Operation) -> &'static str {
    match operation {
        // A document is text with no in-place form and no message: the access operations, the
        // update, the unvalidated decode and the message decode, which no document
        // configuration has, would parse it, and the message encode would serialize it.
        Operation::Parse
        | Operation::Decode
        | Operation::Deserialize
        | Operation::UnvalidatedDeserialize
        | Operation::Access
        | Operation::ValidatedAccess
        | Operation::Borrow
        | Operation::DecodeMessage
        | Operation::Update => "serprof_api::workload::documents::parse_loop",
        Operation::Serialize | Operation::EncodeMessage => {
            "serprof_api::workload::documents::document_serialize_loop"
        }
        Operation::RoundTrip => "serprof_api::workload::documents::document_roundtrip_loop",
    }
}
