//! rkyv: a zero-copy archive format (the bytes are laid out as the archived types, readable in
//! place), derived on the model's types. Here: serialize into the caller's buffer, then
//! validate the whole archive with bytecheck and deserialize it back into owned values; and, as
//! configurations of their own, read every field of the archive in place, with and without
//! validating it first (`rkyv.validated-access`, `rkyv.access`), and, where a study gives one,
//! update fields of the archive in place (`rkyv.update`).

use rkyv::api::high::{HighDeserializer, HighSerializer, HighValidator};
use rkyv::bytecheck::CheckBytes;
use rkyv::rancor::Error;
use rkyv::seal::Seal;
use rkyv::ser::allocator::ArenaHandle;
use rkyv::util::AlignedVec;
use rkyv::{Archive, Deserialize};

use crate::model::digest::status_index;
use crate::model::order::{
    ArchivedAddress, ArchivedCategory, ArchivedCustomer, ArchivedOrder, ArchivedOrderLine,
    ArchivedOrderStatus, ArchivedProduct,
};
use crate::model::{Digest, Order, OrderStatus};
use serprof_api::{Codec, CodecError};

/// The version of rkyv this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("rkyv", "0.8.")
}

/// The alignment an archive of the Order needs, at most (i64 and f64 fields).
const ALIGN: usize = 16;

/// How an archive of `T` is read in place: the digest of what it reads (see [`Codec::access`]).
pub type ReadArchived<T> = std::sync::Arc<dyn Fn(&<T as Archive>::Archived) -> u64 + Send + Sync>;

/// How an archive of `T` is changed where it lies (see [`Updates`]).
type UpdateArchived<T> = std::sync::Arc<dyn Fn(Seal<'_, <T as Archive>::Archived>) + Send + Sync>;

/// How an archive of `T` is updated in place (through rkyv's `Seal`, with `munge` to reach
/// its fields), and the same update made to a value (see [`Codec::update_unchecked`]).
pub struct Updates<T: Archive> {
    archived: UpdateArchived<T>,
    value: std::sync::Arc<dyn Fn(&mut T) + Send + Sync>,
}

impl<T: Archive> Clone for Updates<T> {
    fn clone(&self) -> Self {
        Updates {
            archived: self.archived.clone(),
            value: self.value.clone(),
        }
    }
}

impl<T: Archive> Updates<T> {
    /// `archived` changes an archive where it lies; `value` makes the same change to a value.
    pub fn new(
        archived: impl Fn(Seal<'_, T::Archived>) + Send + Sync + 'static,
        value: impl Fn(&mut T) + Send + Sync + 'static,
    ) -> Self {
        Updates {
            archived: std::sync::Arc::new(archived),
            value: std::sync::Arc::new(value),
        }
    }
}

/// rkyv's high-level API with sharing (an `Arc` referenced twice is archived once) and
/// validated access. `aligned` receives payloads that are not at an aligned address; `read`
/// reads an archive in place, for the access operations; `update` changes one in place.
pub struct Rkyv<T: Archive> {
    aligned: AlignedVec<ALIGN>,
    read: Option<ReadArchived<T>>,
    update: Option<Updates<T>>,
}

/// The traits rkyv's high-level API needs of a type (`#[derive(Archive, Serialize, Deserialize)]`
/// gives them all).
pub trait Archived:
    Archive<
        Archived: for<'a> CheckBytes<HighValidator<'a, Error>>
                      + Deserialize<Self, HighDeserializer<Error>>,
    > + for<'a> rkyv::Serialize<HighSerializer<Vec<u8>, ArenaHandle<'a>, Error>>
    + Sized
{
}

impl<T> Archived for T where
    T: Archive<
            Archived: for<'a> CheckBytes<HighValidator<'a, Error>>
                          + Deserialize<T, HighDeserializer<Error>>,
        > + for<'a> rkyv::Serialize<HighSerializer<Vec<u8>, ArenaHandle<'a>, Error>>
{
}

impl<T: Archived> Codec<T> for Rkyv<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // rkyv's `Vec` writer counts positions from the start of the vector, so bytes already
        // in it would shift the archive's alignment padding. An empty buffer (the measured
        // loops clear it) is written in place and handed back; after other bytes, the archive
        // is written on its own and appended.
        if out.is_empty() {
            let buf = std::mem::take(out);
            *out =
                rkyv::api::high::to_bytes_in::<_, Error>(value, buf).map_err(CodecError::encode)?;
        } else {
            let alone = rkyv::api::high::to_bytes_in::<_, Error>(value, Vec::new())
                .map_err(CodecError::encode)?;
            out.extend_from_slice(&alone);
        }
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let bytes = self.aligned(bytes);
        // Validated access (never `access_unchecked`: damaged input would be undefined behavior).
        let archived = rkyv::access::<T::Archived, Error>(bytes).map_err(CodecError::decode)?;
        rkyv::deserialize::<T, Error>(archived).map_err(CodecError::decode)
    }

    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let read = self.read.clone().ok_or_else(no_reader)?;
        let bytes = self.aligned(bytes);
        let archived = rkyv::access::<T::Archived, Error>(bytes).map_err(CodecError::decode)?;
        Ok(read(archived))
    }

    unsafe fn decode_unchecked(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let bytes = self.aligned(bytes);
        // SAFETY: the caller gives a payload `encode` wrote, unchanged (the trait's contract),
        // and `aligned` puts it at an address the archive's alignment allows.
        let archived = unsafe { rkyv::access_unchecked::<T::Archived>(bytes) };
        rkyv::deserialize::<T, Error>(archived).map_err(CodecError::decode)
    }

    unsafe fn access_unchecked(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let read = self.read.clone().ok_or_else(no_reader)?;
        let bytes = self.aligned(bytes);
        // SAFETY: the caller gives a payload `encode` wrote, unchanged (the trait's contract),
        // and `aligned` puts it at an address the archive's alignment allows.
        let archived = unsafe { rkyv::access_unchecked::<T::Archived>(bytes) };
        Ok(read(archived))
    }

    unsafe fn update_unchecked(&mut self, bytes: &mut [u8]) -> Result<(), CodecError> {
        let update = self.update.as_ref().ok_or_else(no_updater)?;
        // An update is written where the archive lies: a misaligned payload cannot be copied
        // into `aligned` first, as the reads do.
        if !(bytes.as_ptr() as usize).is_multiple_of(ALIGN) {
            return Err(CodecError::setup(
                "rkyv updates an archive where it lies, and this payload is not at an aligned \
                 address",
            ));
        }
        // SAFETY: the caller gives a payload `encode` wrote, changed since only by this update
        // (the trait's contract), at an aligned address.
        let archived = unsafe { rkyv::access_unchecked_mut::<T::Archived>(bytes) };
        (update.archived)(archived);
        Ok(())
    }

    fn update_value(&mut self, value: &mut T) -> Result<(), CodecError> {
        let update = self.update.as_ref().ok_or_else(no_updater)?;
        (update.value)(value);
        Ok(())
    }
}

