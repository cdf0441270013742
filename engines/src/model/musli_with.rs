//! Müsli's `#[musli(with = ...)]` modules for the model's ordered maps and sets (Müsli has no
//! `IndexMap`/`IndexSet` impls). They sit in the model, whose derives name them.

/// `#[musli(with = ...)]` for an `IndexMap`: a map, entries in insertion order (Müsli has no
/// `IndexMap` impls).
pub mod ordered_map {
    use std::hash::{BuildHasher, Hash};

    use indexmap::IndexMap;
    use musli::de::MapDecoder;
    use musli::en::MapEncoder;
    use musli::{Decode, Decoder, Encode, Encoder};

    /// Encodes the map's entries in insertion order.
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

    /// Decodes a map, keeping its entries' order.
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
    use std::hash::{BuildHasher, Hash};

    use indexmap::IndexSet;
    use musli::de::SequenceDecoder;
    use musli::en::SequenceEncoder;
    use musli::{Decode, Decoder, Encode, Encoder};

    /// Encodes the set's items in insertion order.
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

    /// Decodes a sequence into a set, keeping its order.
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
