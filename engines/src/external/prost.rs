//! prost: Protocol Buffers (proto3) with message types derived in Rust, no `.proto` file and no
//! protoc.
//!
//! Protobuf cannot serialize the domain types: it needs its own message structs. So encode
//! converts the [`Order`] into [`OrderMessage`] and decode converts back, both inside the timed
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

use std::sync::Arc;

use super::required;
use crate::codec::{Codec, CodecError};
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.14.6";

/// prost, converting to and from the message types below inside encode and decode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prost;

impl Codec<Order> for Prost {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let message = OrderMessage::from_order(value);
        // `Vec<u8>` is a `BufMut` that grows: prost appends to the caller's buffer.
        prost::Message::encode(&message, out).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let message: OrderMessage =
            prost::Message::decode(&bytes[..]).map_err(CodecError::decode)?;
        message.into_order()
    }
}

/// `Order`, as a Protobuf message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OrderMessage {
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
pub struct AttributeMessage {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CustomerMessage {
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
pub struct AddressMessage {
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
pub struct OrderLineMessage {
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
pub struct ProductMessage {
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
pub struct CategoryMessage {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, optional, boxed, tag = "3")]
    pub parent: Option<Box<CategoryMessage>>,
}

/// `OrderStatus`, numbered in declaration order (Java's ordinals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum StatusMessage {
    New = 0,
    Paid = 1,
    Picking = 2,
    Shipped = 3,
    Delivered = 4,
    Cancelled = 5,
}

impl OrderMessage {
    /// Copies an Order into messages (every string, every thumbnail, every shared value once per
    /// use).
    pub fn from_order(o: &Order) -> OrderMessage {
        OrderMessage {
            id: o.id.clone(),
            customer: Some(CustomerMessage::from_customer(&o.customer)),
            lines: o.lines.iter().map(OrderLineMessage::from_line).collect(),
            status: StatusMessage::from_status(o.status) as i32,
            created: o.created,
            shipping_address: Some(AddressMessage::from_address(&o.shipping_address)),
            attributes: o
                .attributes
                .0
                .iter()
                .map(|(k, v)| AttributeMessage {
                    key: k.clone(),
                    value: v.clone(),
                })
                .collect(),
            notes: o.notes.clone(),
        }
    }

    /// Moves the decoded messages into an Order; a missing required message is an error.
    pub fn into_order(self) -> Result<Order, CodecError> {
        let status = StatusMessage::try_from(self.status)
            .map_err(|e| CodecError::decode(format_args!("order status: {e}")))?;
        let mut attributes =
            OrderedMap::with_capacity_and_hasher(self.attributes.len(), Default::default());
        for a in self.attributes {
            attributes.insert(a.key, a.value);
        }
        Ok(Order {
            id: self.id,
            customer: Arc::new(required(self.customer, "Order.customer")?.into_customer()),
            lines: self
                .lines
                .into_iter()
                .map(OrderLineMessage::into_line)
                .collect::<Result<_, _>>()?,
            status: status.into_status(),
            created: self.created,
            shipping_address: Arc::new(
                required(self.shipping_address, "Order.shippingAddress")?.into_address(),
            ),
            attributes: Attributes(attributes),
            notes: self.notes,
        })
    }
}

impl CustomerMessage {
    fn from_customer(c: &Customer) -> CustomerMessage {
        CustomerMessage {
            id: c.id,
            first_name: c.first_name.clone(),
            last_name: c.last_name.clone(),
            email: c.email.clone(),
            date_of_birth: c.date_of_birth,
            vip: c.vip,
            addresses: c
                .addresses
                .iter()
                .map(|a| AddressMessage::from_address(a))
                .collect(),
        }
    }

