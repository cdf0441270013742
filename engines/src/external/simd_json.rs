//! simd-json: a port of simdjson that parses IN PLACE: it rewrites the input buffer while it
//! unescapes strings, so decode takes the payload as `&mut [u8]`.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of simd-json this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("simd-json", "0.19.")
}

/// simd-json with byte arrays written as `bytes`.
///
/// The adapter keeps simd-json's scratch [`simd_json::Buffers`] (the tape and string buffers)
/// from one decode to the next, as simd-json recommends for repeated parsing; a fresh
/// `from_slice` would allocate them on every call.
#[derive(Default)]
pub struct SimdJson {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
    buffers: simd_json::Buffers,
}

impl SimdJson {
    /// simd-json writing byte arrays as `bytes`, its buffers empty.
    pub fn new(bytes: SerdeBytes) -> SimdJson {
        SimdJson {
            bytes,
            buffers: simd_json::Buffers::default(),
        }
    }
}

impl<T: Serialize + DeserializeOwned> Codec<T> for SimdJson {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || simd_json::to_writer(&mut *out, value))
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| {
            with_serde_bytes(self.bytes, || simd_json::to_writer(w, value))
        })
    }

    /// Parses `bytes` in place. In a round trip `bytes` is the encode buffer itself (the
    /// caller's, cleared by the next encode), so nothing is copied before parsing.
    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let buffers = &mut self.buffers;
        with_serde_bytes(self.bytes, || {
            simd_json::serde::from_slice_with_buffers(bytes, buffers)
        })
        .map_err(CodecError::decode)
    }

    fn decodes_in_place(&self) -> bool {
        true
    }
}

/// simd-json as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "simd-json",
        version(),
        "simd_json|serde(_core)?::",
        move || SimdJson::new(bytes),
    )
    .call(
        "simd_json::to_writer (serialize: io::Write over one slice), \
         simd_json::serde::from_slice_with_buffers",
    )
    .json()
    .fields(super::recorded(bytes, |t, sink| {
        simd_json::to_writer(sink, t)
    }))
}

/// simd-json through its own derive (`simd_json_derive::Serialize` and `Deserialize`), as
/// rust_serialization_benchmark calls it: `json_write` to a writer, and
/// `from_slice_with_buffers`, which parses in place into a tape and reads the value from it.
/// The derive writes an `f32` with the shortest digits of the `f32` (the serde API widens it to
/// `f64` first). The rsb datasets' types derive it; the Order model does not.
#[cfg(feature = "simd-json-derive")]
#[derive(Default)]
pub struct Derived {
    buffers: simd_json::Buffers,
}

#[cfg(feature = "simd-json-derive")]
impl<T> Codec<T> for Derived
where
    T: simd_json_derive::Serialize + for<'de> simd_json_derive::Deserialize<'de>,
{
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        value.json_write(out).map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| value.json_write(w))
    }

    /// Parses `bytes` in place, as [`SimdJson`] does.
    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        T::from_slice_with_buffers(bytes, &mut self.buffers).map_err(CodecError::decode)
    }

    fn decodes_in_place(&self) -> bool {
        true
    }
}

/// simd-json through its derive as a study's engine on `T` (`simd-json-derive`).
#[cfg(feature = "simd-json-derive")]
pub fn derive_engine<T>() -> serprof_api::Engine<T>
where
    T: serprof_api::Value
        + simd_json_derive::Serialize
        + for<'de> simd_json_derive::Deserialize<'de>,
{
    super::described("simd-json", version(), "simd_json", Derived::default)
        .named("simd-json-derive")
        .call(
            "simd_json_derive::Serialize::json_write (serialize: io::Write over one slice), \
             simd_json_derive::Deserialize::from_slice_with_buffers",
        )
        .json()
}

// What simd-json cannot do for the Order model: everything serde_json cannot (decimals through
// `f64`, `Vec<u8>` as a sequence unless base64 is picked, shared references rebuilt per use), and
// it destroys its input: the payload is not valid JSON after a decode, so it cannot be decoded
// twice without a copy. Its SIMD speed is in parsing; its serializer is a plain serde writer.
