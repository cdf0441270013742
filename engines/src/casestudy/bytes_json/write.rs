//! The writer: an Order as compact JSON, streamed straight into the output `Vec<u8>`.
//!
//! Members are written in model order with camelCase names (the Jackson mapping, as the
//! [engine's docs](super) give it). Each member's name and its separators are one literal
//! (`,"firstName":`), as generated Jackson or Fory serializers write them. Absent optional fields
//! are omitted unless [`Options::write_nulls`] is set.

use super::base64::write_base64;
use super::decimal_bytes::write_byte_array_decimal;
use super::numbers::{write_f64, write_i64};
use super::options::{ByteArrayCodec, Options};
use super::strings::write_str;
use crate::model::{Address, Category, Customer, Order, OrderLine, Product};

/// Appends `order` to `out` as compact JSON in the Jackson mapping, with byte arrays and nulls as
/// `options` say. With [`Options::jackson`] this is byte for byte what Jackson writes.
pub fn write_order(order: &Order, options: &Options, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"id\":");
    write_str(out, &order.id);
    out.extend_from_slice(b",\"customer\":");
    write_customer(out, &order.customer);
    out.extend_from_slice(b",\"lines\":[");
    for (i, line) in order.lines.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_order_line(out, line, options);
    }
    out.extend_from_slice(b"],\"status\":");
    write_str(out, order.status.name());
    out.extend_from_slice(b",\"created\":");
    write_i64(out, order.created);
    out.extend_from_slice(b",\"shippingAddress\":");
    write_address(out, &order.shipping_address);
    out.extend_from_slice(b",\"attributes\":{");
    for (i, (key, value)) in order.attributes.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        write_str(out, value);
    }
    out.push(b'}');
    match &order.notes {
        Some(notes) => {
            out.extend_from_slice(b",\"notes\":");
            write_str(out, notes);
        }
        None if options.write_nulls => out.extend_from_slice(b",\"notes\":null"),
        None => {}
    }
    out.push(b'}');
}

fn write_customer(out: &mut Vec<u8>, customer: &Customer) {
    out.extend_from_slice(b"{\"id\":");
    write_i64(out, customer.id);
    out.extend_from_slice(b",\"firstName\":");
    write_str(out, &customer.first_name);
    out.extend_from_slice(b",\"lastName\":");
    write_str(out, &customer.last_name);
    out.extend_from_slice(b",\"email\":");
    write_str(out, &customer.email);
    out.extend_from_slice(b",\"dateOfBirth\":");
    write_i64(out, customer.date_of_birth);
    out.extend_from_slice(if customer.vip {
        b",\"vip\":true,\"addresses\":["
    } else {
        b",\"vip\":false,\"addresses\":["
    });
    for (i, address) in customer.addresses.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_address(out, address);
    }
    out.extend_from_slice(b"]}");
}

fn write_address(out: &mut Vec<u8>, address: &Address) {
    out.extend_from_slice(b"{\"street\":");
    write_str(out, &address.street);
    out.extend_from_slice(b",\"city\":");
    write_str(out, &address.city);
    out.extend_from_slice(b",\"zip\":");
    write_str(out, &address.zip);
    out.extend_from_slice(b",\"country\":");
    write_str(out, &address.country);
    out.push(b'}');
}

fn write_order_line(out: &mut Vec<u8>, line: &OrderLine, options: &Options) {
    out.extend_from_slice(b"{\"product\":");
    write_product(out, &line.product, options);
    out.extend_from_slice(b",\"quantity\":");
    write_i64(out, i64::from(line.quantity));
    out.extend_from_slice(b",\"unitPrice\":");
    line.unit_price.write_to(out);
    out.extend_from_slice(b",\"discount\":");
    write_f64(out, line.discount);
    out.push(b'}');
}

fn write_product(out: &mut Vec<u8>, product: &Product, options: &Options) {
    out.extend_from_slice(b"{\"sku\":");
    write_str(out, &product.sku);
    out.extend_from_slice(b",\"name\":");
    write_str(out, &product.name);
    out.extend_from_slice(b",\"description\":");
    write_str(out, &product.description);
    out.extend_from_slice(b",\"category\":");
    write_category(out, &product.category, options);
    out.extend_from_slice(b",\"price\":");
    product.price.write_to(out);
    out.extend_from_slice(b",\"weightGrams\":");
    write_i64(out, i64::from(product.weight_grams));
    out.extend_from_slice(b",\"tags\":[");
    for (i, tag) in product.tags.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, tag);
    }
    out.extend_from_slice(b"],\"thumbnail\":");
    write_byte_array(out, &product.thumbnail.0, options.byte_arrays);
    out.push(b'}');
}

/// Categories nest through `parent`; the chain is as deep as the model makes it (two levels in
/// the dataset).
fn write_category(out: &mut Vec<u8>, category: &Category, options: &Options) {
    out.extend_from_slice(b"{\"id\":");
    write_i64(out, category.id);
    out.extend_from_slice(b",\"name\":");
    write_str(out, &category.name);
    match &category.parent {
        Some(parent) => {
            out.extend_from_slice(b",\"parent\":");
            write_category(out, parent, options);
        }
        None if options.write_nulls => out.extend_from_slice(b",\"parent\":null"),
        None => {}
    }
    out.push(b'}');
}

/// Writes a byte array in the configured form.
///
/// Never inlined, and named for byte arrays, so that profiles show it as its own frame (the
/// `bytes` study's `--match 'byte_?array|base64'` finds it).
#[inline(never)]
fn write_byte_array(out: &mut Vec<u8>, bytes: &[u8], codec: ByteArrayCodec) {
    if codec.is_base64() {
        write_base64(out, bytes);
    } else {
        write_byte_array_decimal(out, bytes);
    }
}
