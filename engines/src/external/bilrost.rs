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

use std::sync::Arc;

use bilrost::{Message, OwnedMessage};

use super::required;
use crate::codec::{Codec, CodecError};
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    Product, Tags,
};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.1016.3";

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

/// bilrost as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    super::described("bilrost", VERSION, "bilrost", || Bilrost)
}

/// `Order`.
#[derive(Debug, Clone, PartialEq, Message)]
pub struct OrderMsg {
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
pub struct CustomerMsg {
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
pub struct AddressMsg {
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
pub struct OrderLineMsg {
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
pub struct ProductMsg {
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
pub struct CategoryMsg {
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
pub enum StatusMsg {
    New = 0,
    Paid = 1,
    Picking = 2,
    Shipped = 3,
    Delivered = 4,
    Cancelled = 5,
}

impl From<&Order> for OrderMsg {
    /// Copies every string and thumbnail; shared values once per use.
    fn from(o: &Order) -> OrderMsg {
        OrderMsg {
            id: o.id.clone(),
            customer: Some(CustomerMsg::from(o.customer.as_ref())),
            lines: o.lines.iter().map(OrderLineMsg::from).collect(),
            status: StatusMsg::from(o.status),
            created: o.created,
            shipping_address: Some(AddressMsg::from(o.shipping_address.as_ref())),
            attributes: o
                .attributes
                .0
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            notes: o.notes.clone(),
        }
    }
}

impl TryFrom<OrderMsg> for Order {
    type Error = CodecError;

    /// Moves the decoded messages into an Order; a missing message is an error.
    fn try_from(m: OrderMsg) -> Result<Order, CodecError> {
        Ok(Order {
            id: m.id,
            customer: Arc::new(required(m.customer, "OrderMsg.customer")?.into()),
            lines: m
                .lines
                .into_iter()
                .map(OrderLine::try_from)
                .collect::<Result<_, _>>()?,
            status: m.status.into(),
            created: m.created,
            shipping_address: Arc::new(
                required(m.shipping_address, "OrderMsg.shipping_address")?.into(),
            ),
            attributes: Attributes(m.attributes.into_iter().collect()),
            notes: m.notes,
        })
    }
}

impl From<&Customer> for CustomerMsg {
    fn from(c: &Customer) -> CustomerMsg {
        CustomerMsg {
            id: c.id,
            first_name: c.first_name.clone(),
            last_name: c.last_name.clone(),
            email: c.email.clone(),
            date_of_birth: c.date_of_birth,
            vip: c.vip,
            addresses: c
                .addresses
                .iter()
                .map(|a| AddressMsg::from(a.as_ref()))
                .collect(),
        }
    }
}

impl From<CustomerMsg> for Customer {
    fn from(m: CustomerMsg) -> Customer {
        Customer {
            id: m.id,
            first_name: m.first_name,
            last_name: m.last_name,
            email: m.email,
            date_of_birth: m.date_of_birth,
            vip: m.vip,
            addresses: m
                .addresses
                .into_iter()
                .map(|a| Arc::new(a.into()))
                .collect(),
        }
    }
}

impl From<&Address> for AddressMsg {
    fn from(a: &Address) -> AddressMsg {
        AddressMsg {
            street: a.street.clone(),
            city: a.city.clone(),
            zip: a.zip.clone(),
            country: a.country.clone(),
        }
    }
}

impl From<AddressMsg> for Address {
    fn from(m: AddressMsg) -> Address {
        Address {
            street: m.street,
            city: m.city,
            zip: m.zip,
            country: m.country,
        }
    }
}

impl From<&OrderLine> for OrderLineMsg {
    fn from(l: &OrderLine) -> OrderLineMsg {
        OrderLineMsg {
            product: Some(ProductMsg::from(l.product.as_ref())),
            quantity: l.quantity,
            unit_price_cents: l.unit_price.cents,
            discount: l.discount,
        }
    }
}

impl TryFrom<OrderLineMsg> for OrderLine {
    type Error = CodecError;

    fn try_from(m: OrderLineMsg) -> Result<OrderLine, CodecError> {
        Ok(OrderLine {
            product: Arc::new(required(m.product, "OrderLineMsg.product")?.try_into()?),
            quantity: m.quantity,
            unit_price: Decimal::from_cents(m.unit_price_cents),
            discount: m.discount,
        })
    }
}

impl From<&Product> for ProductMsg {
    fn from(p: &Product) -> ProductMsg {
        ProductMsg {
            sku: p.sku.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            category: Some(CategoryMsg::from(p.category.as_ref())),
            price_cents: p.price.cents,
            weight_grams: p.weight_grams,
            tags: p.tags.0.iter().cloned().collect(),
            thumbnail: p.thumbnail.0.clone(),
        }
    }
}

impl TryFrom<ProductMsg> for Product {
    type Error = CodecError;

    fn try_from(m: ProductMsg) -> Result<Product, CodecError> {
        Ok(Product {
            sku: m.sku,
            name: m.name,
            description: m.description,
            category: Arc::new(required(m.category, "ProductMsg.category")?.into()),
            price: Decimal::from_cents(m.price_cents),
            weight_grams: m.weight_grams,
            tags: Tags(m.tags.into_iter().collect()),
            thumbnail: ByteArray(m.thumbnail),
        })
    }
}

impl From<&Category> for CategoryMsg {
    fn from(c: &Category) -> CategoryMsg {
        CategoryMsg {
            id: c.id,
            name: c.name.clone(),
            parent: c.parent.as_deref().map(|p| Box::new(CategoryMsg::from(p))),
        }
    }
}

impl From<CategoryMsg> for Category {
    fn from(m: CategoryMsg) -> Category {
        Category {
            id: m.id,
            name: m.name,
            parent: m.parent.map(|p| Arc::new((*p).into())),
        }
    }
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
