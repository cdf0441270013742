//! flatbuffers: FlatBuffers, through the code Debian's flatc 2.0.8 generates from
//! `engines/schemas/order.fbs` (committed as `flatbuffers/order_generated.rs`;
//! `scripts/regenerate-schemas` writes it again). flatc 2.0.8's Rust compiles only against the
//! 2.x crate, hence the 2.1.2 pin.
//!
//! FlatBuffers cannot serialize the domain types: encode builds the tables from the [`Order`]
//! with the generated `create` functions, back to front (every child before its parent) in a
//! builder this adapter keeps, and copies the finished bytes into the caller's buffer. Decode
//! verifies the whole buffer with `flatbuffers::root` (bounds, alignment within the buffer, UTF-8,
//! required fields, depth 64, at most 1 M tables) before the generated accessors read every
//! field back into an owned [`Order`]. Both conversions are inside the timed round trip.
//!
//! RUSTSEC-2021-0122 applies to flatbuffers 2.1.2 (fixed in 22.9.29): the generated code and
//! the crate's `Follow`/`Push` traits can read and write out of bounds from safe code when given
//! a buffer that was not verified. This adapter reads only buffers `flatbuffers::root` verified,
//! never through `root_unchecked`.

use std::sync::Arc;

use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};

use self::order_generated as fb;
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// `pub mod NAME;` for each file of generated code given, with its doc comment: the types of a
/// schema as flatc 2.0.8 writes them, exempt from the lints and the formatting of hand-written
/// code (undocumented: generated code).
macro_rules! generated {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        #[allow(
            clippy::all,
            clippy::pedantic,
            dead_code,
            deprecated,
            non_camel_case_types,
            non_snake_case,
            unused_imports,
            mismatched_lifetime_syntaxes,
            missing_docs
        )]
        #[rustfmt::skip]
        $(#[$doc])*
        pub mod $name;
    )*};
}
pub(crate) use generated;

generated!(
    /// The schema's types, as flatc generates them (undocumented: generated code).
    order_generated
);

/// The version of flatbuffers this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("flatbuffers", "2.")
}

/// flatbuffers with the generated code and one builder, reset before each encode.
pub struct Flatbuffers {
    builder: FlatBufferBuilder<'static>,
}

impl Default for Flatbuffers {
    fn default() -> Self {
        Flatbuffers {
            builder: FlatBufferBuilder::new(),
        }
    }
}

impl Codec<Order> for Flatbuffers {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let b = &mut self.builder;
        b.reset();
        let root = build_order(b, value);
        b.finish(root, None);
        out.extend_from_slice(b.finished_data());
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let root = flatbuffers::root::<fb::Order<'_>>(bytes).map_err(CodecError::decode)?;
        read_order(root)
    }
}

/// flatbuffers as a `formats` engine.
pub fn engine() -> serprof_api::Engine<Order> {
    super::described(
        "flatbuffers",
        version(),
        "flatbuffers|serprof_engines::external::flatbuffers",
        Flatbuffers::default,
    )
    .call("FlatBufferBuilder (reused) + copy, flatbuffers::root + owned copy")
}

type Builder = FlatBufferBuilder<'static>;
type Strings = WIPOffset<Vector<'static, ForwardsUOffset<&'static str>>>;

fn build_order(b: &mut Builder, o: &Order) -> WIPOffset<fb::Order<'static>> {
    let id = b.create_string(&o.id);
    let customer = build_customer(b, &o.customer);
    let lines: Vec<_> = o.lines.iter().map(|l| build_line(b, l)).collect();
    let lines = b.create_vector(&lines);
    let shipping_address = build_address(b, &o.shipping_address);
    let attributes: Vec<_> = o
        .attributes
        .0
        .iter()
        .map(|(k, v)| {
            let args = fb::AttributeArgs {
                key: Some(b.create_string(k)),
                value: Some(b.create_string(v)),
            };
            fb::Attribute::create(b, &args)
        })
        .collect();
    let attributes = b.create_vector(&attributes);
    let notes = o.notes.as_deref().map(|n| b.create_string(n));
    fb::Order::create(
        b,
        &fb::OrderArgs {
            id: Some(id),
            customer: Some(customer),
            lines: Some(lines),
            status: fb::Status(o.status as i8),
            created: o.created,
            shipping_address: Some(shipping_address),
            attributes: Some(attributes),
            notes,
        },
    )
}

fn build_customer(b: &mut Builder, c: &Customer) -> WIPOffset<fb::Customer<'static>> {
    let args = fb::CustomerArgs {
        id: c.id,
        first_name: Some(b.create_string(&c.first_name)),
        last_name: Some(b.create_string(&c.last_name)),
        email: Some(b.create_string(&c.email)),
        date_of_birth: c.date_of_birth,
        vip: c.vip,
        addresses: None,
    };
    let addresses: Vec<_> = c.addresses.iter().map(|a| build_address(b, a)).collect();
    let addresses = Some(b.create_vector(&addresses));
    fb::Customer::create(b, &fb::CustomerArgs { addresses, ..args })
}

