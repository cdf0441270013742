//! The Order model: the Java object graph of `ej-technologies/serialization-comparison`, which
//! Ingo Kegel's articles serialize. An Order has a Customer with addresses, OrderLines of
//! Products in nested Categories with byte-array thumbnails, a status, an epoch-millisecond
//! timestamp, a shipping address, ordered attributes and optional notes.
//!
//! Shared references are `Arc`s: inside one Order, `shipping_address` is the same allocation as
//! `customer.addresses[0]`, a product bought on two lines is one `Arc<Product>`, and
//! sub-categories point to their root. Equality (`PartialEq`) compares values, not pointers;
//! [`Order::shares_references`] tells whether the sharing survived a round trip.

use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};
use serde::{Deserialize, Serialize};

#[cfg(feature = "nanoserde")]
use super::nanoserde_with::Unshared;
use super::{ByteArray, Decimal};

engine_derives! {
/// An Order: the value of the `orders` dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// Its identifier (`ORD-2026-000001`).
    pub id: String,
    /// Who placed it (shared among the customer's orders).
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Arc<Customer>>"))]
    pub customer: Arc<Customer>,
    /// What was ordered.
    pub lines: Vec<OrderLine>,
    /// Where it is in its life.
    pub status: OrderStatus,
    /// Epoch milliseconds.
    pub created: i64,
    /// Where it goes (one of the customer's addresses, shared).
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Arc<Address>>"))]
    pub shipping_address: Arc<Address>,
    /// Free-form key-value pairs, in insertion order.
    pub attributes: Attributes,
    /// A note, when there is one.
    pub notes: Option<String>,
}

/// A customer, shared by their orders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    /// Their identifier.
    pub id: i64,
    /// Their first name.
    pub first_name: String,
    /// Their last name.
    pub last_name: String,
    /// Their email address.
    pub email: String,
    /// Epoch milliseconds.
    pub date_of_birth: i64,
    /// Whether they are a VIP.
    pub vip: bool,
    /// Their addresses (shared with their orders' shipping addresses).
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Vec<Arc<Address>>>"))]
    pub addresses: Vec<Arc<Address>>,
}

/// A postal address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// City.
    pub city: String,
    /// Postal code.
    pub zip: String,
    /// Country.
    pub country: String,
}

/// One line of an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    /// The product (shared among the lines that order it).
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Arc<Product>>"))]
    pub product: Arc<Product>,
    /// How many.
    pub quantity: i32,
    /// The product's price (a shared `BigDecimal` in Java; an immutable value here).
    ///
    /// fory's derive takes any type named `Decimal` for its own; this selects ours.
    #[cfg_attr(feature = "fory", fory(with = super::DecimalCents))]
    pub unit_price: Decimal,
    /// The discount, a fraction of the price (0 when there is none).
    pub discount: f64,
}

/// A product of the catalogue, shared by the lines that order it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
pub struct Product {
    /// Its stock-keeping unit.
    pub sku: String,
    /// Its name.
    pub name: String,
    /// Its description text.
    pub description: String,
    /// Its category (shared).
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Arc<Category>>"))]
    pub category: Arc<Category>,
    /// fory's derive takes any type named `Decimal` for its own; this selects ours.
    #[cfg_attr(feature = "fory", fory(with = super::DecimalCents))]
    pub price: Decimal,
    /// Its weight in grams.
    pub weight_grams: i32,
    /// Its tags, in insertion order.
    pub tags: Tags,
    /// The thumbnail's bytes.
    pub thumbnail: ByteArray,
}

/// A product category; a category may have a parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyStruct))]
#[serde(rename_all = "camelCase")]
// rkyv: the recursive field omits the derive's bounds (they would never resolve); the
// serializer, deserializer and validator capabilities it needs are stated instead.
#[cfg_attr(
    feature = "rkyv",
    rkyv(
        serialize_bounds(
            __S: rkyv::ser::Writer + rkyv::ser::Allocator + rkyv::ser::Sharing,
            <__S as rkyv::rancor::Fallible>::Error: rkyv::rancor::Source,
        ),
        deserialize_bounds(
            __D: rkyv::de::Pooling,
            <__D as rkyv::rancor::Fallible>::Error: rkyv::rancor::Source,
        ),
        bytecheck(bounds(
            __C: rkyv::validation::ArchiveContext + rkyv::validation::SharedContext,
            <__C as rkyv::rancor::Fallible>::Error: rkyv::rancor::Source,
        ))
    )
)]
pub struct Category {
    /// Its identifier.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The category it belongs to, if any (shared).
    #[cfg_attr(feature = "rkyv", rkyv(omit_bounds))]
    #[cfg_attr(feature = "nanoserde", nserde(proxy = "Unshared<Option<Arc<Category>>>"))]
    pub parent: Option<Arc<Category>>,
}

