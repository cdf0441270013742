//! Müsli: `musli::storage`, its compact format (variable-length integers, fields in declaration
//! order, no names), through its derives on the model's types.

use std::hash::{BuildHasher, Hash};

use indexmap::{IndexMap, IndexSet};
use musli::de::{MapDecoder, SequenceDecoder};
use musli::en::{MapEncoder, SequenceEncoder};
use musli::{Decoder, Encoder};

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

/// `#[musli(with = ...)]` for an `IndexMap`: a map, entries in insertion order (Müsli has no
/// `IndexMap` impls).
pub mod ordered_map {
    use super::*;
    use musli::{Decode, Encode};

    pub fn encode<E: Encoder, K: Encode<E::Mode>, V: Encode<E::Mode>, S>(
        map: &IndexMap<K, V, S>,
        encoder: E,
    ) -> Result<(), E::Error> {
        encoder.encode_map_fn(map.len(), |m| {
            for (k, v) in map {
                m.insert_entry(k, v)?;
            }
            Ok(())
        })
    }

    pub fn decode<'de, D, K, V, S>(decoder: D) -> Result<IndexMap<K, V, S>, D::Error>
    where
        D: Decoder<'de>,
        K: Decode<'de, D::Mode, D::Allocator> + Hash + Eq,
        V: Decode<'de, D::Mode, D::Allocator>,
        S: BuildHasher + Default,
    {
        decoder.decode_map(|m| {
            let mut out = IndexMap::with_hasher(S::default());
            while let Some((k, v)) = m.entry::<K, V>()? {
                out.insert(k, v);
            }
            Ok(out)
        })
    }
}

/// `#[musli(with = ...)]` for an `IndexSet`: a sequence in insertion order.
pub mod ordered_set {
    use super::*;
    use musli::{Decode, Encode};

    pub fn encode<E: Encoder, T: Encode<E::Mode>, S>(
        set: &IndexSet<T, S>,
        encoder: E,
    ) -> Result<(), E::Error> {
        encoder.encode_sequence_fn(set.len(), |seq| {
            for item in set {
                seq.push(item)?;
            }
            Ok(())
        })
    }

    pub fn decode<'de, D, T, S>(decoder: D) -> Result<IndexSet<T, S>, D::Error>
    where
        D: Decoder<'de>,
        T: Decode<'de, D::Mode, D::Allocator> + Hash + Eq,
        S: BuildHasher + Default,
    {
        decoder.decode_sequence(|seq| {
            let mut out = IndexSet::with_hasher(S::default());
            while let Some(item) = seq.try_next::<T>()? {
                out.insert(item);
            }
            Ok(out)
        })
    }
}

// What Müsli cannot do for the Order model: `storage` is not self-describing (fields by
// position, a reader needs the same types; `musli::wire` would tolerate added fields); it has
// no `IndexMap`/`IndexSet` impls (the two `with` modules above); shared references come back
// as separate allocations; prices are the cents (no decimal type).
