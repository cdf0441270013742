//! rkyv: a zero-copy archive format (the bytes are laid out as the archived types, readable in
//! place), derived on the model's types. Here: serialize into the caller's buffer, then
//! validate the whole archive with bytecheck and deserialize it back into owned values; and, as
//! configurations of their own, read every field of the archive in place, with and without
//! validating it first (`rkyv.validated-access`, `rkyv.access`).

use rkyv::rancor::Error;
use rkyv::ser::{Positional, Writer};
use rkyv::util::AlignedVec;

use crate::codec::{Codec, CodecError};
use crate::model::digest::status_index;
use crate::model::order::{
    ArchivedAddress, ArchivedCategory, ArchivedCustomer, ArchivedOrder, ArchivedOrderLine,
    ArchivedOrderStatus, ArchivedProduct,
};
use crate::model::{Digest, Order, OrderStatus};

/// Exact version pinned in engines/Cargo.toml.
pub const VERSION: &str = "0.8.18";

/// The alignment an archive of the Order needs, at most (i64 and f64 fields).
const ALIGN: usize = 16;

/// rkyv's high-level API with sharing (an `Arc` referenced twice is archived once) and
/// validated access. `aligned` receives payloads that are not at an aligned address.
#[derive(Default)]
pub struct Rkyv {
    aligned: AlignedVec<ALIGN>,
}

impl Codec<Order> for Rkyv {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        rkyv::api::high::to_bytes_in::<_, Error>(value, Appended { out, start })
            .map(|_| ())
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let bytes = self.aligned(bytes);
        // Validated access (never `access_unchecked`: damaged input would be undefined behavior).
        let archived = rkyv::access::<ArchivedOrder, Error>(bytes).map_err(CodecError::decode)?;
        rkyv::deserialize::<Order, Error>(archived).map_err(CodecError::decode)
    }

    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let bytes = self.aligned(bytes);
        let archived = rkyv::access::<ArchivedOrder, Error>(bytes).map_err(CodecError::decode)?;
        Ok(order_digest(archived))
    }

    unsafe fn access_unchecked(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let bytes = self.aligned(bytes);
        // SAFETY: the caller gives a payload `encode` wrote, unchanged (the trait's contract),
        // and `aligned` puts it at an address the archive's alignment allows.
        let archived = unsafe { rkyv::access_unchecked::<ArchivedOrder>(bytes) };
        Ok(order_digest(archived))
    }
}

impl Rkyv {
    /// `bytes`, or an aligned copy of them: archives are read at aligned addresses (the
    /// validator rejects others), and a heap buffer is aligned in practice but not by contract.
    fn aligned<'a>(&'a mut self, bytes: &'a [u8]) -> &'a [u8] {
        if (bytes.as_ptr() as usize).is_multiple_of(ALIGN) {
            bytes
        } else {
            self.aligned.clear();
            self.aligned.extend_from_slice(bytes);
            &self.aligned
        }
    }
}

/// Every field of the archived order, read in place, in [`Order::digest`]'s order.
fn order_digest(o: &ArchivedOrder) -> u64 {
    let mut d = Digest::default();
    d.bytes(o.id.as_bytes());
    customer(&mut d, &o.customer);
    d.int(o.lines.len() as i64);
    for l in o.lines.iter() {
        line(&mut d, l);
    }
    d.int(status_index(status(&o.status)));
    d.int(o.created.to_native());
    address(&mut d, &o.shipping_address);
    d.int(o.attributes.0.len() as i64);
    for (k, v) in o.attributes.0.iter() {
        d.bytes(k.as_bytes());
        d.bytes(v.as_bytes());
    }
    d.present(o.notes.is_some());
    if let Some(n) = o.notes.as_ref() {
        d.bytes(n.as_bytes());
    }
    d.finish()
}

fn status(s: &ArchivedOrderStatus) -> OrderStatus {
    match s {
        ArchivedOrderStatus::New => OrderStatus::New,
        ArchivedOrderStatus::Paid => OrderStatus::Paid,
        ArchivedOrderStatus::Picking => OrderStatus::Picking,
        ArchivedOrderStatus::Shipped => OrderStatus::Shipped,
        ArchivedOrderStatus::Delivered => OrderStatus::Delivered,
        ArchivedOrderStatus::Cancelled => OrderStatus::Cancelled,
    }
}

fn customer(d: &mut Digest, c: &ArchivedCustomer) {
    d.int(c.id.to_native());
    d.bytes(c.first_name.as_bytes());
    d.bytes(c.last_name.as_bytes());
    d.bytes(c.email.as_bytes());
    d.int(c.date_of_birth.to_native());
    d.flag(c.vip);
    d.int(c.addresses.len() as i64);
    for a in c.addresses.iter() {
        address(d, a);
    }
}

fn address(d: &mut Digest, a: &ArchivedAddress) {
    d.bytes(a.street.as_bytes());
    d.bytes(a.city.as_bytes());
    d.bytes(a.zip.as_bytes());
    d.bytes(a.country.as_bytes());
}

fn line(d: &mut Digest, l: &ArchivedOrderLine) {
    product(d, &l.product);
    d.int(i64::from(l.quantity.to_native()));
    d.int(l.unit_price.cents.to_native());
    d.float(l.discount.to_native());
}

fn product(d: &mut Digest, p: &ArchivedProduct) {
    d.bytes(p.sku.as_bytes());
    d.bytes(p.name.as_bytes());
    d.bytes(p.description.as_bytes());
    category(d, &p.category);
    d.int(p.price.cents.to_native());
    d.int(i64::from(p.weight_grams.to_native()));
    d.int(p.tags.0.len() as i64);
    for t in p.tags.0.iter() {
        d.bytes(t.as_bytes());
    }
    d.bytes(p.thumbnail.0.as_slice());
}

fn category(d: &mut Digest, c: &ArchivedCategory) {
    d.int(c.id.to_native());
    d.bytes(c.name.as_bytes());
    d.present(c.parent.is_some());
    if let Some(p) = c.parent.as_ref() {
        category(d, p);
    }
}

/// The caller's buffer as an rkyv writer whose positions count from where the archive starts:
/// `Vec<u8>`'s own writer counts from the start of the vector, so bytes already in it would
/// shift the archive's alignment padding and make it another payload.
struct Appended<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
}

impl Positional for Appended<'_> {
    fn pos(&self) -> usize {
        self.out.len() - self.start
    }
}

impl<E> Writer<E> for Appended<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), E> {
        self.out.extend_from_slice(bytes);
        Ok(())
    }
}

/// rkyv as a `formats` engine.
pub fn engine() -> crate::study::Engine<Order> {
    use crate::workload::Operation;
    super::described("rkyv", VERSION, "rkyv|bytecheck", Rkyv::default)
        .access([Operation::Access, Operation::ValidatedAccess])
}

// What rkyv cannot do for the Order model: nothing is lost (shared `Arc`s are archived once and
// come back shared), but the archive is not self-describing, must be read from an aligned
// address, and the Order's root sits at the end of the bytes (a reader needs exactly the written
// slice). The round trip times deserialization into owned values; the access configurations
// time reading the archive in place, rkyv's point.
