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

use protobuf::{EnumOrUnknown, Message, MessageField};

use super::mirror::{status_number, status_of_number};
use crate::model::Order;
use serprof_api::{Codec, CodecError};

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/order.proto`.
#[path = "protobuf_gen/order.rs"]
pub mod messages;

use messages::{
    PbAddress, PbAttribute, PbCategory, PbCustomer, PbOrder, PbOrderLine, PbProduct, PbStatus,
};

/// The version of protobuf this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("protobuf", "3.")
}

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
pub fn engine() -> serprof_api::Engine<Order> {
    super::described("protobuf", version(), "protobuf", || Protobuf)
        .call("protobuf::Message::write_to_vec, parse_from_bytes (through the generated messages)")
}

/// A message field that must be there: absent, it is a decode error naming `what` (the
/// `protobuf_rsb` codecs' too).
pub(super) fn required<T>(field: MessageField<T>, what: &str) -> Result<T, CodecError> {
    super::required(field.into_option(), what)
}

mirror_conversions! {
    order: PbOrder, customer: PbCustomer, address: PbAddress,
    line: PbOrderLine, product: PbProduct, category: PbCategory,
    some: MessageField::some, take: required,
    status: (
        |s| EnumOrUnknown::from_i32(status_number(s)),
        |s: EnumOrUnknown<PbStatus>| status_of_number(s.value())
    ),
    attribute: (
        |k: &String, v: &String| PbAttribute { key: k.clone(), value: v.clone(), ..Default::default() },
        |a: PbAttribute| (a.key, a.value)
    ),
    parent: (MessageField::from, MessageField::into_option),
    rest: { ..Default::default() },
}

// What Protobuf (rust-protobuf) cannot do for the Order model: it cannot serialize the domain
// types (the conversion above is part of every round trip); it has no decimal type (prices are
// cents) and no insertion-ordered map (attributes are repeated entries); a repeated tag that
// occurs twice would collapse silently in the set; fields equal to their default (0, "", false,
// NEW) are not written at all, so "absent" and "default" are the same on the wire; nested
// categories recurse up to rust-protobuf's recursion limit (100); shared references are written
// once per use and come back as separate allocations.
