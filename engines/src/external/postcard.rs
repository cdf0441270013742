//! postcard: a compact, non-self-describing binary format over serde (varints, no field names).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of postcard this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("postcard", "1.")
}

/// Which of postcard's serializers writes the payload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Call {
    /// `postcard::to_slice` into a buffer the caller owns. The serialize loop's slice call
    /// writes into its one slice, reused; `encode` (every other loop) zero-fills the caller's
    /// `Vec` to its capacity, writes, and truncates it to the payload after; when it is too
    /// small, it grows and the value is written again (only while the buffer's capacity grows
    /// to the largest payload).
    #[default]
    Slice,
    /// `postcard::to_extend`, which pushes every byte through `Extend` onto a growing `Vec`.
    Extend,
}

/// postcard with byte arrays written as `bytes` (`Seq` is serde's default, `Native` is
/// `serde_bytes`), through `call`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Postcard {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
    /// Which postcard call writes the payload.
    pub call: Call,
}

/// The capacity a first `to_slice` tries.
const FIRST_SIZE: usize = 256;

impl<T: Serialize + DeserializeOwned> Codec<T> for Postcard {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        match self.call {
            Call::Slice => {
                let start = out.len();
                let mut room = out.capacity().saturating_sub(start).max(FIRST_SIZE);
                loop {
                    out.resize(start + room, 0);
                    let written = with_serde_bytes(self.bytes, || {
                        postcard::to_slice(value, &mut out[start..]).map(|w| w.len())
                    });
                    match written {
                        Ok(n) => {
                            out.truncate(start + n);
                            return Ok(());
                        }
                        Err(postcard::Error::SerializeBufferFull) => room *= 2,
                        Err(e) => {
                            out.truncate(start);
                            return Err(CodecError::encode(e));
                        }
                    }
                }
            }
            Call::Extend => {
                // `to_extend` takes the buffer by value and hands it back: no copy.
                let buf = std::mem::take(out);
                *out = with_serde_bytes(self.bytes, || postcard::to_extend(value, buf))
                    .map_err(CodecError::encode)?;
                Ok(())
            }
        }
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        match self.call {
            // rust_serialization_benchmark's call: `to_slice` into the caller's slice.
            Call::Slice => Some(
                with_serde_bytes(self.bytes, || postcard::to_slice(value, out))
                    .map(|written| &*written)
                    .map_err(CodecError::encode),
            ),
            Call::Extend => None,
        }
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || postcard::from_bytes(bytes)).map_err(CodecError::decode)
    }
}

/// postcard as a study's engine on `T`, byte arrays written as `bytes`, through `to_slice`.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    with_call(bytes, Call::Slice)
}

/// postcard through `call`: `postcard` for [`Call::Slice`], `postcard-extend` for
/// [`Call::Extend`].
pub fn with_call<T: super::SerdeValue>(bytes: SerdeBytes, call: Call) -> serprof_api::Engine<T> {
    let (name, text) = match call {
        Call::Slice => (
            "postcard",
            "postcard::to_slice (serialize: into one slice reused), postcard::from_bytes",
        ),
        Call::Extend => (
            "postcard-extend",
            "postcard::to_extend, postcard::from_bytes",
        ),
    };
    super::described(
        "postcard",
        version(),
        "postcard|serde(_core)?::",
        move || Postcard { bytes, call },
    )
    .named(name)
    .call(text)
    // `to_extend` writes the bytes `to_slice` writes; the workload checks it value by value.
    .fields(super::recorded(bytes, |t, sink| {
        postcard::to_extend(t, sink).map(|_| ())
    }))
}

// What postcard cannot do for the Order model: it is not self-describing (a reader needs the
// same Rust types), `Vec<u8>` is a sequence of varint-free bytes only with `serde_bytes`, and
// shared references come back as separate allocations.
