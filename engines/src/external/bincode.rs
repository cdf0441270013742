//! bincode 2: a compact, non-self-describing binary format, used here through its serde API.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of bincode this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("bincode", "2.")
}

/// bincode 2 with `config::standard()` (little endian, varint integers), byte arrays as `bytes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bincode {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Bincode {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || {
            bincode::serde::encode_into_std_write(value, out, bincode::config::standard())
        })
        .map(|_| ())
        .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        let written = with_serde_bytes(self.bytes, || {
            bincode::serde::encode_into_slice(value, &mut *out, bincode::config::standard())
        });
        Some(written.map(|n| &out[..n]).map_err(CodecError::encode))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let (value, read) = with_serde_bytes(self.bytes, || {
            bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        })
        .map_err(CodecError::decode)?;
        // bincode stops after the value; bytes after it mean the payload is not one Order.
        super::whole(read, bytes.len())?;
        Ok(value)
    }
}

/// bincode as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described("bincode", version(), "bincode|serde(_core)?::", move || {
        Bincode { bytes }
    })
    .call(
        "bincode::serde::encode_into_std_write (serialize: encode_into_slice into one slice), \
         decode_from_slice (standard config)",
    )
    .fields(super::recorded(bytes, |t, mut sink| {
        bincode::serde::encode_into_std_write(t, &mut sink, bincode::config::standard()).map(|_| ())
    }))
}

// What bincode cannot do for the Order model: it is not self-describing (no field names, no
// types: a reader needs the same Rust types, and serde's `deserialize_any` is unsupported), has
// no decimal type (prices are cents), writes `Vec<u8>` as a sequence unless it goes through
// `serialize_bytes`, and rebuilds shared references as separate allocations. Its own `Encode`/
// `Decode` derives would need implementations for `IndexMap`, `Arc` and our wrappers.
