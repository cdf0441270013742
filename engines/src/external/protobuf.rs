//! protobuf (rust-protobuf 3): Protocol Buffers (proto3) through message code generated from
//! `engines/schemas/order.proto` by protobuf-codegen in pure Rust (no protoc), committed at
//! `protobuf_gen/order.rs` beside this file. The code is generated for the lite runtime (no
//! descriptors or reflection); it asserts the exact runtime version it was made for.
//! `engines/tests/protobuf_gen.rs` regenerates it and fails when the committed file differs;
//! `SERPROF_REGENERATE=1 cargo test -p serprof-engines --test protobuf_gen` rewrites it.
//!
//! Protobuf cannot serialize the domain types: encode converts the [`Order`] into the generated
//! messages and decode converts back, both inside the timed round trip (string and thumbnail
//! copies included), as the prost adapter does. The schema has the prost adapter's field
//! numbers; attributes are `repeated PbAttribute`, not a `map<string, string>` (which decodes
//! into a `HashMap` and loses the insertion order).

use std::sync::Arc;

use protobuf::{EnumOrUnknown, Message, MessageField};

use crate::codec::{Codec, CodecError};
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    Product, Tags,
};

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/order.proto`.
#[path = "protobuf_gen/order.rs"]
pub mod messages;

use messages::{PbAddress, PbAttribute, PbCategory, PbCustomer, PbOrder, PbOrderLine, PbProduct};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "3.7.2";

/// rust-protobuf, converting to and from the generated messages inside encode and decode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Protobuf;

impl Codec<Order> for Protobuf {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `write_to_vec` sizes the message first, then appends to the caller's buffer.
        PbOrder::from(value)
            .write_to_vec(out)
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        // `parse_from_bytes` reads to the end of the slice (bytes after the message are read as
        // fields, and a broken one is an error) and checks the end was reached.
        let message = PbOrder::parse_from_bytes(bytes).map_err(CodecError::decode)?;
        Order::try_from(message)
    }
}

/// rust-protobuf as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    super::described("protobuf", VERSION, "protobuf", || Protobuf)
}

/// A message field that must be there.
fn required<T>(field: MessageField<T>, what: &str) -> Result<T, CodecError> {
    super::required(field.into_option(), what)
}

impl From<&Order> for PbOrder {
    /// Copies every string and thumbnail; shared values once per use.
    fn from(o: &Order) -> PbOrder {
        PbOrder {
            id: o.id.clone(),
            customer: MessageField::some(PbCustomer::from(o.customer.as_ref())),
            lines: o.lines.iter().map(PbOrderLine::from).collect(),
            // `PbStatus` numbers the statuses in the model's declaration order.
            status: EnumOrUnknown::from_i32(o.status as i32),
            created: o.created,
            shipping_address: MessageField::some(PbAddress::from(o.shipping_address.as_ref())),
            attributes: o
                .attributes
                .0
                .iter()
                .map(|(k, v)| PbAttribute {
                    key: k.clone(),
                    value: v.clone(),
                    ..Default::default()
                })
                .collect(),
            notes: o.notes.clone(),
            ..Default::default()
        }
    }
}

impl TryFrom<PbOrder> for Order {
    type Error = CodecError;

    /// Moves the decoded messages into an Order; a missing message or an unknown status is an
    /// error.
    fn try_from(m: PbOrder) -> Result<Order, CodecError> {
        let status = m.status.value();
        let status = usize::try_from(status)
            .ok()
            .and_then(|i| OrderStatus::ALL.get(i).copied())
            .ok_or_else(|| CodecError::decode(format_args!("unknown order status {status}")))?;
        Ok(Order {
            id: m.id,
            customer: Arc::new(required(m.customer, "PbOrder.customer")?.into()),
            lines: m
                .lines
                .into_iter()
                .map(OrderLine::try_from)
                .collect::<Result<_, _>>()?,
            status,
            created: m.created,
            shipping_address: Arc::new(
                required(m.shipping_address, "PbOrder.shipping_address")?.into(),
            ),
            attributes: Attributes(m.attributes.into_iter().map(|a| (a.key, a.value)).collect()),
            notes: m.notes,
        })
    }
}

impl From<&Customer> for PbCustomer {
    fn from(c: &Customer) -> PbCustomer {
        PbCustomer {
            id: c.id,
            first_name: c.first_name.clone(),
            last_name: c.last_name.clone(),
            email: c.email.clone(),
            date_of_birth: c.date_of_birth,
            vip: c.vip,
            addresses: c
                .addresses
                .iter()
                .map(|a| PbAddress::from(a.as_ref()))
                .collect(),
            ..Default::default()
        }
    }
}

impl From<PbCustomer> for Customer {
    fn from(m: PbCustomer) -> Customer {
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

impl From<&Address> for PbAddress {
    fn from(a: &Address) -> PbAddress {
        PbAddress {
            street: a.street.clone(),
            city: a.city.clone(),
            zip: a.zip.clone(),
            country: a.country.clone(),
            ..Default::default()
        }
    }
}

impl From<PbAddress> for Address {
    fn from(m: PbAddress) -> Address {
        Address {
            street: m.street,
            city: m.city,
            zip: m.zip,
            country: m.country,
        }
    }
}

impl From<&OrderLine> for PbOrderLine {
    fn from(l: &OrderLine) -> PbOrderLine {
        PbOrderLine {
            product: MessageField::some(PbProduct::from(l.product.as_ref())),
            quantity: l.quantity,
            unit_price_cents: l.unit_price.cents,
            discount: l.discount,
            ..Default::default()
        }
    }
}

impl TryFrom<PbOrderLine> for OrderLine {
    type Error = CodecError;

    fn try_from(m: PbOrderLine) -> Result<OrderLine, CodecError> {
        Ok(OrderLine {
            product: Arc::new(required(m.product, "PbOrderLine.product")?.try_into()?),
            quantity: m.quantity,
            unit_price: Decimal::from_cents(m.unit_price_cents),
            discount: m.discount,
        })
    }
}

impl From<&Product> for PbProduct {
    fn from(p: &Product) -> PbProduct {
        PbProduct {
            sku: p.sku.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            category: MessageField::some(PbCategory::from(p.category.as_ref())),
            price_cents: p.price.cents,
            weight_grams: p.weight_grams,
            tags: p.tags.0.iter().cloned().collect(),
            thumbnail: p.thumbnail.0.clone(),
            ..Default::default()
        }
    }
}

impl TryFrom<PbProduct> for Product {
    type Error = CodecError;

    fn try_from(m: PbProduct) -> Result<Product, CodecError> {
        Ok(Product {
            sku: m.sku,
            name: m.name,
            description: m.description,
            category: Arc::new(required(m.category, "PbProduct.category")?.into()),
            price: Decimal::from_cents(m.price_cents),
            weight_grams: m.weight_grams,
            tags: Tags(m.tags.into_iter().collect()),
            thumbnail: ByteArray(m.thumbnail),
        })
    }
}

impl From<&Category> for PbCategory {
    fn from(c: &Category) -> PbCategory {
        PbCategory {
            id: c.id,
            name: c.name.clone(),
            parent: c.parent.as_deref().map(PbCategory::from).into(),
            ..Default::default()
        }
    }
}

impl From<PbCategory> for Category {
    fn from(m: PbCategory) -> Category {
        Category {
            id: m.id,
            name: m.name,
            parent: m.parent.into_option().map(|p| Arc::new(p.into())),
        }
    }
}

// What Protobuf (rust-protobuf) cannot do for the Order model: it cannot serialize the domain
// types (the conversion above is part of every round trip); it has no decimal type (prices are
// cents) and no insertion-ordered map (attributes are repeated entries); a repeated tag that
// occurs twice would collapse silently in the set; fields equal to their default (0, "", false,
// NEW) are not written at all, so "absent" and "default" are the same on the wire; nested
// categories recurse up to rust-protobuf's recursion limit (100); shared references are written
// once per use and come back as separate allocations.
