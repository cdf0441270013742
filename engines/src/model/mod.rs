//! The plain Rust types every engine serializes: the Order graph and the Sample list of the
//! reflection study.
//!
//! Serde derives here follow the Jackson mapping as far as serde allows; see [`Decimal`] and
//! [`ByteArray`] for the two places where the wire form depends on the engine.

/// Puts the derives of the engines that derive their traits on the model's own types (rkyv,
/// borsh, wincode, Müsli) on every item it wraps, each behind its engine's feature. Their
/// field and container options stay on the items. nanoserde's derives are on each item that
/// takes them (the attributes and tags have impls in `nanoserde_with` instead).
macro_rules! engine_derives {
    ($($item:item)*) => {$(
        #[cfg_attr(feature = "rkyv", derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize))]
        #[cfg_attr(feature = "borsh", derive(borsh::BorshSerialize, borsh::BorshDeserialize))]
        #[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
        #[cfg_attr(feature = "musli", derive(musli::Encode, musli::Decode))]
        $item
    )*};
}

pub mod bytes;
pub mod decimal;
pub mod digest;
#[cfg(feature = "musli")]
pub mod musli_with;
#[cfg(feature = "nanoserde")]
pub mod nanoserde_with;
pub mod order;
pub mod sample;

pub use bytes::{with_serde_bytes, ByteArray, SerdeBytes};
pub use decimal::{Decimal, DecimalCents, DecimalError};
pub use digest::Digest;
pub use order::{
    Address, Attributes, Category, Customer, FixedHasher, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};
pub use sample::{Sample, SampleAddress};
