//! What the two Protobuf codecs of rsb's datasets share: prost's messages derived in Rust
//! (`prost_rsb`) and rust-protobuf's generated from `engines/schemas/rsb_*.proto`
//! (`protobuf_rsb`) have the same field names, numbers and types, those of rsb's `.proto`
//! files. They differ in how a nested message is held (`Option` or `MessageField`), how an enum
//! field is held (an `i32` or an `EnumOrUnknown`) and how a struct literal ends (rust-protobuf's
//! messages carry `special_fields`). So each dataset's populate and convert are written once
//! here, as a macro each codec calls with its message types and those few functions, as
//! `mirror_conversions!` does for the Order graph.
//!
//! Every number a message holds wider than the dataset's field is narrowed with [`fit`]; a
//! missing nested message and an enum number the dataset has no variant for are errors that
//! name the field.

#[macro_use]
mod log;
#[macro_use]
mod mesh;
#[macro_use]
pub(super) mod minecraft;
#[macro_use]
pub(super) mod mk48;

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

/// A codec's message configurations on the log, for its tests: the kept message of a value
/// writes the value's payload, the payload reads into messages and a cut one does not, and no
/// message is kept past the values given.
#[cfg(test)]
pub(super) fn check_kept_messages<C>()
where
    C: serprof_api::Codec<crate::dataset::rsb::log::Logs> + Default,
{
    let logs = crate::dataset::rsb::log::logs();
    let mut codec = C::default();
    codec.keep_messages(&logs).unwrap();
    let (mut value, mut kept) = (Vec::new(), Vec::new());
    codec.encode(&logs[0], &mut value).unwrap();
    codec.encode_message(0, &mut kept).unwrap();
    assert_eq!(value, kept);
    codec.decode_message(&value).unwrap();
    // Cut inside the last log: a length that runs past the end.
    assert!(codec.decode_message(&value[..value.len() - 3]).is_err());
    let e = codec.encode_message(logs.len(), &mut kept).unwrap_err();
    assert!(e.to_string().contains("no message is kept"), "{e}");
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
