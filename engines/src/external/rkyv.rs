//! rkyv: a zero-copy archive format (the bytes are laid out as the archived types, readable in
//! place), derived on the model's types. Here: serialize into the caller's buffer, then
//! validate the whole archive with bytecheck and deserialize it back into owned values.

use rkyv::rancor::Error;
use rkyv::ser::{Positional, Writer};
use rkyv::util::AlignedVec;

use crate::codec::{Codec, CodecError};
use crate::model::order::ArchivedOrder;
use crate::model::Order;

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
        // The validator rejects unaligned pointers; a heap buffer is aligned in practice but not
        // by contract, so copy only when it is not.
        let bytes: &[u8] = if (bytes.as_ptr() as usize).is_multiple_of(ALIGN) {
            bytes
        } else {
            self.aligned.clear();
            self.aligned.extend_from_slice(bytes);
            &self.aligned
        };
        // Validated access (never `access_unchecked`: damaged input would be undefined behavior).
        let archived = rkyv::access::<ArchivedOrder, Error>(bytes).map_err(CodecError::decode)?;
        rkyv::deserialize::<Order, Error>(archived).map_err(CodecError::decode)
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
    super::described("rkyv", VERSION, "rkyv|bytecheck", Rkyv::default)
}

// What rkyv cannot do for the Order model: nothing is lost (shared `Arc`s are archived once and
// come back shared), but the archive is not self-describing, must be read from an aligned
// address, and the Order's root sits at the end of the bytes (a reader needs exactly the written
// slice). This adapter times deserialization into owned values; reading the archive in place,
// rkyv's point, is not what the round trip measures.
