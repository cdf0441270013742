//! The seam every engine implements: encode a value into a caller-owned buffer, decode bytes back.
//!
//! One buffer policy for every engine: the harness owns one `Vec<u8>` per configuration, clears
//! it before each encode and reuses it, so allocation figures measure the codec, not `Vec`
//! growth. Decoding takes `&mut [u8]` because in-place parsers (simd-json) parse the encode
//! buffer itself; every other engine only reads it.

/// Why an engine could not encode or decode.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CodecError {
    /// The engine failed to write the value.
    #[error("encode failed: {0}")]
    Encode(String),
    /// The input is not a valid payload; `offset` is the byte where the engine noticed.
    #[error("{message} at byte {offset}")]
    DecodeAt { offset: usize, message: String },
    /// The input is not a valid payload and the engine does not say where.
    #[error("{0}")]
    Decode(String),
    /// The engine could not be set up (registration, schema).
    #[error("setup failed: {0}")]
    Setup(String),
}

impl CodecError {
    /// A decode error from any displayable engine error.
    #[cold]
    pub fn decode(e: impl std::fmt::Display) -> CodecError {
        CodecError::Decode(e.to_string())
    }

    /// An encode error from any displayable engine error.
    #[cold]
    pub fn encode(e: impl std::fmt::Display) -> CodecError {
        CodecError::Encode(e.to_string())
    }
}

/// An engine configuration for values of type `T`.
///
/// `encode` must write the complete payload into `out`, which the caller has cleared; `decode`
/// must accept exactly what `encode` wrote and return an equal value, and must return an error
/// (never panic, never allocate without bound) on anything else.
pub trait Codec<T>: Send {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError>;
    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError>;
}