/// Where an order is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
#[cfg_attr(feature = "fory", derive(fory::ForyEnum))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Placed.
    New,
    /// Paid for.
    Paid,
    /// Being picked in the warehouse.
    Picking,
    /// On its way.
    Shipped,
    /// Delivered.
    Delivered,
    /// Cancelled.
    Cancelled,
}
}

impl OrderStatus {
    /// Every status, in declaration order (Java's `values()`).
    pub const ALL: [OrderStatus; 6] = [
        OrderStatus::New,
        OrderStatus::Paid,
        OrderStatus::Picking,
        OrderStatus::Shipped,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
    ];

    /// The Java enum constant's name, as Jackson writes it.
    pub fn name(self) -> &'static str {
        match self {
            OrderStatus::New => "NEW",
            OrderStatus::Paid => "PAID",
            OrderStatus::Picking => "PICKING",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
        }
    }

    /// The status whose [`name`](Self::name) is `name`.
    pub fn from_name(name: &str) -> Option<OrderStatus> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The hasher of the model's maps and sets: SipHash with fixed keys. `RandomState` draws new
/// keys in every process, so probe sequences and key comparisons, and with them instruction
/// counts, would differ from run to run; SipHash with fixed keys costs the same per hash.
pub type FixedHasher = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
/// An insertion-ordered map with the [`FixedHasher`].
pub type OrderedMap<K, V> = IndexMap<K, V, FixedHasher>;
/// An insertion-ordered set with the [`FixedHasher`].
pub type OrderedSet<T> = IndexSet<T, FixedHasher>;

engine_derives! {
/// Insertion-ordered attributes (Java's `LinkedHashMap`). Equality is order-sensitive: an engine
/// that reorders entries does not round-trip.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "musli", musli(transparent))]
pub struct Attributes(
    #[cfg_attr(feature = "musli", musli(with = crate::model::musli_with::ordered_map))]
    pub OrderedMap<String, String>,
);
}

impl PartialEq for Attributes {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().eq(other.0.iter())
    }
}

engine_derives! {
/// An insertion-ordered set of tags (Java's `LinkedHashSet`); order-sensitive equality.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "musli", musli(transparent))]
pub struct Tags(
    #[cfg_attr(feature = "musli", musli(with = crate::model::musli_with::ordered_set))]
    pub OrderedSet<String>,
);
}

impl PartialEq for Tags {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().eq(other.0.iter())
    }
}

impl Order {
    /// Whether the references the dataset generator shares are still shared: the shipping
    /// address is the customer's first address, and equal products on two lines are one
    /// allocation. Engines that rebuild every value on decode return `false` here.
    pub fn shares_references(&self) -> bool {
        let address_shared = self
            .customer
            .addresses
            .first()
            .is_some_and(|a| Arc::ptr_eq(a, &self.shipping_address));
        let products_shared = self.lines.iter().enumerate().all(|(i, a)| {
            self.lines[..i]
                .iter()
                .all(|b| a.product != b.product || Arc::ptr_eq(&a.product, &b.product))
        });
        address_shared && products_shared
    }

    /// The first difference between two Orders, as a path and both values, for verification
    /// messages (`"lines[3].product.thumbnail: 323 bytes vs 322 bytes"`).
    pub fn first_difference(&self, other: &Order) -> Option<String> {
        first_difference(self, other)
    }
}

fn differ<T: PartialEq + std::fmt::Debug>(path: &str, a: &T, b: &T) -> Option<String> {
    (a != b).then(|| {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        let cut = |s: String| {
            if s.chars().count() > 80 {
                format!("{}...", s.chars().take(77).collect::<String>())
            } else {
                s
            }
        };
        format!("{path}: expected {}, got {}", cut(a), cut(b))
    })
}

