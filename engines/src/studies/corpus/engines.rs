//! The corpus study's engines: each parses a document into its own value and serialises it back,
//! behind one type-erased seam ([`DocumentCodec`]) that holds the value it serialises.
//!
//! Why not [`serprof_api::Codec<T>`]: its `decode` returns a `T` that cannot borrow the input,
//! and a configuration has one `T` for every value of a fixed dataset. A document's engines each
//! have their own value type (typed structs, three DOMs), and simd-json's borrowed value
//! borrows the very buffer it parses. Here `parse` drops the value before it returns, so the
//! borrowed value fits; it cannot be the value that `serialize` holds (it would borrow the
//! codec's own payload), so simd-json's borrowed value has a parse configuration only.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::reference;
use serprof_api::__private::{DocumentStep, DuplicateKeys, Finding, Stage, VerifyError};
use serprof_api::CodecError;

pub use serprof_api::__private::DocumentCodec;

/// One engine: its value type, how it parses and serialises.
pub trait Engine: Send + 'static {
    /// The value the engine parses a document into.
    type Value: Serialize + Send + 'static;
    /// Whether the payload is JSON (else a binary transcoding of a serde_json DOM).
    const JSON: bool = true;
    /// Whether `parse` rewrites its input (simd-json does): the timed parse then copies the
    /// payload before each parse, and only then.
    const IN_PLACE: bool = false;
    /// Parses a document (or its transcoding) into a value.
    fn parse(&mut self, input: &mut [u8]) -> Result<Self::Value, CodecError>;
    /// Writes a value out in the engine's format.
    fn serialize(&mut self, value: &Self::Value, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// The held value and the payload, from the document's JSON.
    fn prepare(&mut self, json: &[u8]) -> Result<(Self::Value, Vec<u8>), CodecError> {
        let value = self.parse(&mut json.to_vec())?;
        Ok((value, json.to_vec()))
    }
}

/// An engine with its held value, its payload and the document's JSON (which the reference
/// parser reads in [`DocumentCodec::verify`]: only the verification child needs it).
pub struct Prepared<E: Engine> {
    engine: E,
    value: E::Value,
    payload: Vec<u8>,
    document: Vec<u8>,
    /// What the engine does with duplicate keys (`None` for a transcoding: its parse of the
    /// JSON is serde_json's).
    duplicates: Option<Finding>,
}

impl<E: Engine> Prepared<E> {
    /// `duplicates`: the finding of [`duplicate_keys`], for this engine's value type or, for a
    /// typed model, for the same engine on [`Probe`].
    pub fn new(
        mut engine: E,
        json: &[u8],
        duplicates: Option<Finding>,
    ) -> Result<Self, CodecError> {
        let (value, payload) = engine.prepare(json).map_err(|e| {
            CodecError::setup(format_args!("the engine does not take the document: {e}"))
        })?;
        Ok(Prepared {
            engine,
            value,
            payload,
            document: json.to_vec(),
            duplicates,
        })
    }
}

fn to_value(v: &impl Serialize) -> Result<serde_json::Value, VerifyError> {
    serde_json::to_value(v).map_err(|e| VerifyError::Conversion {
        message: e.to_string(),
    })
}

/// The document with one key twice, for the duplicate-key finding.
const DUPLICATE_PROBE: &[u8] = br#"{"k":1,"k":2}"#;

impl<E: Engine> DocumentCodec for Prepared<E> {
    fn payload(&self) -> &[u8] {
        &self.payload
    }

    fn parses_in_place(&self) -> bool {
        E::IN_PLACE
    }

    fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError> {
        let v = self.engine.parse(input)?;
        drop(std::hint::black_box(v));
        Ok(())
    }

    fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.engine.serialize(&self.value, out)
    }

    fn verify(&mut self) -> Result<Vec<Finding>, VerifyError> {
        let step = |step| move |error| VerifyError::DocumentStep { step, error };
        let differs = |stage| move |at| VerifyError::DocumentDiffers { stage, at };
        let mut findings = Vec::new();
        // 1. The held value (the engine's parse of the document; for a transcoding, serde_json's
        //    DOM) against the reference.
        let held = to_value(&self.value)?;
        let reference = reference::parse(&self.document).map_err(|e| VerifyError::Reference {
            message: e.to_string(),
        })?;
        let c = reference::compare(&reference, &held);
        if let Some(m) = c.mismatch {
            return Err(differs(Stage::Parse)(m));
        }
        findings.extend(c.finding(Stage::Parse));
        // 2. Parsing the payload gives the held value again.
        let again = self
            .engine
            .parse(&mut self.payload.clone())
            .map_err(step(DocumentStep::ParsePayload))?;
        let c = reference::compare_values(&held, &to_value(&again)?);
        if let Some(m) = c.mismatch {
            return Err(differs(Stage::ParseAgain)(m));
        }
        findings.extend(c.finding(Stage::ParseAgain));
        // 3. What the engine writes reads back (with the reference) to what it held, and its
        //    own parse of it gives the value back.
        let mut out = Vec::new();
        self.engine
            .serialize(&self.value, &mut out)
            .map_err(step(DocumentStep::Serialize))?;
        if E::JSON {
            let r = reference::parse(&out).map_err(|e| VerifyError::InvalidJson {
                message: e.to_string(),
            })?;
            let c = reference::compare(&r, &held);
            if let Some(m) = c.mismatch {
                return Err(differs(Stage::Writing)(m));
            }
            findings.extend(c.finding(Stage::Writing));
        }
        let back = self
            .engine
            .parse(&mut out)
            .map_err(step(DocumentStep::ParseWritten))?;
        let c = reference::compare_values(&held, &to_value(&back)?);
        if let Some(m) = c.mismatch {
            return Err(differs(Stage::RoundTrip)(m));
        }
        findings.extend(c.finding(Stage::RoundTrip));
        // 4. Duplicate keys.
        findings.extend(self.duplicates.clone());
        Ok(findings)
    }
}

/// What `engine` does with `{"k":1,"k":2}`, read from what it writes back.
pub fn duplicate_keys<E: Engine>(mut engine: E) -> Finding {
    let written = engine.parse(&mut DUPLICATE_PROBE.to_vec()).and_then(|v| {
        let mut out = Vec::new();
        engine.serialize(&v, &mut out).map(|()| out)
    });
    duplicate_finding(written)
}

/// The duplicate-key finding from what an engine wrote back after parsing the probe.
fn duplicate_finding(written: Result<Vec<u8>, CodecError>) -> Finding {
    let behaviour = match written {
        // Engine messages can span lines (sonic-rs draws a caret under the input).
        Err(e) => DuplicateKeys::Rejects {
            message: e.to_string().lines().next().unwrap_or("").to_string(),
        },
        Ok(out) => match out.as_slice() {
            br#"{"k":1}"# => DuplicateKeys::KeepsFirst,
            br#"{"k":2}"# => DuplicateKeys::KeepsLast,
            br#"{"k":1,"k":2}"# => DuplicateKeys::KeepsBoth,
            other => DuplicateKeys::Gives {
                text: String::from_utf8_lossy(other).into_owned(),
            },
        },
    };
    Finding::DuplicateKeys {
        probe: String::from_utf8_lossy(DUPLICATE_PROBE).into_owned(),
        behaviour,
    }
}

/// The typed model of the duplicate-key probe.
#[derive(Debug, serde::Deserialize, serde::Serialize)]
pub struct Probe {
    /// The key given twice.
    pub k: u64,
}

// ---- The engines. ----

/// Declares an engine over typed values `T` that keeps no state.
macro_rules! stateless_typed_engine {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        pub struct $name<T>(std::marker::PhantomData<fn() -> T>);
        impl<T> Default for $name<T> {
            fn default() -> Self {
                Self(std::marker::PhantomData)
            }
        }
    )*};
}
stateless_typed_engine!(
    /// serde_json `from_slice`.
    SerdeJsonSlice,
    /// serde_json `from_str` (after `std::str::from_utf8`, as a caller holding bytes must).
    SerdeJsonStr,
    /// sonic-rs `from_slice` (validates UTF-8) and `to_writer`.
    SonicRs,
);

