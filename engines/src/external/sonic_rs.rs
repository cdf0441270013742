//! sonic-rs: a SIMD JSON library with its own serde serializer and deserializer.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of sonic-rs this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("sonic-rs", "0.5.")
}

/// sonic-rs with byte arrays written as `bytes` (the study uses base64, like Jackson).
#[derive(Debug, Clone, Copy, Default)]
pub struct SonicRs {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for SonicRs {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `&mut Vec<u8>` is one of sonic-rs's `WriteExt` writers: it appends in place.
        with_serde_bytes(self.bytes, || sonic_rs::to_writer(&mut *out, value))
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || sonic_rs::from_slice(bytes)).map_err(CodecError::decode)
    }
}

/// sonic-rs as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "sonic-rs",
        version(),
        "sonic_rs|serde(_core)?::",
        move || SonicRs { bytes },
    )
    .call("sonic_rs::to_writer, sonic_rs::from_slice")
    .json()
    // sonic-rs writes into reserved spare capacity (its `WriteExt`), which no recorder sees;
    // it goes through the same serde calls as serde_json to the same compact text, so its split
    // is recorded through serde_json's writer, and the workload checks the bytes equal
    // sonic-rs's own payload, value by value.
    .fields(super::recorded(bytes, |t, sink| {
        serde_json::to_writer(sink, t)
    }))
}

// What sonic-rs cannot do for the Order model: the same as serde_json, since it goes through the
// same derived serde code: decimals pass through `f64` (`2.00` is written `2.0`), `Vec<u8>` is a
// sequence of integers unless a configuration picks base64, and shared references (`Arc`) are
// written once per use and come back as separate allocations. Its SIMD fast paths help the
// scanning of strings; the base64 text of the thumbnails is still encoded and decoded by the
// `base64` crate, outside sonic-rs.
