//! capnp on rust_serialization_benchmark's four datasets: Cap'n Proto structs with the fields,
//! types and order of rsb's `.capnp` schemas (`engines/schemas/rsb_*.capnp`, so the layout and
//! the bytes are rsb's), through the code capnpc 0.27.0 generates from them (committed as
//! `rsb_*_capnp.rs`; `scripts/regenerate-schemas` writes it again), and a codec per dataset
//! ([`Structs`], one module each) that does what rsb times:
//!
//! - serialize: a `capnp::message::Builder` over capnp's `ScratchSpaceHeapAllocator`, whose
//!   first segment is one zeroed buffer of rsb's size ([`SCRATCH_WORDS`]) made with the codec
//!   and reused by every encode (capnp zeroes what a message used when it drops it), the value
//!   built into it field by field in rsb's order, then `capnp::serialize::write_message` into
//!   the caller's buffer (the unpacked format: segment table, then segments);
//! - deserialize (a row rsb lacks: serprof verifies every configuration by a round trip):
//!   `read_message_from_flat_slice`, then every field read back through the generated readers
//!   into an owned value;
//! - validated access (rsb's `read (validated on-demand with error)`): the same message, and
//!   only the fields rsb's read touches, read where they lie.
//!
//! [`packed_engine`] is rsb's second capnp variant, `packed`: the same message written by
//! `capnp::serialize_packed::write_message` (runs of zero bytes squeezed out), and read back,
//! for both reads, by `capnp::serialize_packed::read_message`, which unpacks the whole payload
//! into segments of its own before anything is read (rsb's `read (packed)`: not in place).
//!
//! The dataset's numbers have the schema's types exactly (`u8` is `UInt8`, `i16` is `Int16`),
//! so no number read back can fail to fit; an enum number or union discriminant the schema does
//! not know is a decode error that names its field. A list or text too long for capnp (2^29
//! elements, words or bytes, where capnp would panic) is an encode error that names its field.

pub mod log;
pub mod mesh;
pub mod minecraft;
pub mod mk48;

super::capnp::generated! {
    /// rsb's `log.capnp`, as capnpc-rust generates it (undocumented: generated code).
    rsb_log_capnp;
    /// rsb's `mesh.capnp`, as capnpc-rust generates it.
    rsb_mesh_capnp;
    /// rsb's `minecraft_savedata.capnp`, as capnpc-rust generates it.
    rsb_minecraft_capnp;
    /// rsb's `mk48.capnp`, as capnpc-rust generates it.
    rsb_mk48_capnp;
}

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use capnp::message::{Builder, ReaderOptions, ScratchSpaceHeapAllocator};
use capnp::struct_list;
use capnp::traits::{HasStructSize, Owned, OwnedStruct};
use capnp::Word;

use crate::model::Digest;
use serprof_api::{Codec, CodecError, Engine, Operation};

/// The words of the scratch space, rsb's `BUFFER_LEN` (8 MB): the first segment of every
/// message. Where a message outgrows it (the mesh's 14 MB), capnp continues in heap segments
/// and reaches what it placed there through far pointers, which the payload's size counts: the
/// same scratch size gives rsb's bytes.
pub const SCRATCH_WORDS: usize = 1_000_000;

/// A dataset value and its root struct: built, read back, read in place.
pub trait Structs: Sized {
    /// The root struct of the dataset's schema (`logs::Owned`).
    type Root: Owned;

