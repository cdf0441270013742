//! postcard: a compact, non-self-describing binary format over serde (varints, no field names).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::{Codec, CodecError};
use crate::model::{with_serde_bytes, SerdeBytes};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "1.2.0";

/// postcard with byte arrays written as `bytes` (`Seq` is serde's default, `Native` is
/// `serde_bytes`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Postcard {
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Postcard {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `to_extend` takes the buffer by value and hands it back: no copy, capacity kept.
        let buf = std::mem::take(out);
        *out = with_serde_bytes(self.bytes, || postcard::to_extend(value, buf))
            .map_err(CodecError::encode)?;
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || postcard::from_bytes(bytes)).map_err(CodecError::decode)
    }
}

/// postcard as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> crate::study::Engine<T> {
    super::described("postcard", VERSION, "postcard|serde(_core)?::", move || {
        Postcard { bytes }
    })
}

// What postcard cannot do for the Order model: it is not self-describing (a reader needs the
// same Rust types), `Vec<u8>` is a sequence of varint-free bytes only with `serde_bytes`, and
// shared references come back as separate allocations.
