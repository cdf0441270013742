//! flatbuffers on rust_serialization_benchmark's four datasets: FlatBuffers tables through the
//! code Debian's flatc 2.0.8 generates from `engines/schemas/rsb_*.fbs` (committed here as
//! `rsb_*_generated.rs`; `scripts/regenerate-schemas` writes them again), schemas with the
//! tables, structs, fields and field types of rsb's `.fbs` files. The crate is flatbuffers
//! 2.1.2 (flatc 2.0.8's Rust compiles only against 2.x, see [`super::flatbuffers`]); rsb's is
//! 25.12.19.
//!
//! - serialize (rsb's `serialize`): one [`FlatBufferBuilder`], reused and `reset` before each
//!   value, into which [`Tables::build`] writes the value's tables, child before parent, with
//!   the builder calls in the order rsb makes them (the order decides the bytes), then
//!   `finish(root, None)`. The serialize loop takes the finished bytes where they lie in the
//!   builder ([`Codec::encode_to_slice`], as rsb leaves them); [`Codec::encode`], which every
//!   other loop uses, copies them into the caller's buffer besides (that copy is serprof's).
//! - deserialize (a row rsb does not have): `flatbuffers::root` verifies the whole buffer
//!   (bounds, alignment within the buffer, UTF-8, required fields, depth 64, at most 1 M
//!   tables: the verifier's default options, as [`super::flatbuffers`] uses them), then
//!   [`Tables::read`] reads every field back into an owned value.
//! - access and validated access (rsb's `read (unvalidated)` and `read (validated upfront with
//!   error)`): `flatbuffers::root_unchecked`, or `flatbuffers::root`, then
//!   [`Tables::read_in_place`] reads the fields rsb's read touches where they lie, and returns
//!   the dataset's `read_digest` of them.
//!
//! RUSTSEC-2021-0122 applies to flatbuffers 2.1.2 (see [`super::flatbuffers`]): decode and the
//! validated access read only buffers `flatbuffers::root` verified; the unchecked access reads
//! only payloads `encode` wrote (the contract of [`Codec::access_unchecked`]).

pub mod log;
pub mod mesh;
pub mod minecraft;
pub mod mk48;

use flatbuffers::{FlatBufferBuilder, Follow, Verifiable, WIPOffset};

use serprof_api::{Codec, CodecError, Engine};

use super::flatbuffers::generated;

generated!(
    /// `rsb_log.fbs`'s types, as flatc generates them.
    rsb_log_generated,
    /// `rsb_mesh.fbs`'s types, as flatc generates them.
    rsb_mesh_generated,
    /// `rsb_mk48.fbs`'s types, as flatc generates them.
    rsb_mk48_generated,
    /// `rsb_minecraft.fbs`'s types, as flatc generates them.
    rsb_minecraft_generated,
);

/// The builder every value is written into: its tables live as long as the builder's buffer.
pub type Builder = FlatBufferBuilder<'static>;

/// A dataset value and its FlatBuffers tables: build them, read them back, read in place.
pub trait Tables: Sized {
    /// The root table, as the generated code reads it from a buffer.
    type Root<'a>: Follow<'a, Inner = Self::Root<'a>> + Verifiable + 'a;

    /// Writes the value's tables into `builder` (reset, empty), with rsb's calls in rsb's
    /// order, and returns the root table for `finish`; or why the value has no such tables.
    fn build(&self, builder: &mut Builder) -> Result<WIPOffset<Self::Root<'static>>, CodecError>;

    /// Every field of a verified root read back into a value, or why it is not one.
    fn read(root: Self::Root<'_>) -> Result<Self, CodecError>;

    /// The fields rsb's read touches, read where they lie: the dataset's `read_digest` of
    /// them, or why the buffer does not have them.
    fn read_in_place(root: Self::Root<'_>) -> Result<u64, CodecError>;
}

/// flatbuffers through the tables of [`Tables`], with one builder reused for every value.
pub struct FlatbuffersRsb {
    builder: Builder,
}

impl Default for FlatbuffersRsb {
    fn default() -> Self {
        FlatbuffersRsb {
            builder: FlatBufferBuilder::new(),
        }
    }
}

impl FlatbuffersRsb {
    /// rsb's serialize: reset, build, `finish(root, None)`; the finished bytes, in the builder.
    fn build<T: Tables>(&mut self, value: &T) -> Result<&[u8], CodecError> {
        self.builder.reset();
        let root = value.build(&mut self.builder)?;
        self.builder.finish(root, None);
        Ok(self.builder.finished_data())
    }
}

/// The root of `bytes` after the verifier checked the whole buffer.
fn verified<'a, T: Tables>(bytes: &'a [u8]) -> Result<T::Root<'a>, CodecError> {
    flatbuffers::root::<T::Root<'a>>(bytes).map_err(CodecError::decode)
}

impl<T: Tables> Codec<T> for FlatbuffersRsb {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // serprof's copy: the harness's buffer receives the bytes the builder holds.
        out.extend_from_slice(self.build(value)?);
        Ok(())
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // rsb's call: the payload stays in the reused builder, not copied; `out` is not used.
        let _ = out;
        Some(self.build(value))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        T::read(verified::<T>(bytes)?)
    }

    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        T::read_in_place(verified::<T>(bytes)?)
    }

    unsafe fn access_unchecked(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        // SAFETY: the caller gives a payload `encode` wrote, unchanged (the trait's contract):
        // a finished buffer of `T::Root`, every offset in it inside it.
        let root = unsafe { flatbuffers::root_unchecked::<T::Root<'_>>(bytes) };
        T::read_in_place(root)
    }
}

/// flatbuffers on a dataset of rsb's that has tables here, with its in-place reads
/// (`flatbuffers.access`, `flatbuffers.validated-access`).
pub fn engine<T: Tables + serprof_api::Value>() -> Engine<T> {
    use serprof_api::Operation;
    super::described(
        "flatbuffers",
        super::flatbuffers::version(),
        "flatbuffers|serprof_engines::external::flatbuffers_rsb",
        FlatbuffersRsb::default,
    )
    .call(
        "FlatBufferBuilder (reused: reset, the generated builders, finish(root, None); \
         serialize: the payload left in the builder, other loops: copied out), \
         flatbuffers::root + owned copy; access: flatbuffers::root_unchecked, \
         validated access: flatbuffers::root, each + the fields rsb's read touches",
    )
    .access([Operation::Access, Operation::ValidatedAccess])
}

/// A struct or table the schema leaves optional but the dataset always has: absent, it is a
/// decode error naming `what`.
fn present<T>(field: Option<T>, what: &str) -> Result<T, CodecError> {
    field.ok_or_else(|| absent(what))
}

#[cold]
fn absent(what: &str) -> CodecError {
    CodecError::decode(format_args!("missing field {what}"))
}
