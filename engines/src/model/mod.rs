//! The plain Rust types every engine serializes: the Order graph and the Sample list of the
//! reflection study.
//!
//! Serde derives here follow the Jackson mapping as far as serde allows; see [`Decimal`] and
//! [`ByteArray`] for the two places where the wire form depends on the engine.

pub mod bytes;
pub mod decimal;
pub mod order;
pub mod sample;

pub use bytes::{with_serde_bytes, ByteArray, SerdeBytes};
pub use decimal::{Decimal, DecimalCents, DecimalError};
pub use order::{
    Address, Attributes, Category, Customer, FixedHasher, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};
pub use sample::{Sample, SampleAddress};
