//! The seam every engine implements: encode a value into a caller-owned buffer, decode bytes back.
//!
//! The harness owns one `Vec<u8>` per configuration, clears it before each encode and reuses
//! it, so allocation figures measure the codec, not `Vec` growth. An engine whose call writes
//! into a slice the caller owns also implements [`Codec::encode_to_slice`]: its serialize loop
//! writes into one buffer allocated and zero-filled before the loop. Decoding takes `&mut [u8]`
//! because in-place parsers (simd-json) parse the encode buffer itself; every other engine only
//! reads it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why an engine could not encode or decode, or could not be set up.
///
/// The engine's own error is kept as its message: engines' error types differ, and a result
/// file stores the kind, the byte offset when the engine gives one, and that message. Build it
/// with [`CodecError::encode`], [`CodecError::decode`], [`CodecError::decode_at`] or
/// [`CodecError::setup`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CodecError {
    /// The engine failed to write the value.
    #[error("encode failed: {message}")]
    Encode {
        /// The engine's message.
        message: String,
    },
    /// The input is not a valid payload.
    #[error("{}", DecodeText { message, offset: *offset })]
    Decode {
        /// The engine's message.
        message: String,
        /// The byte where the engine noticed, when it says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// The engine could not be set up (registration, schema, a document it does not take).
    #[error("setup failed: {message}")]
    Setup {
        /// What went wrong.
        message: String,
    },
}

/// A decode error's text: the message, then the offset when there is one.
struct DecodeText<'a> {
    message: &'a str,
    offset: Option<usize>,
}

impl fmt::Display for DecodeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(at) => write!(f, "{} at byte {at}", self.message),
            None => f.write_str(self.message),
        }
    }
}

impl CodecError {
    /// A decode error from any displayable engine error.
    #[cold]
    pub fn decode(e: impl fmt::Display) -> CodecError {
        CodecError::Decode {
            message: e.to_string(),
            offset: None,
        }
    }

    /// A decode error the engine noticed at byte `offset`.
    #[cold]
    pub fn decode_at(offset: usize, e: impl fmt::Display) -> CodecError {
        CodecError::Decode {
            message: e.to_string(),
            offset: Some(offset),
        }
    }

    /// An encode error from any displayable engine error.
    #[cold]
    pub fn encode(e: impl fmt::Display) -> CodecError {
        CodecError::Encode {
            message: e.to_string(),
        }
    }

    /// A set-up error: the engine or its schema could not be made ready.
    #[cold]
    pub fn setup(e: impl fmt::Display) -> CodecError {
        CodecError::Setup {
            message: e.to_string(),
        }
    }
}

/// An engine configuration for values of type `T`.
///
/// `encode` must write the complete payload into `out`, which the caller has cleared; `decode`
/// must accept exactly what `encode` wrote and return an equal value, and must return an error
/// (never panic, never allocate without bound) on anything else.
pub trait Codec<T>: Send {
    /// Writes `value` into `out` (empty when called).
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// Reads a value back from a payload `encode` wrote (or from damaged bytes: an error).
    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError>;

