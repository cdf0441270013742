//! borsh: Binary Object Representation Serializer for Hashing, a deterministic format
//! (fixed-width little-endian integers, u32 lengths) derived on the model's types.

use crate::codec::{Codec, CodecError};
use crate::model::Order;

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "1.8.1";

/// borsh through its derives on the model (features `rc` for `Arc`, `indexmap` for the ordered
/// attributes and tags).
#[derive(Debug, Clone, Copy, Default)]
pub struct Borsh;

impl Codec<Order> for Borsh {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        borsh::to_writer(&mut *out, value).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        // `from_slice` fails on bytes after the value.
        borsh::from_slice(bytes).map_err(CodecError::decode)
    }
}

/// borsh as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    super::described("borsh", VERSION, "borsh", || Borsh)
}

// What borsh cannot do for the Order model: it is not self-describing; `Arc` needs the `rc`
// feature and decodes each reference into its own allocation (shared references are not kept);
// prices are the cents as an i64 (no decimal type).
