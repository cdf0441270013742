//! Bytes by field: which paths of a value (`Reading.raw`, `Order.lines[].product.thumbnail`)
//! take a payload's bytes, measured outside every timed loop.
//!
//! An engine says how its payload splits ([`FieldSplit`]):
//! - [`FieldSplit::Record`]: the value is serialized again by the engine's format through a
//!   recording serializer ([`record`]), which forwards every call and notes the byte position
//!   around each field; the workload checks the recorded bytes equal the timed call's payload,
//!   value by value, and gives no split where they differ;
//! - [`FieldSplit::Payload`]: the timed call's payload itself is read by field ([`json_text`],
//!   for JSON engines that do not go through serde);
//! - [`FieldSplit::Not`]: the format does not lay out by field (columns, relative pointers),
//!   or its writer cannot be recorded; the reason is kept instead of a guess.
//!
//! A split partitions the payload: each path's own bytes are its key, its framing and every
//! leaf value under it that no listed child holds, and the root (the type's name) keeps the
//! outer framing, so the paths add up to the payload exactly. A sequence's compound elements
//! (structs, sequences, maps, enums with data) are one path, `[]`, summed over the elements; a
//! map's compound values are `{}`; a tuple's compound fields are `.0`, `.1`; the fields of an
//! enum variant with data are under `::Variant`.

mod error;
mod json;
mod record;
pub(crate) mod tally;

use std::fmt::Display;
use std::sync::Arc;

use serde::Serialize;

pub use error::{FieldsError, JsonProblem};
pub use json::json_text;
pub use record::{PayloadPaths, Sink, Tracked};

use record::Recorder;
use tally::short_type;

/// Records a value's serialization ([`FieldSplit::Record`]).
pub type Recording<T> = Arc<dyn Fn(&T) -> Result<PayloadPaths, FieldsError> + Send + Sync>;
/// Reads a payload by field ([`FieldSplit::Payload`]).
pub type PayloadReader = Arc<dyn Fn(&[u8]) -> Result<PayloadPaths, FieldsError> + Send + Sync>;

/// How an engine's payload splits by field.
pub enum FieldSplit<T> {
    /// Serialize the value again through a recording serializer ([`record`]).
    Record(Recording<T>),
    /// Read the timed call's payload by field.
    Payload(PayloadReader),
    /// No split, and why.
    Not(String),
}

impl<T> Clone for FieldSplit<T> {
    fn clone(&self) -> Self {
        match self {
            FieldSplit::Record(f) => FieldSplit::Record(Arc::clone(f)),
            FieldSplit::Payload(f) => FieldSplit::Payload(Arc::clone(f)),
            FieldSplit::Not(why) => FieldSplit::Not(why.clone()),
        }
    }
}

/// Records `value` as `write` serializes it: `write` hands the [`Tracked`] value, in place of
/// the value, to the format's writer, which writes into the [`Sink`]
/// (`|t, sink| serde_json::to_writer(sink, t)`).
pub fn record<T: Serialize + ?Sized, E: Display>(
    value: &T,
    write: impl for<'r> FnOnce(&Tracked<'r, T>, Sink<'r>) -> Result<(), E>,
) -> Result<PayloadPaths, FieldsError> {
    let (bytes, paths) = Recorder::record(value, short_type(std::any::type_name::<T>()), write)?;
    Ok(PayloadPaths { bytes, paths })
}

#[cfg(test)]
mod tests;