fn first_difference(a: &Order, b: &Order) -> Option<String> {
    let (ca, cb) = (&a.customer, &b.customer);
    let mut found = differ("id", &a.id, &b.id)
        .or_else(|| differ("customer.id", &ca.id, &cb.id))
        .or_else(|| differ("customer.firstName", &ca.first_name, &cb.first_name))
        .or_else(|| differ("customer.lastName", &ca.last_name, &cb.last_name))
        .or_else(|| differ("customer.email", &ca.email, &cb.email))
        .or_else(|| differ("customer.dateOfBirth", &ca.date_of_birth, &cb.date_of_birth))
        .or_else(|| differ("customer.vip", &ca.vip, &cb.vip))
        .or_else(|| differ("customer.addresses", &ca.addresses, &cb.addresses))
        .or_else(|| differ("lines.len", &a.lines.len(), &b.lines.len()));
    if found.is_none() {
        for (i, (la, lb)) in a.lines.iter().zip(&b.lines).enumerate() {
            let (pa, pb) = (&la.product, &lb.product);
            let p = |f: &str| format!("lines[{i}].{f}");
            found = differ(&p("quantity"), &la.quantity, &lb.quantity)
                .or_else(|| differ(&p("unitPrice"), &la.unit_price, &lb.unit_price))
                .or_else(|| differ(&p("discount"), &la.discount, &lb.discount))
                .or_else(|| differ(&p("product.sku"), &pa.sku, &pb.sku))
                .or_else(|| differ(&p("product.name"), &pa.name, &pb.name))
                .or_else(|| differ(&p("product.description"), &pa.description, &pb.description))
                .or_else(|| differ(&p("product.category"), &pa.category, &pb.category))
                .or_else(|| differ(&p("product.price"), &pa.price, &pb.price))
                .or_else(|| differ(&p("product.weightGrams"), &pa.weight_grams, &pb.weight_grams))
                .or_else(|| differ(&p("product.tags"), &pa.tags, &pb.tags))
                .or_else(|| {
                    (pa.thumbnail != pb.thumbnail).then(|| {
                        format!(
                            "lines[{i}].product.thumbnail: expected {} bytes, got {} bytes (first difference at byte {})",
                            pa.thumbnail.0.len(),
                            pb.thumbnail.0.len(),
                            pa.thumbnail.0.iter().zip(&pb.thumbnail.0).take_while(|(x, y)| x == y).count()
                        )
                    })
                });
            if found.is_some() {
                break;
            }
        }
    }
    found
        .or_else(|| differ("status", &a.status, &b.status))
        .or_else(|| differ("created", &a.created, &b.created))
        .or_else(|| differ("shippingAddress", &a.shipping_address, &b.shipping_address))
        .or_else(|| differ("attributes", &a.attributes, &b.attributes))
        .or_else(|| differ("notes", &a.notes, &b.notes))
        .or_else(|| (a != b).then(|| "values differ".to_string()))
}

/// nanoserde's impls of the ordered collections (its derive has no IndexMap or IndexSet); the
/// `Arc` proxies the derives name live in `nanoserde_with`.
#[cfg(feature = "nanoserde")]
mod nanoserde_impls {
    use nanoserde::{DeBin, DeBinErr, SerBin};

    use super::{Attributes, OrderedMap, OrderedSet, Tags};

    /// The attributes as nanoserde writes a `Vec<(String, String)>`: a u64 count, then each key and
    /// value, in insertion order.
    impl SerBin for Attributes {
        fn ser_bin(&self, s: &mut Vec<u8>) {
            self.0.len().ser_bin(s);
            for (k, v) in &self.0 {
                k.ser_bin(s);
                v.ser_bin(s);
            }
        }
    }

    impl DeBin for Attributes {
        fn de_bin(o: &mut usize, d: &[u8]) -> Result<Self, DeBinErr> {
            let entries = Vec::<(String, String)>::de_bin(o, d)?;
            let mut map = OrderedMap::with_capacity_and_hasher(entries.len(), Default::default());
            map.extend(entries);
            Ok(Attributes(map))
        }
    }

    /// The tags as nanoserde writes a `Vec<String>`, in insertion order.
    impl SerBin for Tags {
        fn ser_bin(&self, s: &mut Vec<u8>) {
            self.0.len().ser_bin(s);
            for tag in &self.0 {
                tag.ser_bin(s);
            }
        }
    }

    impl DeBin for Tags {
        fn de_bin(o: &mut usize, d: &[u8]) -> Result<Self, DeBinErr> {
            let tags = Vec::<String>::de_bin(o, d)?;
            let mut set = OrderedSet::with_capacity_and_hasher(tags.len(), Default::default());
            set.extend(tags);
            Ok(Tags(set))
        }
    }
}
