//! bincode 1: the original bincode format (fixed-width little-endian integers, u64 lengths),
//! through serde, beside bincode 2.

use bincode1::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of bincode this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("bincode", "1.")
}

/// bincode 1.3.3 in the format of `bincode1::serialize` (fixint, little endian), rejecting
/// trailing bytes; byte arrays as `bytes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bincode1 {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

/// `bincode1::serialize`'s options, except that bytes after the value are an error.
fn options() -> impl Options {
    bincode1::DefaultOptions::new().with_fixint_encoding()
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Bincode1 {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || options().serialize_into(&mut *out, value))
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| {
            with_serde_bytes(self.bytes, || options().serialize_into(w, value))
        })
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || options().deserialize(bytes)).map_err(CodecError::decode)
    }
}

/// bincode 1 as a study's engine on `T`, byte arrays written as `bytes`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "bincode1",
        version(),
        "bincode|serde(_core)?::",
        move || Bincode1 { bytes },
    )
    .call(
        "bincode::Options::serialize_into (serialize: io::Write over one slice), deserialize \
         (fixint)",
    )
    .fields(super::recorded(bytes, |t, sink| {
        options().serialize_into(sink, t)
    }))
}

// What bincode 1 cannot do for the Order model: what bincode 2 cannot (not self-describing, no
// decimal type, shared references rebuilt as copies); on top, every integer and length takes its
// full width (a `u64` for every string length), and `Vec<u8>` is the same bytes either way
// (u64 length, then the bytes): `+bytes` changes only the speed.