    /// The engine's call for a buffer the caller allocated once: writes `value` at the start of
    /// `out` and returns the payload, `out`'s first bytes (or, for an engine that keeps its
    /// output in a buffer of its own, like bitcode's reused `Buffer`, that buffer's). The
    /// serialize loop calls it instead of [`Codec::encode`] when the engine has it, as
    /// rust_serialization_benchmark times most engines: `out` is allocated and zero-filled once,
    /// outside the timed loop, larger than the largest payload `encode` writes, and reused
    /// without clearing.
    ///
    /// The payload must be exactly the bytes `encode` writes (verification checks every value
    /// against `encode`'s); an `out` too small for it is an error, never a panic. The default,
    /// `None`, says the engine has no such call: its serialize loop uses `encode`. Every other
    /// loop (round trip, deserialize, the reads) and every command uses `encode`.
    fn encode_to_slice<'a>(
        &'a mut self,
        value: &T,
        out: &'a mut [u8],
    ) -> Option<Result<&'a [u8], CodecError>> {
        let _ = (value, out);
        None
    }

    /// Whether `decode` writes into `bytes` (an in-place parser, like simd-json). A
    /// deserialize-only measurement then copies each payload before decoding it, and its
    /// figure says that it includes the copy. Default is false: `decode` only reads.
    fn decodes_in_place(&self) -> bool {
        false
    }

    /// A zero-copy engine's validated access: checks the whole payload with the engine's
    /// validator, then reads every field where it lies, without building a value, and returns
    /// the study's digest of what it read (see the engines crate's `model::Digest`: verification compares
    /// it with the digest of the value the payload holds). The default says the engine has no
    /// such access; an engine that has one says so to its study with
    /// [`crate::study::Engine::access`].
    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let _ = bytes;
        Err(CodecError::setup(
            "this engine does not read payloads in place",
        ))
    }

    /// The same access without validation, where the engine has an unchecked path. The
    /// default is the validated [`Codec::access`].
    ///
    /// # Safety
    ///
    /// `bytes` must be a payload this codec's `encode` wrote, unchanged: an unchecked read of
    /// anything else may be undefined behaviour. serprof calls it only on the payloads it
    /// encoded before the measured loop, never on damaged input.
    unsafe fn access_unchecked(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        self.access(bytes)
    }

    /// The engine's decode without validation, where it has one that skips checks `decode`
    /// makes (rkyv's `access_unchecked` before `deserialize`); an engine that has one says so
    /// to its study with [`crate::study::Engine::unvalidated_deserialize`], whose configuration
    /// times it beside the validated one. The default says the engine has none.
    ///
    /// # Safety
    ///
    /// `bytes` must be a payload this codec's `encode` wrote, unchanged: an unchecked decode
    /// of anything else may be undefined behaviour. serprof calls it only on the payloads it
    /// encoded before the measured loop, never on damaged input.
    unsafe fn decode_unchecked(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let _ = bytes;
        Err(CodecError::setup("this engine has no unvalidated decode"))
    }

    /// A borrowed decode: reads `bytes` into the engine's form of the value whose strings point
    /// into `bytes` (no copy of them), then drops it. The default says the engine has none;
    /// an engine that has one says so to its study with [`crate::study::Engine::borrows`],
    /// and implements [`Codec::borrow_owned`] too.
    fn borrow(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        let _ = bytes;
        Err(no_borrow())
    }

    /// The same borrowed decode, its value then converted into an owned `T`: what
    /// verification compares with the original (never timed).
    fn borrow_owned(&mut self, bytes: &[u8]) -> Result<T, CodecError> {
        let _ = bytes;
        Err(no_borrow())
    }

    /// For an engine that writes from messages of its own type (prost's and rust-protobuf's
    /// generated messages), which its `encode` builds from the value first: builds the
    /// message of every value of `values` and keeps them, before anything is timed, for
    /// [`Codec::encode_message`]. The default says the engine has no messages; an engine that
    /// has them says so to its study with [`crate::study::Engine::messages`].
    fn keep_messages(&mut self, values: &[T]) -> Result<(), CodecError> {
        let _ = values;
        Err(no_messages())
    }

    /// Writes the kept message of value `index` (of the `values` [`Codec::keep_messages`] was
    /// given) into `out` (empty when called): `encode` without building the message, so the
    /// payload must be exactly the bytes `encode` writes for that value (verification checks
    /// every value).
    fn encode_message(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let _ = (index, out);
        Err(no_messages())
    }

    /// Reads a payload into the engine's message and drops it: `decode` without converting
    /// the message to a `T`, and with the same errors.
    fn decode_message(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        let _ = bytes;
        Err(no_messages())
    }

    /// A zero-copy engine's update: changes some fields of a payload `encode` wrote where they
    /// lie, through the engine's mutable view of it, without validating it first (rkyv's
    /// `access_unchecked_mut`). The update is the study's own (which fields, to what), the same
    /// as [`Codec::update_value`] makes to a value: verification updates each value's payload
    /// once and checks that it is then exactly the payload `encode` writes for the decoded
    /// value after `update_value`. The default says the engine has no such update; an engine
    /// that has one says so to its study with [`crate::study::Engine::updates`].
    ///
    /// # Safety
    ///
    /// `bytes` must be a payload this codec's `encode` wrote, changed since only by this
    /// update: an unchecked write into anything else may be undefined behaviour. serprof calls
    /// it only on the payloads it encoded before the measured loop, never on damaged input.
    unsafe fn update_unchecked(&mut self, bytes: &mut [u8]) -> Result<(), CodecError> {
        let _ = bytes;
        Err(no_update())
    }

    /// The change [`Codec::update_unchecked`] makes to a payload, made to a value (never
    /// timed: what verification compares the updated payload with).
    fn update_value(&mut self, value: &mut T) -> Result<(), CodecError> {
        let _ = value;
        Err(no_update())
    }
}

/// The error of an engine asked for an in-place update it does not have.
#[cold]
fn no_update() -> CodecError {
    CodecError::setup("this engine does not update payloads in place")
}

/// The error of an engine asked for messages it does not have.
#[cold]
fn no_messages() -> CodecError {
    CodecError::setup("this engine has no messages of its own to encode and decode")
}

/// The error of an engine asked for a borrowed decode it does not have.
#[cold]
fn no_borrow() -> CodecError {
    CodecError::setup("this engine does not decode into borrowed values")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_before_and_store_their_kind() {
        assert_eq!(
            CodecError::decode_at(7, "bad digit").to_string(),
            "bad digit at byte 7"
        );
        assert_eq!(CodecError::decode("eof").to_string(), "eof");
        assert_eq!(CodecError::encode("x").to_string(), "encode failed: x");
        assert_eq!(CodecError::setup("y").to_string(), "setup failed: y");
        let json = serde_json::to_string(&CodecError::decode_at(3, "m")).unwrap();
        assert_eq!(json, r#"{"kind":"decode","message":"m","offset":3}"#);
        let back: CodecError = serde_json::from_str(r#"{"kind":"decode","message":"m"}"#).unwrap();
        assert_eq!(back, CodecError::decode("m"));
    }
}
