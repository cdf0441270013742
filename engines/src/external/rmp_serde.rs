//! rmp-serde: MessagePack over serde.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of rmp-serde this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("rmp-serde", "1.")
}

/// rmp-serde in its default configuration: structs as MessagePack arrays (no field names, like
/// `rmp_serde::to_vec`), byte arrays as `bytes` (`Seq` is serde's default, `Native` is a
/// MessagePack `bin`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RmpSerde {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for RmpSerde {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || rmp_serde::encode::write(out, value))
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| {
            with_serde_bytes(self.bytes, || rmp_serde::encode::write(w, value))
        })
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || rmp_serde::from_slice(bytes)).map_err(CodecError::decode)
    }
}

/// rmp-serde as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "rmp-serde",
        version(),
        "rmp_serde|rmp::|serde(_core)?::",
        move || RmpSerde { bytes },
    )
    .call("rmp_serde::encode::write (serialize: io::Write over one slice), rmp_serde::from_slice")
    .fields(super::recorded(bytes, |t, mut sink| {
        rmp_serde::encode::write(&mut sink, t)
    }))
}

// What rmp-serde cannot do for the Order model: MessagePack has no decimal type (prices are
// cents as integers) and, by default, no field names (structs are arrays: a reader needs the
// same Rust types; `to_vec_named` would write names, as Jackson's binary formats do); `Vec<u8>`
// is an array of integers unless it goes through `serialize_bytes`; shared references come back
// as separate allocations.
