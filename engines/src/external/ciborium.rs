//! ciborium: CBOR (RFC 8949) over serde.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of ciborium this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("ciborium", "0.2.")
}

/// ciborium with byte arrays written as `bytes` (`Seq` is serde's default, an array of
/// integers; `Native` is a CBOR byte string, major type 2).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ciborium {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Ciborium {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || ciborium::into_writer(value, &mut *out))
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| {
            with_serde_bytes(self.bytes, || ciborium::into_writer(value, w))
        })
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        // `from_reader` parses through a 4 KiB scratch buffer on the stack; a `&[u8]` is its reader.
        with_serde_bytes(self.bytes, || ciborium::from_reader(&bytes[..]))
            .map_err(CodecError::decode)
    }
}

/// ciborium as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "ciborium",
        version(),
        "ciborium|serde(_core)?::",
        move || Ciborium { bytes },
    )
    .call("ciborium::into_writer (serialize: io::Write over one slice), ciborium::from_reader")
    .fields(super::recorded(bytes, |t, sink| {
        ciborium::into_writer(t, sink)
    }))
}

// What ciborium cannot do for the Order model: it writes structs as maps with every field name
// (self-describing, like Jackson CBOR), but has no decimal mapping through serde (prices are cents
// as integers, not CBOR tag 4 decimal fractions); `Vec<u8>` is an array of integers unless it goes
// through `serialize_bytes`; shared references come back as separate allocations (CBOR's
// shared-value tags 28/29 are not supported). Decoding reads through `std::io::Read`-like calls,
// not a slice cursor.
