//! wincode: a bincode-compatible format (fixed-width little-endian integers, u64 lengths)
//! through its own derives on the model's types, writing and reading in place.

use crate::codec::{Codec, CodecError};
use crate::model::Order;

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.6.3";

/// wincode with its default configuration (bincode 1's format; collections preallocated up to
/// 4 MiB, so a hostile length is an error, not an allocation).
#[derive(Debug, Clone, Copy, Default)]
pub struct Wincode;

impl Codec<Order> for Wincode {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        wincode::serialize_into(&mut *out, value).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        // `deserialize_exact` fails on bytes after the value.
        wincode::deserialize_exact(bytes).map_err(CodecError::decode)
    }
}

/// wincode as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    super::described("wincode", VERSION, "wincode", || Wincode)
}

// What wincode cannot do for the Order model: it is not self-describing; shared references come
// back as separate allocations; enum tags are u32 and lengths u64 (bincode 1's layout); a
// string or vector over 4 MiB needs a larger preallocation limit in its configuration.
