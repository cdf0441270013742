//! nanoserde: its binary format (`SerBin`/`DeBin`: fixed-width little-endian integers, u64
//! lengths, u16 enum tags, no field names) derived on the model's types, with the proxies and
//! impls of `model::nanoserde_with` for the `Arc` fields and the ordered attributes and tags.
//!
//! nanoserde's decoders are used as they ship. Its `Vec` decoder reserves the u64 length it
//! reads before reading any element, so a damaged length can ask for more memory than exists
//! (a "capacity overflow" panic, or an allocation failure that aborts the process): the
//! `corrupt` study, which decodes each engine in a child process, reports that as a crash.

use nanoserde::{DeBin, SerBin};

use serprof_api::{Codec, CodecError};

/// The version of nanoserde this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("nanoserde", "0.2.")
}

/// nanoserde through its derives on the model.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nanoserde;

impl<T: SerBin + DeBin> Codec<T> for Nanoserde {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `ser_bin` appends to the caller's buffer; it cannot fail.
        value.ser_bin(out);
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        // `deserialize_bin` would ignore bytes after the value: read from an offset instead.
        let mut read = 0;
        let value = T::de_bin(&mut read, bytes).map_err(CodecError::decode)?;
        super::whole(read, bytes.len())?;
        Ok(value)
    }
}

/// nanoserde as rust_serialization_benchmark serializes it: `SerBin::serialize_bin`, a new
/// `Vec` for every payload (grown as it is written, freed when the next one replaces it).
pub struct FreshVec {
    payload: Vec<u8>,
}

impl<T: SerBin + DeBin> Codec<T> for FreshVec {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Nanoserde.encode(value, out)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // The payload is in the new `Vec`; `out` is not used.
        let _ = out;
        self.payload = value.serialize_bin();
        Some(Ok(&self.payload))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        Codec::<T>::decode(&mut Nanoserde, bytes)
    }
}

/// nanoserde whose serialize loop allocates a new `Vec` per payload ([`FreshVec`]), as rsb
/// times it (its studies); named `nanoserde`.
pub fn fresh_vec_engine<T: serprof_api::Value + SerBin + DeBin>() -> serprof_api::Engine<T> {
    super::described("nanoserde", version(), "nanoserde", || FreshVec {
        payload: Vec::new(),
    })
    .call("SerBin::ser_bin (serialize: SerBin::serialize_bin, a new Vec each), DeBin::de_bin")
}

/// nanoserde on any type that derives its binary traits (`SerBin`, `DeBin`).
pub fn engine<T: serprof_api::Value + SerBin + DeBin>() -> serprof_api::Engine<T> {
    super::described("nanoserde", version(), "nanoserde", || Nanoserde)
        .call("SerBin::ser_bin, DeBin::de_bin")
}

// What nanoserde cannot do for the Order model: it has no `Arc` (the field proxies write each
// shared value in full: shared references are not kept), no `IndexMap`/`IndexSet` (impls of
// ours write them as nanoserde's list layout, in insertion order), and no bytes mode (a
// thumbnail is written and read one u8 at a time); its `Vec` and `String` decoders trust the
// lengths they read (see above); it is not self-describing; prices are the cents as an i64.
