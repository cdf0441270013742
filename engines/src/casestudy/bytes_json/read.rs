//! The reader: an Order from any valid JSON encoding of it, through the [`Cursor`].
//!
//! Each model type has one `parse_*` function that loops over the members of its object in
//! whatever order they come, keeps the known ones, skips (and validates) unknown ones, and checks
//! at the end that every required member was there. Optional members (`notes`,
//! `category.parent`) may be absent or `null`. A member given twice is an error: JSON leaves
//! duplicates to the reader, and an Order with two `id`s has no one right reading.
//!
//! What comes back is a tree: a shared value (the shipping address, a product on two lines) is
//! read into its own allocation at every use, as Jackson reads it.

use std::sync::Arc;

use indexmap::map::Entry;

use super::base64::decode_base64_string;
use super::cursor::{Cursor, Member, Members};
use super::decimal_bytes::read_byte_array_decimal;
use super::error::ReadError;
use super::options::{ByteArrayCodec, Options};
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Order, OrderLine, OrderStatus, Product,
    Tags,
};

/// Reads one Order from `input`: one JSON value, with nothing but whitespace around it.
pub fn read_order(input: &[u8], options: &Options) -> Result<Order, ReadError> {
    let mut cursor = Cursor::new(input);
    let order = parse_order(&mut cursor, options.byte_arrays)?;
    cursor.finish()?;
    Ok(order)
}

/// A member that must be present, or an error at the start of its object.
fn required<T>(value: Option<T>, members: &Members, name: &str) -> Result<T, ReadError> {
    value.ok_or_else(|| missing(members.start, name))
}

#[cold]
fn missing(at: usize, name: &str) -> ReadError {
    ReadError::new(at, format!("missing member \"{name}\""))
}

