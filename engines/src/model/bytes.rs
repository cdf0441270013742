//! `ByteArray`: a `byte[]` of the model (product thumbnails), and how serde engines write it.
//!
//! Serde writes a `Vec<u8>` as a sequence of integers in every format (`[179,255,99,...]` in
//! JSON: the same trap as Fory JSON 1.7.0's decimal arrays). Whether an engine writes bytes as a
//! sequence, as a native byte string (`serde_bytes`) or as base64 text is a configuration of the
//! study, so the choice is made per thread with [`with_serde_bytes`]: the adapter sets it once per
//! encode or decode call, and the per-array cost is one thread-local read.

use std::cell::Cell;
use std::fmt;

use base64::Engine as _;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

engine_derives! {
/// The bytes of a `byte[]`.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "musli", musli(transparent))]
// nanoserde has no bytes mode: its derive writes the u8s one by one (a u64 length first).
#[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
pub struct ByteArray(#[cfg_attr(feature = "musli", musli(bytes))] pub Vec<u8>);
}

impl fmt::Debug for ByteArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ByteArray({} bytes)", self.0.len())
    }
}

/// How a serde engine writes a [`ByteArray`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SerdeBytes {
    /// Serde's default for `Vec<u8>`: a sequence of integers.
    #[default]
    Seq,
    /// A native byte string (`serialize_bytes`, what `serde_bytes` does).
    Native,
    /// Standard base64 with padding (RFC 4648), written with the `base64` crate's `Display`
    /// adapter (no intermediate `String`) and decoded from the borrowed string.
    Base64,
}

thread_local! {
    static MODE: Cell<SerdeBytes> = const { Cell::new(SerdeBytes::Seq) };
}

/// Runs `f` with byte arrays written and read as `mode` on this thread.
pub fn with_serde_bytes<R>(mode: SerdeBytes, f: impl FnOnce() -> R) -> R {
    let previous = MODE.with(|m| m.replace(mode));
    struct Restore(SerdeBytes);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(previous);
    f()
}

/// The byte-array mode this thread serialises with (the one `with_mode` set; tests read it).
pub fn mode() -> SerdeBytes {
    MODE.with(Cell::get)
}

// Both impls are `#[inline(never)]` so that CPU profiles, which name physical frames, show the
// byte-array work of serde engines under `ByteArray` (the `bytes` study's question); one call
// per array.
impl Serialize for ByteArray {
    #[inline(never)]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match mode() {
            SerdeBytes::Seq => self.0.serialize(serializer),
            SerdeBytes::Native => serializer.serialize_bytes(&self.0),
            SerdeBytes::Base64 => serializer.collect_str(&base64::display::Base64Display::new(
                &self.0,
                &base64::engine::general_purpose::STANDARD,
            )),
        }
    }
}

struct NativeVisitor;

impl<'de> Visitor<'de> for NativeVisitor {
    type Value = ByteArray;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ByteArray, E> {
        Ok(ByteArray(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<ByteArray, E> {
        Ok(ByteArray(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ByteArray, A::Error> {
        // Some formats (postcard, bincode) hand a byte string to `deserialize_byte_buf` as a
        // sequence when they cannot borrow; accept it without trusting the size hint.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(b) = seq.next_element()? {
            out.push(b);
        }
        Ok(ByteArray(out))
    }
}

struct Base64Visitor;

impl Visitor<'_> for Base64Visitor {
    type Value = ByteArray;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a base64 string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteArray, E> {
        base64::engine::general_purpose::STANDARD
            .decode(v)
            .map(ByteArray)
            .map_err(|e| E::custom(format_args!("invalid base64: {e}")))
    }
}

impl<'de> Deserialize<'de> for ByteArray {
    #[inline(never)]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ByteArray, D::Error> {
        match mode() {
            SerdeBytes::Seq => Vec::<u8>::deserialize(deserializer).map(ByteArray),
            SerdeBytes::Native => deserializer.deserialize_byte_buf(NativeVisitor),
            SerdeBytes::Base64 => deserializer.deserialize_str(Base64Visitor),
        }
    }
}
