//! Müsli: `musli::storage`, its compact format (variable-length integers, fields in declaration
//! order, no names), through its derives on the model's types.

use serprof_api::{Codec, CodecError};

/// The version of musli this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("musli", "0.2.")
}

/// `musli::storage` with its default options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Musli;

impl<
        T: musli::Encode<musli::mode::Binary>
            + for<'de> musli::Decode<'de, musli::mode::Binary, musli::alloc::Global>,
    > Codec<T> for Musli
{
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        musli::storage::encode(&mut *out, value).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        // `from_slice` fails on bytes after the value.
        musli::storage::from_slice(bytes).map_err(CodecError::decode)
    }
}

/// Müsli (`musli::storage`) on any type that derives its traits (`Encode`, `Decode`).
pub fn engine<
    T: serprof_api::Value
        + musli::Encode<musli::mode::Binary>
        + for<'de> musli::Decode<'de, musli::mode::Binary, musli::alloc::Global>,
>() -> serprof_api::Engine<T> {
    super::described("musli", version(), "musli", || Musli)
        .call("musli::storage::encode, musli::storage::from_slice")
}

// What Müsli cannot do for the Order model: `storage` is not self-describing (fields by
// position, a reader needs the same types; `musli::wire` would tolerate added fields); it has
// no `IndexMap`/`IndexSet` impls (the two `with` modules of `model::musli_with`); shared references come back
// as separate allocations; prices are the cents (no decimal type).
