//! bitcode: a bit-packed, column-oriented binary format, through its serde API (`bitcode`, on
//! the Order graph and on any serde type) and through its own derive with a reused buffer
//! (`bitcode-derive`, on a type that derives `bitcode::Encode` and `bitcode::Decode`).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of bitcode this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("bitcode", "0.6.")
}

/// bitcode's serde API, byte arrays as `bytes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bitcode {
    /// How byte arrays are written.
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
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described("bitcode", version(), "bitcode|serde(_core)?::", move || {
        Bitcode { bytes }
    })
    .call("bitcode::serialize, bitcode::deserialize (serde)")
    .fields(serprof_api::fields::FieldSplit::Not(super::columns(
        "bitcode",
    )))
}

/// bitcode's own derive with one `bitcode::Buffer` reused across calls, the call bitcode
/// documents for speed. `Buffer::encode` returns a slice of the buffer's own memory: the
/// serialize loop's slice call returns it as it is, as rsb times it; `encode` copies it into
/// the caller's buffer (the seam's contract: the payload is in `out`).
pub struct Derived<T> {
    buffer: bitcode::Buffer,
    value: std::marker::PhantomData<fn() -> T>,
}

impl<T: bitcode::Encode + bitcode::DecodeOwned> Codec<T> for Derived<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.extend_from_slice(self.buffer.encode(value));
        Ok(())
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // rsb's call: the payload stays in the reused `Buffer`, not copied; `out` is not used.
        let _ = out;
        Some(Ok(self.buffer.encode(value)))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        self.buffer.decode(bytes).map_err(CodecError::decode)
    }
}

/// bitcode's own derive as an engine on `T`, named `bitcode-derive` (`bitcode` is its serde API).
pub fn derive_engine<T: serprof_api::Value + bitcode::Encode + bitcode::DecodeOwned>(
) -> serprof_api::Engine<T> {
    super::described("bitcode", version(), "bitcode", || Derived::<T> {
        buffer: bitcode::Buffer::new(),
        value: std::marker::PhantomData,
    })
    .named("bitcode-derive")
    .call(
        "bitcode::Buffer::encode (reused; serialize: its payload left in the Buffer, other \
         loops: copied out), bitcode::Buffer::decode",
    )
    .fields(serprof_api::fields::FieldSplit::Not(super::columns(
        "bitcode",
    )))
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
