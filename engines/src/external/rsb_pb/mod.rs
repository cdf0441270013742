//! What the two Protobuf codecs of rsb's datasets share: prost's messages derived in Rust
//! (`prost_rsb`) and rust-protobuf's generated from `engines/schemas/rsb_*.proto`
//! (`protobuf_rsb`) have the same field names, numbers and types, those of rsb's `.proto`
//! files. They differ in how a nested message is held (`Option` or `MessageField`), how an enum
//! field is held (an `i32` or an `EnumOrUnknown`) and how a struct literal ends (rust-protobuf's
//! messages carry `special_fields`). So each dataset's populate and convert are written once
//! here, as a macro each codec calls with its message types and those few functions, as
//! `mirror_conversions!` does for the Order graph.
//!
//! Every number a message holds wider than the dataset's field is narrowed with `fit`; a
//! missing nested message and an enum number the dataset has no variant for are errors that
//! name the field.

#[macro_use]
mod log;
#[macro_use]
mod mesh;
#[macro_use]
#[doc(hidden)]
pub mod minecraft;
#[macro_use]
#[doc(hidden)]
pub mod mk48;

use serprof_api::CodecError;

/// The message [`serprof_api::Codec::keep_messages`] kept for value `index`, or why there is
/// none.
pub(super) fn kept<M>(kept: &[M], index: usize) -> Result<&M, CodecError> {
    kept.get(index).ok_or_else(|| {
        CodecError::setup(format_args!(
            "no message is kept for value {index}: {} were (`Codec::keep_messages`)",
            kept.len()
        ))
    })
}

/// A number of a message as the narrower type of the dataset's field, or why it does not fit
/// (`what` names the field, `Message.field`).
pub(super) fn fit<S, T>(v: S, what: &str) -> Result<T, CodecError>
where
    S: Copy + std::fmt::Display,
    T: TryFrom<S>,
{
    T::try_from(v)
        .map_err(|_| CodecError::decode(format_args!("{what} {v} is out of its field's range")))
}