    fn into_customer(self) -> Customer {
        Customer {
            id: self.id,
            first_name: self.first_name,
            last_name: self.last_name,
            email: self.email,
            date_of_birth: self.date_of_birth,
            vip: self.vip,
            addresses: self
                .addresses
                .into_iter()
                .map(|a| Arc::new(a.into_address()))
                .collect(),
        }
    }
}

impl AddressMessage {
    fn from_address(a: &Address) -> AddressMessage {
        AddressMessage {
            street: a.street.clone(),
            city: a.city.clone(),
            zip: a.zip.clone(),
            country: a.country.clone(),
        }
    }

    fn into_address(self) -> Address {
        Address {
            street: self.street,
            city: self.city,
            zip: self.zip,
            country: self.country,
        }
    }
}

impl OrderLineMessage {
    fn from_line(l: &OrderLine) -> OrderLineMessage {
        OrderLineMessage {
            product: Some(ProductMessage::from_product(&l.product)),
            quantity: l.quantity,
            unit_price_cents: l.unit_price.cents,
            discount: l.discount,
        }
    }

    fn into_line(self) -> Result<OrderLine, CodecError> {
        Ok(OrderLine {
            product: Arc::new(required(self.product, "OrderLine.product")?.into_product()?),
            quantity: self.quantity,
            unit_price: Decimal::from_cents(self.unit_price_cents),
            discount: self.discount,
        })
    }
}

impl ProductMessage {
    fn from_product(p: &Product) -> ProductMessage {
        ProductMessage {
            sku: p.sku.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            category: Some(CategoryMessage::from_category(&p.category)),
            price_cents: p.price.cents,
            weight_grams: p.weight_grams,
            tags: p.tags.0.iter().cloned().collect(),
            thumbnail: p.thumbnail.0.clone(),
        }
    }

    fn into_product(self) -> Result<Product, CodecError> {
        Ok(Product {
            sku: self.sku,
            name: self.name,
            description: self.description,
            category: Arc::new(required(self.category, "Product.category")?.into_category()),
            price: Decimal::from_cents(self.price_cents),
            weight_grams: self.weight_grams,
            tags: Tags(self.tags.into_iter().collect::<OrderedSet<_>>()),
            thumbnail: ByteArray(self.thumbnail),
        })
    }
}

impl CategoryMessage {
    fn from_category(c: &Category) -> CategoryMessage {
        CategoryMessage {
            id: c.id,
            name: c.name.clone(),
            parent: c
                .parent
                .as_deref()
                .map(|p| Box::new(CategoryMessage::from_category(p))),
        }
    }

    fn into_category(self) -> Category {
        Category {
            id: self.id,
            name: self.name,
            parent: self.parent.map(|p| Arc::new(p.into_category())),
        }
    }
}

impl StatusMessage {
    fn from_status(s: OrderStatus) -> StatusMessage {
        match s {
            OrderStatus::New => StatusMessage::New,
            OrderStatus::Paid => StatusMessage::Paid,
            OrderStatus::Picking => StatusMessage::Picking,
            OrderStatus::Shipped => StatusMessage::Shipped,
            OrderStatus::Delivered => StatusMessage::Delivered,
            OrderStatus::Cancelled => StatusMessage::Cancelled,
        }
    }

    fn into_status(self) -> OrderStatus {
        match self {
            StatusMessage::New => OrderStatus::New,
            StatusMessage::Paid => OrderStatus::Paid,
            StatusMessage::Picking => OrderStatus::Picking,
            StatusMessage::Shipped => OrderStatus::Shipped,
            StatusMessage::Delivered => OrderStatus::Delivered,
            StatusMessage::Cancelled => OrderStatus::Cancelled,
        }
    }
}

// What Protobuf (prost) cannot do for the Order model: it cannot serialize the domain types (the
// conversion above is part of every round trip); it has no decimal type (prices are cents) and no
// insertion-ordered map (attributes are repeated entries); a repeated tag that occurs twice would
// collapse silently in the set; fields equal to their default (0, "", false, NEW) are not written
// at all, so "absent" and "default" are the same on the wire; nested categories recurse without
// a depth limit of ours (prost's own recursion limit, 100, applies); and shared references are
// written once per use and come back as separate allocations.
