//! capnp: Cap'n Proto, through the code capnpc 0.27.0 generates from `engines/schemas/order.capnp`
//! (committed as `capnp/order_capnp.rs`; `scripts/regenerate-schemas` writes it again).
//!
//! Cap'n Proto cannot serialize the domain types: encode builds the message from the [`Order`]
//! with the generated builders and writes it in the standard unpacked format (segment table,
//! then the segments) into the caller's buffer; decode reads every field back through the
//! generated readers into an owned [`Order`]. Both conversions are inside the timed round trip.
//! The reader keeps capnp's default options: pointers are checked as they are followed, with
//! the traversal limit (8 M words) and nesting limit (64) that bound what damaged bytes can make
//! it read.

use std::sync::Arc;

use capnp::message::{Builder, ReaderOptions};
use capnp::serialize::BufferSegments;
use capnp::Word;

use self::order_capnp::{address, category, customer, order, order_line, product, Status};
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// Declares modules of code capnpc-rust generated, each with its doc: unformatted, and exempt
/// from the lints generated code does not meet (it has no docs of its own).
macro_rules! generated {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[allow(
            clippy::all,
            clippy::pedantic,
            dead_code,
            unused_imports,
            unused_parens,
            mismatched_lifetime_syntaxes,
            missing_docs
        )]
        #[rustfmt::skip]
        pub mod $name;
    )*};
}
pub(crate) use generated;

generated! {
    /// The schema's types, as capnpc-rust generates them (undocumented: generated code).
    order_capnp;
}

/// The version of capnp this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("capnp", "0.27.")
}

/// capnp with the generated code; `aligned` is where a payload that does not start on an
/// 8-byte boundary is copied before it is read (capnp reads words in place).
#[derive(Default)]
pub struct Capnp {
    aligned: Vec<Word>,
}

impl Codec<Order> for Capnp {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let mut message = Builder::new_default();
        build_order(value, message.init_root())?;
        // `Vec<u8>` is a capnp writer: appends.
        capnp::serialize::write_message(&mut *out, &message).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let message = flat_message(bytes, &mut self.aligned)?;
        let root = message
            .get_root::<order::Reader<'_>>()
            .map_err(CodecError::decode)?;
        read_order(root).map_err(CodecError::decode)
    }
}

/// The message `bytes` hold, read where it lies with capnp's default reader options (the
/// segment table is read here; each pointer is checked when it is followed): the segments must
/// fill `bytes` exactly. capnp reads words in place, so `bytes` that do not start on an 8-byte
/// boundary are copied into `aligned` first.
pub(crate) fn flat_message<'b>(
    bytes: &'b [u8],
    aligned: &'b mut Vec<Word>,
) -> Result<capnp::message::Reader<BufferSegments<&'b [u8]>>, CodecError> {
    let bytes: &[u8] = if (bytes.as_ptr() as usize).is_multiple_of(8) {
        bytes
    } else {
        aligned.clear();
        aligned.resize(bytes.len().div_ceil(8), capnp::word(0, 0, 0, 0, 0, 0, 0, 0));
        let words = Word::words_to_bytes_mut(aligned);
        words[..bytes.len()].copy_from_slice(bytes);
        &words[..bytes.len()]
    };
    let mut rest = bytes;
    let message = capnp::serialize::read_message_from_flat_slice(&mut rest, ReaderOptions::new())
        .map_err(CodecError::decode)?;
    super::whole(bytes.len() - rest.len(), bytes.len())?;
    Ok(message)
}

/// capnp as a `formats` engine.
pub fn engine() -> serprof_api::Engine<Order> {
    super::described(
        "capnp",
        version(),
        "capnp|serprof_engines::external::capnp",
        Capnp::default,
    )
    .call("capnp::serialize::write_message, read_message_from_flat_slice")
}

/// A list length as Cap'n Proto's `u32`.
fn len32(n: usize) -> Result<u32, CodecError> {
    u32::try_from(n).map_err(CodecError::encode)
}

fn build_order(o: &Order, mut b: order::Builder<'_>) -> Result<(), CodecError> {
    b.set_id(o.id.as_str());
    build_customer(&o.customer, b.reborrow().init_customer())?;
    let mut lines = b.reborrow().init_lines(len32(o.lines.len())?);
    for (i, line) in (0..).zip(&o.lines) {
        build_line(line, lines.reborrow().get(i))?;
    }
    b.set_status(status_of(o.status));
    b.set_created(o.created);
    build_address(&o.shipping_address, b.reborrow().init_shipping_address());
    let mut attributes = b.reborrow().init_attributes(len32(o.attributes.0.len())?);
    for (i, (k, v)) in (0..).zip(&o.attributes.0) {
        let mut entry = attributes.reborrow().get(i);
        entry.set_key(k.as_str());
        entry.set_value(v.as_str());
    }
    if let Some(notes) = &o.notes {
        b.set_notes(notes.as_str());
    }
    Ok(())
}

fn build_customer(c: &Customer, mut b: customer::Builder<'_>) -> Result<(), CodecError> {
    b.set_id(c.id);
    b.set_first_name(c.first_name.as_str());
    b.set_last_name(c.last_name.as_str());
    b.set_email(c.email.as_str());
    b.set_date_of_birth(c.date_of_birth);
    b.set_vip(c.vip);
    let mut addresses = b.init_addresses(len32(c.addresses.len())?);
    for (i, a) in (0..).zip(&c.addresses) {
        build_address(a, addresses.reborrow().get(i));
    }
    Ok(())
}

fn build_address(a: &Address, mut b: address::Builder<'_>) {
    b.set_street(a.street.as_str());
    b.set_city(a.city.as_str());
    b.set_zip(a.zip.as_str());
    b.set_country(a.country.as_str());
}

