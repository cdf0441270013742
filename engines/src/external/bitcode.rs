//! bitcode: a bit-packed, column-oriented binary format, used here through its serde API.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::{Codec, CodecError};
use crate::model::{with_serde_bytes, SerdeBytes};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.6.9";

/// bitcode's serde API, byte arrays as `bytes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bitcode {
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Bitcode {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // bitcode's serde API only returns an owned `Vec` (it packs columns first and
        // concatenates them at the end), so the payload is copied into the caller's buffer.
        let packed = with_serde_bytes(self.bytes, || bitcode::serialize(value))
            .map_err(CodecError::encode)?;
        out.extend_from_slice(&packed);
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || bitcode::deserialize(bytes)).map_err(CodecError::decode)
    }
}

/// bitcode as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> crate::study::Engine<T> {
    super::described("bitcode", VERSION, "bitcode|serde(_core)?::", move || {
        Bitcode { bytes }
    })
}

// What bitcode cannot do for the Order model: its own derive (`bitcode::Encode`/`Decode`, the
// fast path with a reusable `bitcode::Buffer`) rejects the recursive `Category` (a cycle in its
// compile-time encoder types, E0391), so only the slower serde API works; that API returns an
// owned `Vec` (one copy into the caller's buffer) and has no reusable buffer. It is not
// self-describing, has no decimal type (prices are cents), and rebuilds shared references as
// separate allocations. Byte arrays stay a `u8` sequence whatever the configuration: bitcode
// 0.6.9's serde serializer writes `serialize_bytes` as that same sequence (`v.serialize(self)`)
// and reads it back through `Vec<u8>`, so `bitcode+bytes` has the payload and the time of
// `bitcode`.
