//! wincode: a bincode-compatible format (fixed-width little-endian integers, u64 lengths)
//! through its own derives on the model's types, writing and reading in place.

use serprof_api::{Codec, CodecError};

/// The version of wincode this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("wincode", "0.6.")
}

/// wincode with its default configuration (bincode 1's format; collections preallocated up to
/// 4 MiB, so a hostile length is an error, not an allocation).
#[derive(Debug, Clone, Copy, Default)]
pub struct Wincode;

impl<
        T: wincode::SchemaWrite<wincode::config::DefaultConfig, Src = T>
            + for<'de> wincode::SchemaRead<'de, wincode::config::DefaultConfig, Dst = T>,
    > Codec<T> for Wincode
{
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        wincode::serialize_into(&mut *out, value).map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // wincode's `Writer` for `&mut [u8]`.
        super::into_slice(out, |w| wincode::serialize_into(w, value))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        // `deserialize_exact` fails on bytes after the value.
        wincode::deserialize_exact(bytes).map_err(CodecError::decode)
    }
}

/// wincode on any type that derives its traits (`SchemaWrite`, `SchemaRead`).
pub fn engine<
    T: serprof_api::Value
        + wincode::SchemaWrite<wincode::config::DefaultConfig, Src = T>
        + for<'de> wincode::SchemaRead<'de, wincode::config::DefaultConfig, Dst = T>,
>() -> serprof_api::Engine<T> {
    super::described("wincode", version(), "wincode", || Wincode)
        .call("wincode::serialize_into (serialize: into one slice), wincode::deserialize_exact")
}

// What wincode cannot do for the Order model: it is not self-describing; shared references come
// back as separate allocations; enum tags are u32 and lengths u64 (bincode 1's layout); a
// string or vector over 4 MiB needs a larger preallocation limit in its configuration.
