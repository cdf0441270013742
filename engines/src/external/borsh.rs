//! borsh: Binary Object Representation Serializer for Hashing, a deterministic format
//! (fixed-width little-endian integers, u32 lengths) derived on the model's types.

use serprof_api::{Codec, CodecError};

/// The version of borsh this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("borsh", "1.")
}

/// borsh through its derives on the model (features `rc` for `Arc`, `indexmap` for the ordered
/// attributes and tags).
#[derive(Debug, Clone, Copy, Default)]
pub struct Borsh;

impl<T: borsh::BorshSerialize + borsh::BorshDeserialize> Codec<T> for Borsh {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        borsh::to_writer(&mut *out, value).map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| value.serialize(w))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        // `from_slice` fails on bytes after the value.
        borsh::from_slice(bytes).map_err(CodecError::decode)
    }
}

/// borsh on any type that derives its traits (`BorshSerialize`, `BorshDeserialize`).
pub fn engine<T: serprof_api::Value + borsh::BorshSerialize + borsh::BorshDeserialize>(
) -> serprof_api::Engine<T> {
    super::described("borsh", version(), "borsh", || Borsh).call(
        "borsh::to_writer (serialize: BorshSerialize::serialize, io::Write over one slice), \
             borsh::from_slice",
    )
}

// What borsh cannot do for the Order model: it is not self-describing; `Arc` needs the `rc`
// feature and decodes each reference into its own allocation (shared references are not kept);
// prices are the cents as an i64 (no decimal type).