    /// Writes the value into the message's root, each field as rsb's serialize writes it, in
    /// its order (the order places the structs in the segments).
    fn build(&self, root: <Self::Root as Owned>::Builder<'_>) -> Result<(), CodecError>;

    /// Reads every field back into an owned value, or says why the message is not one.
    fn read(root: <Self::Root as Owned>::Reader<'_>) -> Result<Self, CodecError>;

    /// Reads in place exactly the fields rsb's read touches, into the digest the dataset's
    /// `read_digest` gives for the value (the access rows' check).
    fn digest(root: <Self::Root as Owned>::Reader<'_>) -> Result<u64, CodecError>;
}

/// capnp through the generated code, with rsb's scratch space, in the unpacked format or the
/// packed one (see the module's doc).
pub struct CapnpRsb {
    scratch: Scratch,
    /// Where a payload that does not start on an 8-byte boundary is copied before it is read.
    aligned: Vec<Word>,
    /// Writes and reads capnp's packed format.
    packed: bool,
}

impl CapnpRsb {
    /// A codec of the unpacked format, or of the packed one.
    pub fn new(packed: bool) -> CapnpRsb {
        CapnpRsb {
            scratch: Scratch::new(),
            aligned: Vec::new(),
            packed,
        }
    }

    /// `read` on the root of the message in `bytes`, which must be all of it.
    fn on_root<T: Structs, R>(
        &mut self,
        bytes: &[u8],
        read: impl FnOnce(<T::Root as Owned>::Reader<'_>) -> Result<R, CodecError>,
    ) -> Result<R, CodecError> {
        if self.packed {
            let mut rest = bytes;
            let message = capnp::serialize_packed::read_message(&mut rest, ReaderOptions::new())
                .map_err(CodecError::decode)?;
            super::whole(bytes.len() - rest.len(), bytes.len())?;
            let root = message.get_root().map_err(CodecError::decode)?;
            read(root)
        } else {
            let message = super::capnp::flat_message(bytes, &mut self.aligned)?;
            let root = message.get_root().map_err(CodecError::decode)?;
            read(root)
        }
    }
}

impl<T: Structs> Codec<T> for CapnpRsb {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let mut message = Builder::new(self.scratch.allocator());
        value.build(message.init_root())?;
        // `Vec<u8>` is a capnp writer: appends.
        let written = if self.packed {
            capnp::serialize_packed::write_message(&mut *out, &message)
        } else {
            capnp::serialize::write_message(&mut *out, &message)
        };
        written.map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        self.on_root::<T, T>(bytes, T::read)
    }

    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        self.on_root::<T, u64>(bytes, T::digest)
    }
}

/// capnp on a dataset of rsb's that has structs here. Its in-place read is offered as
/// [`Operation::ValidatedAccess`] only: capnp's public API has no unchecked reader of a message;
/// its reader checks each pointer (bounds, kind, the traversal and nesting limits) when it is
/// followed, what rsb labels "validated on-demand with error". The read reads the segment table,
/// then only what rsb's read touches, so it validates only that.
pub fn engine<T: Structs + serprof_api::Value>() -> Engine<T> {
    format(false).call(
        "message::Builder over ScratchSpaceHeapAllocator + build + capnp::serialize::write_message, \
         capnp::serialize::read_message_from_flat_slice + get_root + read every field; \
         validated access: read_message_from_flat_slice + get_root + the fields rsb reads",
    )
}

/// capnp's packed format on a dataset of rsb's, as the engine `capnp-packed` (rsb's `packed`
/// variants of capnp's serialize, size and read). Its reads unpack the payload first, so its
/// `validated-access` is rsb's `read (packed)`: the fields rsb reads, from the unpacked copy.
pub fn packed_engine<T: Structs + serprof_api::Value>() -> Engine<T> {
    format(true).named("capnp-packed").call(
        "message::Builder over ScratchSpaceHeapAllocator + build + \
         capnp::serialize_packed::write_message, capnp::serialize_packed::read_message + \
         get_root + read every field; validated access: serialize_packed::read_message + \
         get_root + the fields rsb reads",
    )
}

/// The engine of capnp's packed or unpacked format, with its validated read.
fn format<T: Structs + serprof_api::Value>(packed: bool) -> Engine<T> {
    super::described(
        "capnp",
        super::capnp::version(),
        "capnp|serprof_engines::external::capnp_rsb",
        move || CapnpRsb::new(packed),
    )
    .access([Operation::ValidatedAccess])
}

/// rsb's scratch space under capnp's `ScratchSpaceHeapAllocator`, owned: the allocator borrows
/// a buffer this struct owns, so the buffer is zeroed once (when the allocator is made), not
/// before every message as a new allocator would.
struct Scratch {
    /// Borrows `words`; dropped before them, in `Drop`.
    allocator: ManuallyDrop<ScratchSpaceHeapAllocator<'static>>,
    /// The buffer, out of its box while the allocator borrows it.
    words: NonNull<[Word]>,
}

impl Scratch {
    fn new() -> Scratch {
        let boxed = Word::allocate_zeroed_vec(SCRATCH_WORDS).into_boxed_slice();
        let words = NonNull::from(Box::leak(boxed));
        // SAFETY: `words` is the only pointer to the leaked buffer; the allocator's borrow,
        // made from it, lasts until `Drop` drops the allocator, before it frees the buffer.
        let bytes = Word::words_to_bytes_mut(unsafe { &mut *words.as_ptr() });
        Scratch {
            allocator: ManuallyDrop::new(ScratchSpaceHeapAllocator::new(bytes)),
            words,
        }
    }

    /// The allocator, for one message builder at a time.
    fn allocator(&mut self) -> &mut ScratchSpaceHeapAllocator<'static> {
        &mut self.allocator
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: the allocator is dropped once, here, and is the buffer's only borrower; the
        // buffer is then freed once, from the box it was leaked from.
        unsafe {
            ManuallyDrop::drop(&mut self.allocator);
            drop(Box::from_raw(self.words.as_ptr()));
        }
    }
}

// SAFETY: a `Scratch` owns its buffer and its allocator, and nothing else points to either; the
// allocator (a slice and capnp's heap allocator's sizes) may move to another thread with it.
unsafe impl Send for Scratch {}

/// capnp's bound on a list's elements, a struct list's words and a text's bytes: it asserts
/// each (a panic), where this codec says so first.
pub const CAPNP_BOUND: usize = 1 << 29;

/// The length of the list or text `what` as capnp's count, or an encode error naming it.
/// `words` is a struct element's size, 1 for the elements of a list of numbers or the bytes of
/// a text.
pub fn count(n: usize, words: usize, what: &str) -> Result<u32, CodecError> {
    match u32::try_from(n) {
        Ok(c) if n.saturating_mul(words) < CAPNP_BOUND => Ok(c),
        _ => Err(CodecError::encode(format_args!(
            "{what} has {n} elements, more than capnp's 2^29"
        ))),
    }
}

/// The list `what` of `items`, each built by `build` into its struct of the list `init` makes
/// for their count.
fn build_list<'b, S: OwnedStruct, V>(
    items: &[V],
    what: &str,
    init: impl FnOnce(u32) -> struct_list::Builder<'b, S>,
    build: impl Fn(&V, S::Builder<'_>) -> Result<(), CodecError>,
) -> Result<(), CodecError> {
    let words = <S::Builder<'_> as HasStructSize>::STRUCT_SIZE.total() as usize;
    let mut list = init(count(items.len(), words, what)?);
    for (i, item) in (0..).zip(items) {
        build(item, list.reborrow().get(i))?;
    }
    Ok(())
}

/// Every struct of a list read back by `read`.
fn read_list<'a, S: OwnedStruct, V>(
    list: capnp::Result<struct_list::Reader<'a, S>>,
    read: impl Fn(S::Reader<'a>) -> Result<V, CodecError>,
) -> Result<Vec<V>, CodecError> {
    checked(list)?.iter().map(read).collect()
}

/// `s`, the text `what`, when capnp can write it.
fn text<'s>(s: &'s str, what: &str) -> Result<&'s str, CodecError> {
    count(s.len(), 1, what).map(|_| s)
}

/// A text read back as an owned string: its pointer checked, its bytes as UTF-8.
fn owned(t: capnp::Result<capnp::text::Reader<'_>>) -> Result<String, CodecError> {
    super::capnp::text(t).map_err(CodecError::decode)
}

/// An enum number or union discriminant the schema names, or a decode error naming `what`.
fn known<E>(v: Result<E, capnp::NotInSchema>, what: &str) -> Result<E, CodecError> {
    v.map_err(|capnp::NotInSchema(n)| {
        CodecError::decode(format_args!("{what} {n} is not in the schema"))
    })
}

/// A capnp error (a pointer that does not check) as a decode error.
fn checked<V>(v: capnp::Result<V>) -> Result<V, CodecError> {
    v.map_err(CodecError::decode)
}

/// The digest of `read` on each of `items`, in order: the access rows' digest, as
/// `dataset::rsb::read_each` gives it for the value.
fn read_each<I>(
    items: impl IntoIterator<Item = I>,
    read: impl Fn(&mut Digest, I) -> Result<(), CodecError>,
) -> Result<u64, CodecError> {
    let mut d = Digest::default();
    for item in items {
        read(&mut d, item)?;
    }
    Ok(d.finish())
}