#[cold]
fn no_reader() -> CodecError {
    CodecError::setup("no reader of the archived value was given (`serprof::engines::rkyv_access`)")
}

#[cold]
fn no_updater() -> CodecError {
    CodecError::setup("no update of the archived value was given (`serprof::engines::rkyv_update`)")
}

impl<T: Archive> Rkyv<T> {
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

/// Why rkyv has no split by field.
const RELATIVE: &str = "no field split: rkyv writes an archive of relative pointers, each field's out-of-line data (strings, vectors) before the struct that points at it, not one field after another";

/// rkyv on any type that derives its traits (`Archive`, `Serialize`, `Deserialize`): serialize,
/// deserialize and round-trip rows.
pub fn engine<T: serprof_api::Value + Archived>() -> serprof_api::Engine<T> {
    super::described("rkyv", version(), "rkyv|bytecheck", || Rkyv::<T> {
        aligned: AlignedVec::new(),
        read: None,
        update: None,
    })
    .call("rkyv::api::high::to_bytes_in, rkyv::access + rkyv::deserialize")
    .fields(serprof_api::fields::FieldSplit::Not(RELATIVE.into()))
}

/// rkyv with its in-place reads besides: `rkyv.access` and `rkyv.validated-access` read every
/// field of the archive with `read`, which returns the same digest as the study's digest of the
/// value (`StudyOf::digest`), so that verification can compare them.
pub fn engine_with_access<T: serprof_api::Value + Archived>(
    read: impl Fn(&T::Archived) -> u64 + Send + Sync + 'static,
) -> serprof_api::Engine<T> {
    in_place(std::sync::Arc::new(read), None)
}

/// rkyv with its in-place reads ([`engine_with_access`]) and an update of the archive in place
/// besides: `rkyv.update` applies `update` to each payload through
/// `rkyv::access_unchecked_mut`, as rust_serialization_benchmark's `update (unvalidated)` does.
pub fn engine_with_update<T: serprof_api::Value + Archived>(
    read: impl Fn(&T::Archived) -> u64 + Send + Sync + 'static,
    update: Updates<T>,
) -> serprof_api::Engine<T> {
    in_place(std::sync::Arc::new(read), Some(update)).updates()
}

fn in_place<T: serprof_api::Value + Archived>(
    read: ReadArchived<T>,
    update: Option<Updates<T>>,
) -> serprof_api::Engine<T> {
    use serprof_api::Operation;
    super::described("rkyv", version(), "rkyv|bytecheck", move || Rkyv::<T> {
        aligned: AlignedVec::new(),
        read: Some(read.clone()),
        update: update.clone(),
    })
    .call("rkyv::api::high::to_bytes_in, rkyv::access + rkyv::deserialize")
    .fields(serprof_api::fields::FieldSplit::Not(RELATIVE.into()))
    .access([Operation::Access, Operation::ValidatedAccess])
}

/// rkyv on the Order, with its in-place reads (the `formats` study).
pub fn order_engine() -> serprof_api::Engine<Order> {
    engine_with_access(order_digest)
}

// What rkyv cannot do for the Order model: nothing is lost (shared `Arc`s are archived once and
// come back shared), but the archive is not self-describing, must be read from an aligned
// address, and the Order's root sits at the end of the bytes (a reader needs exactly the written
// slice). The round trip times deserialization into owned values; the access configurations
// time reading the archive in place, rkyv's point.