fn build_line(l: &OrderLine, mut b: order_line::Builder<'_>) -> Result<(), CodecError> {
    build_product(&l.product, b.reborrow().init_product())?;
    b.set_quantity(l.quantity);
    b.set_unit_price_cents(l.unit_price.cents);
    b.set_discount(l.discount);
    Ok(())
}

fn build_product(p: &Product, mut b: product::Builder<'_>) -> Result<(), CodecError> {
    b.set_sku(p.sku.as_str());
    b.set_name(p.name.as_str());
    b.set_description(p.description.as_str());
    build_category(&p.category, b.reborrow().init_category());
    b.set_price_cents(p.price.cents);
    b.set_weight_grams(p.weight_grams);
    let mut tags = b.reborrow().init_tags(len32(p.tags.0.len())?);
    for (i, tag) in (0..).zip(&p.tags.0) {
        tags.set(i, tag.as_str());
    }
    b.set_thumbnail(&p.thumbnail.0[..]);
    Ok(())
}

fn build_category(c: &Category, mut b: category::Builder<'_>) {
    b.set_id(c.id);
    b.set_name(c.name.as_str());
    if let Some(parent) = &c.parent {
        build_category(parent, b.init_parent());
    }
}

fn status_of(s: OrderStatus) -> Status {
    match s {
        OrderStatus::New => Status::New,
        OrderStatus::Paid => Status::Paid,
        OrderStatus::Picking => Status::Picking,
        OrderStatus::Shipped => Status::Shipped,
        OrderStatus::Delivered => Status::Delivered,
        OrderStatus::Cancelled => Status::Cancelled,
    }
}

fn status_from(s: Status) -> OrderStatus {
    match s {
        Status::New => OrderStatus::New,
        Status::Paid => OrderStatus::Paid,
        Status::Picking => OrderStatus::Picking,
        Status::Shipped => OrderStatus::Shipped,
        Status::Delivered => OrderStatus::Delivered,
        Status::Cancelled => OrderStatus::Cancelled,
    }
}

/// An owned string from a text field: its pointer checked, its bytes checked as UTF-8.
pub(crate) fn text(t: capnp::Result<capnp::text::Reader<'_>>) -> capnp::Result<String> {
    Ok(t?.to_string()?)
}

fn read_order(r: order::Reader<'_>) -> capnp::Result<Order> {
    let lines = r.get_lines()?;
    let attributes = r.get_attributes()?;
    let mut map =
        OrderedMap::with_capacity_and_hasher(attributes.len() as usize, Default::default());
    for entry in attributes {
        map.insert(text(entry.get_key())?, text(entry.get_value())?);
    }
    Ok(Order {
        id: text(r.get_id())?,
        customer: Arc::new(read_customer(r.get_customer()?)?),
        lines: lines.iter().map(read_line).collect::<capnp::Result<_>>()?,
        status: status_from(r.get_status()?),
        created: r.get_created(),
        shipping_address: Arc::new(read_address(r.get_shipping_address()?)?),
        attributes: Attributes(map),
        notes: if r.has_notes() {
            Some(text(r.get_notes())?)
        } else {
            None
        },
    })
}

fn read_customer(r: customer::Reader<'_>) -> capnp::Result<Customer> {
    Ok(Customer {
        id: r.get_id(),
        first_name: text(r.get_first_name())?,
        last_name: text(r.get_last_name())?,
        email: text(r.get_email())?,
        date_of_birth: r.get_date_of_birth(),
        vip: r.get_vip(),
        addresses: r
            .get_addresses()?
            .iter()
            .map(|a| read_address(a).map(Arc::new))
            .collect::<capnp::Result<_>>()?,
    })
}

fn read_address(r: address::Reader<'_>) -> capnp::Result<Address> {
    Ok(Address {
        street: text(r.get_street())?,
        city: text(r.get_city())?,
        zip: text(r.get_zip())?,
        country: text(r.get_country())?,
    })
}

fn read_line(r: order_line::Reader<'_>) -> capnp::Result<OrderLine> {
    Ok(OrderLine {
        product: Arc::new(read_product(r.get_product()?)?),
        quantity: r.get_quantity(),
        unit_price: Decimal::from_cents(r.get_unit_price_cents()),
        discount: r.get_discount(),
    })
}

fn read_product(r: product::Reader<'_>) -> capnp::Result<Product> {
    let tags = r.get_tags()?;
    let mut set = OrderedSet::with_capacity_and_hasher(tags.len() as usize, Default::default());
    for tag in tags {
        set.insert(text(tag)?);
    }
    Ok(Product {
        sku: text(r.get_sku())?,
        name: text(r.get_name())?,
        description: text(r.get_description())?,
        category: Arc::new(read_category(r.get_category()?)?),
        price: Decimal::from_cents(r.get_price_cents()),
        weight_grams: r.get_weight_grams(),
        tags: Tags(set),
        thumbnail: ByteArray(r.get_thumbnail()?.to_vec()),
    })
}

fn read_category(r: category::Reader<'_>) -> capnp::Result<Category> {
    Ok(Category {
        id: r.get_id(),
        name: text(r.get_name())?,
        parent: if r.has_parent() {
            Some(Arc::new(read_category(r.get_parent()?)?))
        } else {
            None
        },
    })
}

// What Cap'n Proto (capnp) cannot do for the Order model: it cannot serialize the domain types
// (the conversions above are part of every round trip); it has no decimal type (prices are
// cents) and no map (attributes are a list of key/value structs in insertion order, tags a list
// of texts: a tag that occurs twice would collapse silently in the set); a missing text, list or
// struct reads as its default (empty, or a struct of defaults), so only `notes` and a category's
// `parent` tell absent from empty; and shared references are written once per use and come back
// as separate allocations.