/// Reads an array, calling `element` for each element.
fn parse_array(
    c: &mut Cursor<'_>,
    mut element: impl FnMut(&mut Cursor<'_>) -> Result<(), ReadError>,
) -> Result<(), ReadError> {
    c.begin_array()?;
    let mut first = true;
    while c.next_entry(&mut first, b']')? {
        element(c)?;
    }
    Ok(())
}

/// An optional value: `None` for `null`.
fn parse_optional<T>(
    c: &mut Cursor<'_>,
    value: impl FnOnce(&mut Cursor<'_>) -> Result<T, ReadError>,
) -> Result<Option<T>, ReadError> {
    if c.parse_null()? {
        Ok(None)
    } else {
        value(c).map(Some)
    }
}

const ORDER: &[&str] = &[
    "id",
    "customer",
    "lines",
    "status",
    "created",
    "shippingAddress",
    "attributes",
    "notes",
];

fn parse_order(c: &mut Cursor<'_>, codec: ByteArrayCodec) -> Result<Order, ReadError> {
    let mut m = c.begin_object()?;
    let (mut id, mut customer, mut lines, mut status, mut created) = (None, None, None, None, None);
    let (mut shipping_address, mut attributes, mut notes) = (None, None, None);
    loop {
        match c.next_member(&mut m, ORDER)? {
            Member::Known(0) => id = Some(c.parse_string()?),
            Member::Known(1) => customer = Some(parse_customer(c)?),
            Member::Known(2) => {
                let mut all = Vec::new();
                parse_array(c, |c| {
                    all.push(parse_order_line(c, codec)?);
                    Ok(())
                })?;
                lines = Some(all);
            }
            Member::Known(3) => status = Some(parse_status(c)?),
            Member::Known(4) => created = Some(c.parse_i64()?),
            Member::Known(5) => shipping_address = Some(parse_address(c)?),
            Member::Known(6) => attributes = Some(parse_attributes(c)?),
            Member::Known(_) => notes = parse_optional(c, |c| c.parse_string())?,
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    Ok(Order {
        id: required(id, &m, "id")?,
        customer: Arc::new(required(customer, &m, "customer")?),
        lines: required(lines, &m, "lines")?,
        status: required(status, &m, "status")?,
        created: required(created, &m, "created")?,
        shipping_address: Arc::new(required(shipping_address, &m, "shippingAddress")?),
        attributes: required(attributes, &m, "attributes")?,
        notes,
    })
}

fn parse_status(c: &mut Cursor<'_>) -> Result<OrderStatus, ReadError> {
    let at = c.next_token_at();
    let name = c.parse_str()?;
    OrderStatus::from_name(name).ok_or_else(|| unknown_status(at))
}

#[cold]
fn unknown_status(at: usize) -> ReadError {
    ReadError::new(
        at,
        "unknown status (expected NEW, PAID, PICKING, SHIPPED, DELIVERED or CANCELLED)",
    )
}

fn parse_attributes(c: &mut Cursor<'_>) -> Result<Attributes, ReadError> {
    let mut m = c.begin_object()?;
    let mut attributes = Attributes::default();
    while let Some((at, key)) = c.next_key(&mut m)? {
        let value = c.parse_string()?;
        match attributes.0.entry(key) {
            Entry::Vacant(slot) => {
                slot.insert(value);
            }
            Entry::Occupied(_) => return Err(duplicate(at, "attribute")),
        }
    }
    Ok(attributes)
}

#[cold]
fn duplicate(at: usize, what: &str) -> ReadError {
    ReadError::new(at, format!("duplicate {what}"))
}

const CUSTOMER: &[&str] = &[
    "id",
    "firstName",
    "lastName",
    "email",
    "dateOfBirth",
    "vip",
    "addresses",
];

fn parse_customer(c: &mut Cursor<'_>) -> Result<Customer, ReadError> {
    let mut m = c.begin_object()?;
    let (mut id, mut first_name, mut last_name, mut email) = (None, None, None, None);
    let (mut date_of_birth, mut vip, mut addresses) = (None, None, None);
    loop {
        match c.next_member(&mut m, CUSTOMER)? {
            Member::Known(0) => id = Some(c.parse_i64()?),
            Member::Known(1) => first_name = Some(c.parse_string()?),
            Member::Known(2) => last_name = Some(c.parse_string()?),
            Member::Known(3) => email = Some(c.parse_string()?),
            Member::Known(4) => date_of_birth = Some(c.parse_i64()?),
            Member::Known(5) => vip = Some(c.parse_bool()?),
            Member::Known(_) => {
                let mut all = Vec::new();
                parse_array(c, |c| {
                    all.push(Arc::new(parse_address(c)?));
                    Ok(())
                })?;
                addresses = Some(all);
            }
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    Ok(Customer {
        id: required(id, &m, "id")?,
        first_name: required(first_name, &m, "firstName")?,
        last_name: required(last_name, &m, "lastName")?,
        email: required(email, &m, "email")?,
        date_of_birth: required(date_of_birth, &m, "dateOfBirth")?,
        vip: required(vip, &m, "vip")?,
        addresses: required(addresses, &m, "addresses")?,
    })
}

const ADDRESS: &[&str] = &["street", "city", "zip", "country"];

fn parse_address(c: &mut Cursor<'_>) -> Result<Address, ReadError> {
    let mut m = c.begin_object()?;
    let mut fields: [Option<String>; 4] = Default::default();
    loop {
        match c.next_member(&mut m, ADDRESS)? {
            Member::Known(i) => fields[i] = Some(c.parse_string()?),
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    let [street, city, zip, country] = fields;
    Ok(Address {
        street: required(street, &m, "street")?,
        city: required(city, &m, "city")?,
        zip: required(zip, &m, "zip")?,
        country: required(country, &m, "country")?,
    })
}

const ORDER_LINE: &[&str] = &["product", "quantity", "unitPrice", "discount"];

fn parse_order_line(c: &mut Cursor<'_>, codec: ByteArrayCodec) -> Result<OrderLine, ReadError> {
    let mut m = c.begin_object()?;
    let (mut product, mut quantity, mut unit_price, mut discount) = (None, None, None, None);
    loop {
        match c.next_member(&mut m, ORDER_LINE)? {
            Member::Known(0) => product = Some(parse_product(c, codec)?),
            Member::Known(1) => quantity = Some(c.parse_i32()?),
            Member::Known(2) => unit_price = Some(c.parse_decimal()?),
            Member::Known(_) => discount = Some(c.parse_f64()?),
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    Ok(OrderLine {
        product: Arc::new(required(product, &m, "product")?),
        quantity: required(quantity, &m, "quantity")?,
        unit_price: required(unit_price, &m, "unitPrice")?,
        discount: required(discount, &m, "discount")?,
    })
}

const PRODUCT: &[&str] = &[
    "sku",
    "name",
    "description",
    "category",
    "price",
    "weightGrams",
    "tags",
    "thumbnail",
];

fn parse_product(c: &mut Cursor<'_>, codec: ByteArrayCodec) -> Result<Product, ReadError> {
    let mut m = c.begin_object()?;
    let (mut sku, mut name, mut description, mut category) = (None, None, None, None);
    let (mut price, mut weight_grams, mut tags, mut thumbnail) = (None, None, None, None);
    loop {
        match c.next_member(&mut m, PRODUCT)? {
            Member::Known(0) => sku = Some(c.parse_string()?),
            Member::Known(1) => name = Some(c.parse_string()?),
            Member::Known(2) => description = Some(c.parse_string()?),
            Member::Known(3) => category = Some(parse_category(c)?),
            Member::Known(4) => price = Some(c.parse_decimal()?),
            Member::Known(5) => weight_grams = Some(c.parse_i32()?),
            Member::Known(6) => tags = Some(parse_tags(c)?),
            Member::Known(_) => thumbnail = Some(read_byte_array(c, codec)?),
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    Ok(Product {
        sku: required(sku, &m, "sku")?,
        name: required(name, &m, "name")?,
        description: required(description, &m, "description")?,
        category: Arc::new(required(category, &m, "category")?),
        price: required(price, &m, "price")?,
        weight_grams: required(weight_grams, &m, "weightGrams")?,
        tags: required(tags, &m, "tags")?,
        thumbnail: required(thumbnail, &m, "thumbnail")?,
    })
}

fn parse_tags(c: &mut Cursor<'_>) -> Result<Tags, ReadError> {
    let mut tags = Tags::default();
    parse_array(c, |c| {
        let at = c.next_token_at();
        if tags.0.insert(c.parse_string()?) {
            Ok(())
        } else {
            Err(duplicate(at, "tag"))
        }
    })?;
    Ok(tags)
}

const CATEGORY: &[&str] = &["id", "name", "parent"];

/// Categories nest through `parent`; the cursor's depth limit bounds the chain.
fn parse_category(c: &mut Cursor<'_>) -> Result<Category, ReadError> {
    let mut m = c.begin_object()?;
    let (mut id, mut name, mut parent) = (None, None, None);
    loop {
        match c.next_member(&mut m, CATEGORY)? {
            Member::Known(0) => id = Some(c.parse_i64()?),
            Member::Known(1) => name = Some(c.parse_string()?),
            Member::Known(_) => parent = parse_optional(c, parse_category)?,
            Member::Unknown => c.skip_value()?,
            Member::End => break,
        }
    }
    Ok(Category {
        id: required(id, &m, "id")?,
        name: required(name, &m, "name")?,
        parent: parent.map(Arc::new),
    })
}

/// Reads a byte array in whichever form the input holds: a base64 string (decoded by `codec`'s
/// decoder) or an array of decimal numbers.
///
/// Never inlined, and named for byte arrays, so that profiles show it as its own frame (the
/// `bytes` study's `--match 'byte_?array|base64'` finds it).
#[inline(never)]
fn read_byte_array(c: &mut Cursor<'_>, codec: ByteArrayCodec) -> Result<ByteArray, ReadError> {
    match c.peek() {
        Some(b'"') => {
            let (bytes, end) = decode_base64_string(c.input(), c.pos() + 1, codec)?;
            c.set_pos(end);
            Ok(ByteArray(bytes))
        }
        Some(b'[') => read_byte_array_decimal(c).map(ByteArray),
        _ => Err(c.unexpected("a base64 string or an array of bytes")),
    }
}
