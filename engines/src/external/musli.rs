//! Müsli: `musli::storage`, its compact format (variable-length integers, fields in declaration
//! order, no names), through its derives on the model's types.

use crate::codec::{Codec, CodecError};
use crate::model::Order;

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.2.1";

/// `musli::storage` with its default options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Musli;

impl Codec<Order> for Musli {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        musli::storage::encode(&mut *out, value).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        // `from_slice` fails on bytes after the value.
        musli::storage::from_slice(bytes).map_err(CodecError::decode)
    }
}

/// Müsli as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    super::described("musli", VERSION, "musli", || Musli)
}

// What Müsli cannot do for the Order model: `storage` is not self-describing (fields by
// position, a reader needs the same types; `musli::wire` would tolerate added fields); it has
// no `IndexMap`/`IndexSet` impls (the two `with` modules of `model::musli_with`); shared references come back
// as separate allocations; prices are the cents (no decimal type).
