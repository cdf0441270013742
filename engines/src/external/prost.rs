//! prost: Protocol Buffers (proto3) with message types derived in Rust, no `.proto` file and no
//! protoc.
//!
//! Protobuf cannot serialize the domain types: it needs its own message structs. So encode
//! converts the [`Order`] into `OrderMessage` and decode converts back, both inside the timed
//! round trip; that conversion (string and thumbnail copies included) is part of this engine's
//! figure, as it is for any program that keeps a domain model next to generated messages.
//! The schema, as a `.proto` would say it:
//!
//! ```text
//! message Order { string id = 1; Customer customer = 2; repeated OrderLine lines = 3;
//!   Status status = 4; int64 created = 5; Address shipping_address = 6;
//!   repeated Attribute attributes = 7; optional string notes = 8; }
//! message Attribute { string key = 1; string value = 2; }   // wire-identical to a map entry
//! message Customer { int64 id = 1; string first_name = 2; string last_name = 3; string email = 4;
//!   int64 date_of_birth = 5; bool vip = 6; repeated Address addresses = 7; }
//! message Address { string street = 1; string city = 2; string zip = 3; string country = 4; }
//! message OrderLine { Product product = 1; int32 quantity = 2; int64 unit_price_cents = 3;
//!   double discount = 4; }
//! message Product { string sku = 1; string name = 2; string description = 3;
//!   Category category = 4; int64 price_cents = 5; int32 weight_grams = 6;
//!   repeated string tags = 7; bytes thumbnail = 8; }
//! message Category { int64 id = 1; string name = 2; Category parent = 3; }
//! enum Status { NEW = 0; PAID = 1; PICKING = 2; SHIPPED = 3; DELIVERED = 4; CANCELLED = 5; }
//! ```
//!
//! Attributes are `repeated Attribute`, not `map<string, string>`: the two are the same bytes on
//! the wire, but prost decodes a map into a `HashMap`/`BTreeMap`, which loses the insertion order
//! the model keeps.

use super::mirror::{status_number, status_of_number};
use crate::model::Order;
use serprof_api::{Codec, CodecError};

/// The version of prost this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("prost", "0.14.")
}

/// prost, converting to and from the message types below inside encode and decode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prost;

impl Codec<Order> for Prost {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let message = OrderMessage::from(value);
        // `Vec<u8>` is a `BufMut` that grows: prost appends to the caller's buffer.
        prost::Message::encode(&message, out).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let message: OrderMessage =
            prost::Message::decode(&bytes[..]).map_err(CodecError::decode)?;
        Order::try_from(message)
    }
}

/// `Order`, as a Protobuf message.
#[derive(Clone, PartialEq, prost::Message)]
struct OrderMessage {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(message, optional, tag = "2")]
    pub customer: Option<CustomerMessage>,
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<OrderLineMessage>,
    #[prost(enumeration = "StatusMessage", tag = "4")]
    pub status: i32,
    #[prost(int64, tag = "5")]
    pub created: i64,
    #[prost(message, optional, tag = "6")]
    pub shipping_address: Option<AddressMessage>,
    #[prost(message, repeated, tag = "7")]
    pub attributes: Vec<AttributeMessage>,
    #[prost(string, optional, tag = "8")]
    pub notes: Option<String>,
}

/// One attribute entry; the same wire form as an entry of `map<string, string>`.
#[derive(Clone, PartialEq, prost::Message)]
struct AttributeMessage {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct CustomerMessage {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub first_name: String,
    #[prost(string, tag = "3")]
    pub last_name: String,
    #[prost(string, tag = "4")]
    pub email: String,
    #[prost(int64, tag = "5")]
    pub date_of_birth: i64,
    #[prost(bool, tag = "6")]
    pub vip: bool,
    #[prost(message, repeated, tag = "7")]
    pub addresses: Vec<AddressMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct AddressMessage {
    #[prost(string, tag = "1")]
    pub street: String,
    #[prost(string, tag = "2")]
    pub city: String,
    #[prost(string, tag = "3")]
    pub zip: String,
    #[prost(string, tag = "4")]
    pub country: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct OrderLineMessage {
    #[prost(message, optional, tag = "1")]
    pub product: Option<ProductMessage>,
    #[prost(int32, tag = "2")]
    pub quantity: i32,
    #[prost(int64, tag = "3")]
    pub unit_price_cents: i64,
    #[prost(double, tag = "4")]
    pub discount: f64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ProductMessage {
    #[prost(string, tag = "1")]
    pub sku: String,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(message, optional, tag = "4")]
    pub category: Option<CategoryMessage>,
    #[prost(int64, tag = "5")]
    pub price_cents: i64,
    #[prost(int32, tag = "6")]
    pub weight_grams: i32,
    #[prost(string, repeated, tag = "7")]
    pub tags: Vec<String>,
    #[prost(bytes = "vec", tag = "8")]
    pub thumbnail: Vec<u8>,
}

/// A category; the recursive `parent` must be boxed in a Rust struct.
#[derive(Clone, PartialEq, prost::Message)]
struct CategoryMessage {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, optional, boxed, tag = "3")]
    pub parent: Option<Box<CategoryMessage>>,
}

/// `OrderStatus`, numbered in declaration order (Java's ordinals); the field holds the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
enum StatusMessage {
    New = 0,
    Paid = 1,
    Picking = 2,
    Shipped = 3,
    Delivered = 4,
    Cancelled = 5,
}

mirror_conversions! {
    order: OrderMessage, customer: CustomerMessage, address: AddressMessage,
    line: OrderLineMessage, product: ProductMessage, category: CategoryMessage,
    some: Some, take: super::required,
    status: (status_number, status_of_number),
    attribute: (
        |k: &String, v: &String| AttributeMessage { key: k.clone(), value: v.clone() },
        |a: AttributeMessage| (a.key, a.value)
    ),
    parent: (
        |p: Option<CategoryMessage>| p.map(Box::new),
        |p: Option<Box<CategoryMessage>>| p.map(|b| *b)
    ),
    rest: {},
}

// What Protobuf (prost) cannot do for the Order model: it cannot serialize the domain types (the
// conversion above is part of every round trip); it has no decimal type (prices are cents) and no
// insertion-ordered map (attributes are repeated entries); a repeated tag that occurs twice would
// collapse silently in the set; fields equal to their default (0, "", false, NEW) are not written
// at all, so "absent" and "default" are the same on the wire; nested categories recurse without
// a depth limit of ours (prost's own recursion limit, 100, applies); and shared references are
// written once per use and come back as separate allocations.