fn build_address(b: &mut Builder, a: &Address) -> WIPOffset<fb::Address<'static>> {
    let args = fb::AddressArgs {
        street: Some(b.create_string(&a.street)),
        city: Some(b.create_string(&a.city)),
        zip: Some(b.create_string(&a.zip)),
        country: Some(b.create_string(&a.country)),
    };
    fb::Address::create(b, &args)
}

fn build_line(b: &mut Builder, l: &OrderLine) -> WIPOffset<fb::OrderLine<'static>> {
    let product = build_product(b, &l.product);
    fb::OrderLine::create(
        b,
        &fb::OrderLineArgs {
            product: Some(product),
            quantity: l.quantity,
            unit_price_cents: l.unit_price.cents,
            discount: l.discount,
        },
    )
}

fn build_product(b: &mut Builder, p: &Product) -> WIPOffset<fb::Product<'static>> {
    let category = build_category(b, &p.category);
    let tags: Vec<_> = p.tags.0.iter().map(|t| b.create_string(t)).collect();
    let tags: Strings = b.create_vector(&tags);
    let args = fb::ProductArgs {
        sku: Some(b.create_string(&p.sku)),
        name: Some(b.create_string(&p.name)),
        description: Some(b.create_string(&p.description)),
        category: Some(category),
        price_cents: p.price.cents,
        weight_grams: p.weight_grams,
        tags: Some(tags),
        // One copy of the bytes, not one push per byte.
        thumbnail: Some(b.create_vector_direct(&p.thumbnail.0[..])),
    };
    fb::Product::create(b, &args)
}

fn build_category(b: &mut Builder, c: &Category) -> WIPOffset<fb::Category<'static>> {
    let parent = c.parent.as_deref().map(|p| build_category(b, p));
    let args = fb::CategoryArgs {
        id: c.id,
        name: Some(b.create_string(&c.name)),
        parent,
    };
    fb::Category::create(b, &args)
}

fn read_order(r: fb::Order<'_>) -> Result<Order, CodecError> {
    let attributes = r.attributes();
    let mut map = OrderedMap::with_capacity_and_hasher(attributes.len(), Default::default());
    for entry in attributes {
        map.insert(entry.key().to_owned(), entry.value().to_owned());
    }
    let status = OrderStatus::ALL
        .get(r.status().0 as usize)
        .copied()
        .ok_or_else(|| CodecError::decode(format_args!("invalid status {}", r.status().0)))?;
    Ok(Order {
        id: r.id().to_owned(),
        customer: Arc::new(read_customer(r.customer())),
        lines: r.lines().iter().map(read_line).collect(),
        status,
        created: r.created(),
        shipping_address: Arc::new(read_address(r.shipping_address())),
        attributes: Attributes(map),
        notes: r.notes().map(str::to_owned),
    })
}

fn read_customer(r: fb::Customer<'_>) -> Customer {
    Customer {
        id: r.id(),
        first_name: r.first_name().to_owned(),
        last_name: r.last_name().to_owned(),
        email: r.email().to_owned(),
        date_of_birth: r.date_of_birth(),
        vip: r.vip(),
        addresses: r
            .addresses()
            .iter()
            .map(|a| Arc::new(read_address(a)))
            .collect(),
    }
}

fn read_address(r: fb::Address<'_>) -> Address {
    Address {
        street: r.street().to_owned(),
        city: r.city().to_owned(),
        zip: r.zip().to_owned(),
        country: r.country().to_owned(),
    }
}

fn read_line(r: fb::OrderLine<'_>) -> OrderLine {
    OrderLine {
        product: Arc::new(read_product(r.product())),
        quantity: r.quantity(),
        unit_price: Decimal::from_cents(r.unit_price_cents()),
        discount: r.discount(),
    }
}

fn read_product(r: fb::Product<'_>) -> Product {
    Product {
        sku: r.sku().to_owned(),
        name: r.name().to_owned(),
        description: r.description().to_owned(),
        category: Arc::new(read_category(r.category())),
        price: Decimal::from_cents(r.price_cents()),
        weight_grams: r.weight_grams(),
        tags: Tags(
            r.tags()
                .iter()
                .map(str::to_owned)
                .collect::<OrderedSet<_>>(),
        ),
        thumbnail: ByteArray(r.thumbnail().to_vec()),
    }
}

fn read_category(r: fb::Category<'_>) -> Category {
    Category {
        id: r.id(),
        name: r.name().to_owned(),
        parent: r.parent().map(|p| Arc::new(read_category(p))),
    }
}

// What FlatBuffers (flatbuffers) cannot do for the Order model: it cannot serialize the domain
// types (the conversions above are part of every round trip); it has no decimal type (prices
// are cents) and no map (attributes are a vector of key/value tables in insertion order, tags a
// vector of strings: a tag that occurs twice would collapse silently in the set); scalars equal
// to their default (0, false, `New`) are not written, so absent and default are the same; it
// does not reject bytes after the buffer it verified (a FlatBuffer has no end marker: offsets
// point anywhere in the slice); and shared references are written once per use and come back
// as separate allocations. The 2.x crate carries RUSTSEC-2021-0122 (see above).
