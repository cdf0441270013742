//! bilrost: a Protobuf-like tagged binary format (varints, length-delimited messages, fields in
//! ascending tag order, empty values not written) with message types derived in Rust.
//!
//! bilrost's derive cannot take the domain types: it has no `Arc` for messages, its maps are
//! `BTreeMap`/`HashMap` (no insertion order), and `Vec<u8>` is a list of integers unless it is
//! told `plainbytes`. So encode converts the [`Order`] into the mirror messages below and decode
//! converts back, both inside the timed round trip, as the prost adapter does. The mirror keeps
//! every field in the model's order, tags 1, 2, ...; attributes are a list of `(key, value)`
//! tuples, tags a list of strings, the thumbnail `plainbytes`, the category's parent a boxed
//! message marked `recurses`; the nested messages are optional fields that decode requires, so a
//! payload without them (an empty one, say) is an error, not an Order of defaults.

use bilrost::buf::ReverseBuffer;
use bilrost::{Message, OwnedMessage};

use crate::model::{Order, OrderStatus};
use serprof_api::{Codec, CodecError};

/// The version of bilrost this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("bilrost", "0.1016.")
}

/// bilrost, converting to and from the mirror messages below inside encode and decode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bilrost;

impl Codec<Order> for Bilrost {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `Vec<u8>` is a `BufMut` that grows: bilrost appends to the caller's buffer.
        OrderMsg::from(value)
            .encode(out)
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        // `decode` reads the whole slice: bytes after the message are an error (a field of a
        // broken tag), never ignored.
        let message = OrderMsg::decode(&bytes[..]).map_err(CodecError::decode)?;
        Order::try_from(message)
    }
}

/// bilrost on a type that derives its `Message` itself: written and read directly, no mirror.
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

impl<T: OwnedMessage> Codec<T> for Direct {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        value.encode(out).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        T::decode(&bytes[..]).map_err(CodecError::decode)
    }
}

/// bilrost on any type that derives its `Message` (`#[derive(bilrost::Message)]`).
pub fn engine<T: serprof_api::Value + OwnedMessage>() -> serprof_api::Engine<T> {
    super::described("bilrost", version(), "bilrost", || Direct)
        .call("bilrost::Message::encode, OwnedMessage::decode")
}

/// bilrost's other way to write: [`Message::prepend`] into a [`ReverseBuffer`] the codec
/// keeps and reuses, which writes the message from its last byte to its first (each nested
/// message's length known when it is prepended, so nothing is measured twice). The payload is
/// the same bytes as [`Message::encode`]'s.
#[derive(Default)]
pub struct Prepend {
    buffer: ReverseBuffer,
}

impl Prepend {
    /// The capacity of the buffer kept from one call to the next.
    pub fn capacity(&self) -> usize {
        self.buffer.capacity()
    }
}

impl Prepend {
    /// The value prepended into the cleared buffer, in one chunk: when the payload spans
    /// several (the first call, or a larger value), the buffer is replaced by one a quarter and
    /// 1 KiB larger than the payload and the value prepended again, so that every later call of
    /// that size writes into one chunk without allocating.
    fn prepend<T: Message>(&mut self, value: &T) -> Result<&[u8], CodecError> {
        self.buffer.clear();
        value.prepend(&mut self.buffer);
        if self.buffer.contiguous().is_none() {
            let len = self.buffer.len();
            self.buffer = ReverseBuffer::with_capacity(len + len / 4 + 1024);
            value.prepend(&mut self.buffer);
        }
        self.buffer.contiguous().ok_or_else(|| {
            CodecError::encode("bilrost's prepend spanned two chunks of a buffer with room for it")
        })
    }
}

impl<T: OwnedMessage> Codec<T> for Prepend {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.extend_from_slice(self.prepend(value)?);
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        Direct.decode(bytes)
    }

    /// The serialize loop's call: the payload is left in the codec's buffer, as rsb's
    /// `prepend` row leaves it (`out` is not written).
    fn encode_to_slice<'a>(
        &'a mut self,
        value: &T,
        _out: &'a mut [u8],
    ) -> Option<Result<&'a [u8], CodecError>> {
        Some(self.prepend(value))
    }
}

/// bilrost's `prepend` on any type that derives its `Message`, measured on serialize only (its
/// payload and its decode are [`engine`]'s): rust_serialization_benchmark's second bilrost
/// serialize row, as the engine `bilrost-prepend`.
pub fn prepend_engine<T: serprof_api::Value + OwnedMessage>() -> serprof_api::Engine<T> {
    super::described("bilrost", version(), "bilrost", Prepend::default)
        .named("bilrost-prepend")
        .call("bilrost::Message::prepend into a reused bilrost::buf::ReverseBuffer, OwnedMessage::decode")
        .only([serprof_api::Operation::Serialize])
}

/// bilrost on the Order, through the mirror messages (the `formats` study).
pub fn order_engine() -> serprof_api::Engine<Order> {
    super::described("bilrost", version(), "bilrost", || Bilrost)
        .call("bilrost::Message::encode, OwnedMessage::decode (through the mirror messages)")
}