/// simd-json's serde deserializer (in place, reused buffers) and `to_writer`.
pub struct SimdSerde<T> {
    buffers: simd_json::Buffers,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T> Default for SimdSerde<T> {
    fn default() -> Self {
        SimdSerde {
            buffers: simd_json::Buffers::default(),
            _t: std::marker::PhantomData,
        }
    }
}

fn serde_json_write<T: Serialize>(value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
    serde_json::to_writer(out, value).map_err(CodecError::encode)
}

/// A serde_json error with its byte offset in `input` (serde_json gives line and column).
fn serde_json_error(e: serde_json::Error, input: &[u8]) -> CodecError {
    let mut line = 1;
    let mut offset = 0;
    for (i, &b) in input.iter().enumerate() {
        if line == e.line() {
            offset = i;
            break;
        }
        if b == b'\n' {
            line += 1;
        }
    }
    CodecError::decode_at(offset + e.column().saturating_sub(1), e)
}

impl<T: Serialize + DeserializeOwned + Send + 'static> Engine for SerdeJsonSlice<T> {
    type Value = T;
    fn parse(&mut self, input: &mut [u8]) -> Result<T, CodecError> {
        serde_json::from_slice(input).map_err(|e| serde_json_error(e, input))
    }
    fn serialize(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        serde_json_write(value, out)
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> Engine for SerdeJsonStr<T> {
    type Value = T;
    fn parse(&mut self, input: &mut [u8]) -> Result<T, CodecError> {
        let text = std::str::from_utf8(input)
            .map_err(|e| CodecError::decode_at(e.valid_up_to(), "invalid UTF-8"))?;
        serde_json::from_str(text).map_err(|e| serde_json_error(e, input))
    }
    fn serialize(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        serde_json_write(value, out)
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> Engine for SonicRs<T> {
    type Value = T;
    fn parse(&mut self, input: &mut [u8]) -> Result<T, CodecError> {
        sonic_rs::from_slice(input).map_err(CodecError::decode)
    }
    fn serialize(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        sonic_rs::to_writer(out, value).map_err(CodecError::encode)
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> Engine for SimdSerde<T> {
    const IN_PLACE: bool = true;
    type Value = T;
    fn parse(&mut self, input: &mut [u8]) -> Result<T, CodecError> {
        simd_json::serde::from_slice_with_buffers(input, &mut self.buffers)
            .map_err(CodecError::decode)
    }
    fn serialize(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        simd_json::to_writer(out, value).map_err(CodecError::encode)
    }
}

/// sonic-rs's own DOM, `sonic_rs::Value` (an arena-backed tree).
#[derive(Default)]
pub struct SonicDom;

impl Engine for SonicDom {
    type Value = sonic_rs::Value;
    fn parse(&mut self, input: &mut [u8]) -> Result<sonic_rs::Value, CodecError> {
        sonic_rs::from_slice(input).map_err(CodecError::decode)
    }
    fn serialize(&mut self, value: &sonic_rs::Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        sonic_rs::to_writer(out, value).map_err(CodecError::encode)
    }
}

/// simd-json's owned value (`simd_json::OwnedValue`), written by its own writer.
#[derive(Default)]
pub struct SimdOwned {
    buffers: simd_json::Buffers,
}

impl Engine for SimdOwned {
    type Value = simd_json::OwnedValue;
    const IN_PLACE: bool = true;
    fn parse(&mut self, input: &mut [u8]) -> Result<simd_json::OwnedValue, CodecError> {
        simd_json::to_owned_value_with_buffers(input, &mut self.buffers).map_err(CodecError::decode)
    }
    fn serialize(
        &mut self,
        value: &simd_json::OwnedValue,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        use simd_json::prelude::Writable;
        value.write(out).map_err(CodecError::encode)
    }
}

/// simd-json's borrowed value: parse only (see the module's docs). It is checked like the
/// others through an owned copy of what it parsed.
#[derive(Default)]
pub struct SimdBorrowed {
    buffers: simd_json::Buffers,
}

impl SimdBorrowed {
    /// Parses `input` into a borrowed value and hands it to `f` before the borrow ends.
    fn with<R>(
        &mut self,
        input: &mut [u8],
        f: impl FnOnce(simd_json::BorrowedValue<'_>) -> R,
    ) -> Result<R, CodecError> {
        let v = simd_json::to_borrowed_value_with_buffers(input, &mut self.buffers)
            .map_err(CodecError::decode)?;
        Ok(f(v))
    }
}

/// The borrowed DOM's seam: parse drops the borrowed value; the held value (for verification
/// and the duplicate-key probe) is an owned copy of a borrowed parse.
pub struct BorrowedCodec {
    inner: Prepared<BorrowedOwnedCopy>,
}

/// [`SimdBorrowed`] whose `parse` gives an owned copy (verification only; the timed parse is
/// [`BorrowedCodec::parse`]).
#[derive(Default)]
pub struct BorrowedOwnedCopy(SimdBorrowed);

impl Engine for BorrowedOwnedCopy {
    type Value = simd_json::OwnedValue;
    const IN_PLACE: bool = true;
    fn parse(&mut self, input: &mut [u8]) -> Result<simd_json::OwnedValue, CodecError> {
        self.0.with(input, |v| simd_json::OwnedValue::from(v))
    }
    fn serialize(
        &mut self,
        value: &simd_json::OwnedValue,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        use simd_json::prelude::Writable;
        value.write(out).map_err(CodecError::encode)
    }
}

impl BorrowedCodec {
    /// The borrowed value of `json`, with the payload it writes.
    pub fn new(json: &[u8]) -> Result<BorrowedCodec, CodecError> {
        // The borrowed value itself, written by its own writer (an owned copy would be a map
        // built anew).
        let mut probe = SimdBorrowed::default();
        let duplicates = duplicate_finding(probe.with(&mut DUPLICATE_PROBE.to_vec(), |v| {
            use simd_json::prelude::Writable;
            v.encode().into_bytes()
        }));
        Ok(BorrowedCodec {
            inner: Prepared::new(BorrowedOwnedCopy::default(), json, Some(duplicates))?,
        })
    }
}

impl DocumentCodec for BorrowedCodec {
    fn payload(&self) -> &[u8] {
        self.inner.payload()
    }
    fn parses_in_place(&self) -> bool {
        true
    }
    fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError> {
        self.inner
            .engine
            .0
            .with(input, |v| drop(std::hint::black_box(v)))
    }
    fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.inner.serialize(out)
    }
    fn verify(&mut self) -> Result<Vec<Finding>, VerifyError> {
        self.inner.verify()
    }
}

/// serde_json's DOM, `serde_json::Value`.
#[derive(Default)]
pub struct SerdeJsonDom;

impl Engine for SerdeJsonDom {
    type Value = serde_json::Value;
    fn parse(&mut self, input: &mut [u8]) -> Result<serde_json::Value, CodecError> {
        serde_json::from_slice(input).map_err(|e| serde_json_error(e, input))
    }
    fn serialize(
        &mut self,
        value: &serde_json::Value,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        serde_json_write(value, out)
    }
}

/// serde_json's DOM transcoded to MessagePack by rmp-serde (maps with their keys).
#[derive(Default)]
pub struct RmpDom;

/// serde_json's DOM transcoded to CBOR by ciborium.
#[derive(Default)]
pub struct CborDom;

/// The held value and payload of a transcoding: serde_json's DOM of the document, encoded.
fn transcode<E: Engine<Value = serde_json::Value>>(
    engine: &mut E,
    json: &[u8],
) -> Result<(serde_json::Value, Vec<u8>), CodecError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| serde_json_error(e, json))?;
    let mut payload = Vec::new();
    engine.serialize(&value, &mut payload)?;
    Ok((value, payload))
}

impl Engine for RmpDom {
    type Value = serde_json::Value;
    const JSON: bool = false;
    fn parse(&mut self, input: &mut [u8]) -> Result<serde_json::Value, CodecError> {
        rmp_serde::from_slice(input).map_err(CodecError::decode)
    }
    fn serialize(
        &mut self,
        value: &serde_json::Value,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        rmp_serde::encode::write_named(out, value).map_err(CodecError::encode)
    }
    fn prepare(&mut self, json: &[u8]) -> Result<(serde_json::Value, Vec<u8>), CodecError> {
        transcode(self, json)
    }
}

impl Engine for CborDom {
    type Value = serde_json::Value;
    const JSON: bool = false;
    fn parse(&mut self, input: &mut [u8]) -> Result<serde_json::Value, CodecError> {
        ciborium::from_reader(&input[..]).map_err(CodecError::decode)
    }
    fn serialize(
        &mut self,
        value: &serde_json::Value,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        ciborium::into_writer(value, out).map_err(CodecError::encode)
    }
    fn prepare(&mut self, json: &[u8]) -> Result<(serde_json::Value, Vec<u8>), CodecError> {
        transcode(self, json)
    }
}