/// `Order`.
#[derive(Debug, Clone, PartialEq, Message)]
struct OrderMsg {
    #[bilrost(1)]
    pub id: String,
    #[bilrost(2)]
    pub customer: Option<CustomerMsg>,
    #[bilrost(3)]
    pub lines: Vec<OrderLineMsg>,
    #[bilrost(4)]
    pub status: StatusMsg,
    #[bilrost(5)]
    pub created: i64,
    #[bilrost(6)]
    pub shipping_address: Option<AddressMsg>,
    /// The attributes in insertion order.
    #[bilrost(7)]
    pub attributes: Vec<(String, String)>,
    #[bilrost(8)]
    pub notes: Option<String>,
}

/// `Customer`.
#[derive(Debug, Clone, PartialEq, Message)]
struct CustomerMsg {
    #[bilrost(1)]
    pub id: i64,
    #[bilrost(2)]
    pub first_name: String,
    #[bilrost(3)]
    pub last_name: String,
    #[bilrost(4)]
    pub email: String,
    #[bilrost(5)]
    pub date_of_birth: i64,
    #[bilrost(6)]
    pub vip: bool,
    #[bilrost(7)]
    pub addresses: Vec<AddressMsg>,
}

/// `Address`.
#[derive(Debug, Clone, PartialEq, Message)]
struct AddressMsg {
    #[bilrost(1)]
    pub street: String,
    #[bilrost(2)]
    pub city: String,
    #[bilrost(3)]
    pub zip: String,
    #[bilrost(4)]
    pub country: String,
}

/// `OrderLine`; the unit price in cents.
#[derive(Debug, Clone, PartialEq, Message)]
struct OrderLineMsg {
    #[bilrost(1)]
    pub product: Option<ProductMsg>,
    #[bilrost(2)]
    pub quantity: i32,
    #[bilrost(3)]
    pub unit_price_cents: i64,
    #[bilrost(4)]
    pub discount: f64,
}

/// `Product`; the price in cents, the tags in insertion order, the thumbnail as bytes.
#[derive(Debug, Clone, PartialEq, Message)]
struct ProductMsg {
    #[bilrost(1)]
    pub sku: String,
    #[bilrost(2)]
    pub name: String,
    #[bilrost(3)]
    pub description: String,
    #[bilrost(4)]
    pub category: Option<CategoryMsg>,
    #[bilrost(5)]
    pub price_cents: i64,
    #[bilrost(6)]
    pub weight_grams: i32,
    #[bilrost(7)]
    pub tags: Vec<String>,
    #[bilrost(tag(8), encoding(plainbytes))]
    pub thumbnail: Vec<u8>,
}

/// `Category`; `recurses` breaks the derive's trait cycle through the boxed parent.
#[derive(Debug, Clone, PartialEq, Message)]
struct CategoryMsg {
    #[bilrost(1)]
    pub id: i64,
    #[bilrost(2)]
    pub name: String,
    #[bilrost(tag(3), recurses)]
    pub parent: Option<Box<CategoryMsg>>,
}

/// `OrderStatus`, numbered in declaration order; `New` is the zero value bilrost requires of an
/// enumeration used directly as a field (and does not write).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bilrost::Enumeration)]
enum StatusMsg {
    New = 0,
    Paid = 1,
    Picking = 2,
    Shipped = 3,
    Delivered = 4,
    Cancelled = 5,
}

mirror_conversions! {
    order: OrderMsg, customer: CustomerMsg, address: AddressMsg,
    line: OrderLineMsg, product: ProductMsg, category: CategoryMsg,
    some: Some, take: super::required,
    status: (StatusMsg::from, |s: StatusMsg| Ok::<_, CodecError>(OrderStatus::from(s))),
    attribute: (|k: &String, v: &String| (k.clone(), v.clone()), std::convert::identity),
    parent: (
        |p: Option<CategoryMsg>| p.map(Box::new),
        |p: Option<Box<CategoryMsg>>| p.map(|b| *b)
    ),
    rest: {},
}

impl From<OrderStatus> for StatusMsg {
    fn from(s: OrderStatus) -> StatusMsg {
        match s {
            OrderStatus::New => StatusMsg::New,
            OrderStatus::Paid => StatusMsg::Paid,
            OrderStatus::Picking => StatusMsg::Picking,
            OrderStatus::Shipped => StatusMsg::Shipped,
            OrderStatus::Delivered => StatusMsg::Delivered,
            OrderStatus::Cancelled => StatusMsg::Cancelled,
        }
    }
}

impl From<StatusMsg> for OrderStatus {
    fn from(s: StatusMsg) -> OrderStatus {
        match s {
            StatusMsg::New => OrderStatus::New,
            StatusMsg::Paid => OrderStatus::Paid,
            StatusMsg::Picking => OrderStatus::Picking,
            StatusMsg::Shipped => OrderStatus::Shipped,
            StatusMsg::Delivered => OrderStatus::Delivered,
            StatusMsg::Cancelled => OrderStatus::Cancelled,
        }
    }
}

// What bilrost cannot do for the Order model: it cannot serialize the domain types (no `Arc`
// messages, no insertion-ordered map; hence the mirror above, whose conversion is part of every
// round trip); it has no decimal type (prices are cents); a tag that occurs twice collapses
// silently in the set, and an attribute key twice keeps the last value; values equal to their
// default (0, "", false, NEW) are not written, so "absent" and "default" are
// the same on the wire; shared references are written once per use and come back as separate
// allocations.
