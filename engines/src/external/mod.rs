//! One small adapter per third-party library, all through [`crate::Codec`], each behind the
//! cargo feature of its crate's name (`serde_json` is always built).
//!
//! Every adapter has the same shape: a struct holding its options, `encode` into the caller's
//! buffer, `decode` from the payload, and for a serde engine an `engine` function that
//! describes it to a study (its name, library version, format, frames and feature). A trailing
//! comment in each file names what the library cannot do for the Order model. Module names
//! match the crates' names; they live here, one level down, so that they do not shadow the
//! crates elsewhere.
//!
//! [`serde_engines`] gives every serde engine of the build on any type that derives serde's
//! traits (`serprof::engines::serde()`, which a study adds with `StudyOf::engines`).

#[cfg(any(feature = "prost", feature = "bilrost", feature = "protobuf"))]
#[macro_use]
mod mirror;
#[cfg(any(feature = "prost", feature = "protobuf"))]
#[macro_use]
#[doc(hidden)]
pub mod rsb_pb;

#[cfg(feature = "bilrost")]
pub mod bilrost;
#[cfg(feature = "bincode")]
pub mod bincode;
#[cfg(feature = "bincode1")]
pub mod bincode1;
#[cfg(feature = "bitcode")]
pub mod bitcode;
pub mod borrowed;
#[cfg(feature = "borsh")]
pub mod borsh;
#[cfg(feature = "capnp")]
pub mod capnp;
#[cfg(feature = "capnp")]
pub mod capnp_rsb;
#[cfg(feature = "ciborium")]
pub mod ciborium;
#[cfg(feature = "flatbuffers")]
pub mod flatbuffers;
#[cfg(feature = "flatbuffers")]
pub mod flatbuffers_rsb;
#[cfg(feature = "fory")]
pub mod fory;
#[cfg(feature = "minicbor")]
pub mod minicbor;
#[cfg(feature = "msgpacker")]
pub mod msgpacker;
#[cfg(feature = "musli")]
pub mod musli;
#[cfg(feature = "nanoserde")]
pub mod nanoserde;
#[cfg(feature = "postcard")]
pub mod postcard;
#[cfg(feature = "prost")]
pub mod prost;
#[cfg(feature = "prost")]
pub mod prost_rsb;
#[cfg(feature = "protobuf")]
pub mod protobuf;
#[cfg(feature = "protobuf")]
pub mod protobuf_rsb;
#[cfg(feature = "rkyv")]
pub mod rkyv;
#[cfg(feature = "rmp-serde")]
pub mod rmp_serde;
pub mod serde_json;
#[cfg(feature = "simd-json")]
pub mod simd_json;
#[cfg(feature = "sonic-rs")]
pub mod sonic_rs;
#[cfg(feature = "speedy")]
pub mod speedy;
#[cfg(feature = "wincode")]
pub mod wincode;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::SerdeBytes;
use serprof_api::fields::{FieldSplit, Sink, Tracked};
use serprof_api::Engine;
use serprof_api::Value;

/// A value every serde engine can take.
pub trait SerdeValue: Value + Serialize + DeserializeOwned {}
impl<T: Value + Serialize + DeserializeOwned> SerdeValue for T {}

/// Every serde engine of this build's features, on `T`, as serde comes (`Vec<u8>` as a
/// sequence of integers), in the order of the `formats` study: JSON (serde_json, sonic-rs,
/// simd-json) and binary (rmp-serde, ciborium, bincode, bincode 1, postcard, bitcode).
pub fn serde_engines<T: SerdeValue>() -> Vec<Engine<T>> {
    #[allow(unused_mut)]
    let mut all = vec![serde_json::engine(SerdeBytes::Seq)];
    #[cfg(feature = "sonic-rs")]
    all.push(sonic_rs::engine(SerdeBytes::Seq));
    #[cfg(feature = "simd-json")]
    all.push(simd_json::engine(SerdeBytes::Seq));
    #[cfg(feature = "rmp-serde")]
    all.push(rmp_serde::engine(SerdeBytes::Seq));
    #[cfg(feature = "ciborium")]
    all.push(ciborium::engine(SerdeBytes::Seq));
    #[cfg(feature = "bincode")]
    all.push(bincode::engine(SerdeBytes::Seq));
    #[cfg(feature = "bincode1")]
    all.push(bincode1::engine(SerdeBytes::Seq));
    #[cfg(feature = "postcard")]
    all.push(postcard::engine(SerdeBytes::Seq));
    #[cfg(feature = "bitcode")]
    all.push(bitcode::engine(SerdeBytes::Seq));
    all
}

/// The field split of a serde engine: `write` hands the recorded value to the format's writer
/// (`|t, sink| serde_json::to_writer(sink, t)`), with byte arrays written as `bytes`.
fn recorded<T: SerdeValue, E: std::fmt::Display>(
    bytes: SerdeBytes,
    write: impl for<'r> Fn(&Tracked<'r, T>, Sink<'r>) -> Result<(), E> + Send + Sync + 'static,
) -> FieldSplit<T> {
    FieldSplit::Record(std::sync::Arc::new(move |v: &T| {
        crate::model::with_serde_bytes(bytes, || serprof_api::fields::record(v, &write))
    }))
}

/// The reason of an engine whose format lays out by column, not by field.
#[allow(dead_code)]
fn columns(library: &str) -> String {
    format!("no field split: {library} writes columns (each kind of field of the whole value together, then packed), not one field after another")
}

/// The description an adapter's `engine` function starts from: the engine named after its
/// crate, that crate's version and frames, and the cargo feature that builds it (`serde_json`
/// has none: it is always built).
fn described<T: Value, C: crate::Codec<T> + 'static>(
    name: &str,
    version: &str,
    frames: &str,
    make: impl Fn() -> C + Send + Sync + 'static,
) -> Engine<T> {
    let engine = Engine::new(name, move || Ok(make()))
        .library(name, version)
        .frames(frames);
    match name {
        "serde_json" => engine,
        feature => engine.feature(feature),
    }
}

/// What an adapter's slice call returns (`Codec::encode_to_slice`): the payload, or `None`.
#[allow(dead_code)]
type Written<'a> = Option<Result<&'a [u8], serprof_api::CodecError>>;

/// A payload written by `write` at the start of `out`, through `&mut [u8]` as a writer that
/// copies each write into the slice and moves its start on (`std::io::Write` for `&mut [u8]`,
/// as rust_serialization_benchmark serializes the engines that write to an `io::Write`, and
/// minicbor's, wincode's and `bytes`' own impls for it): the bytes written.
#[allow(dead_code)]
fn into_slice<'a, E: std::fmt::Display>(
    out: &'a mut [u8],
    write: impl FnOnce(&mut &mut [u8]) -> Result<(), E>,
) -> Written<'a> {
    let room = out.len();
    let mut rest: &mut [u8] = &mut *out;
    if let Err(e) = write(&mut rest) {
        return Some(Err(serprof_api::CodecError::encode(e)));
    }
    let written = room - rest.len();
    Some(Ok(&out[..written]))
}

/// The error of a decode that stopped before the end of the payload: the bytes after the value
/// mean the payload is not one value.
#[allow(dead_code)]
fn whole(read: usize, len: usize) -> Result<(), serprof_api::CodecError> {
    if read == len {
        Ok(())
    } else {
        Err(serprof_api::CodecError::decode_at(
            read,
            format_args!("{} trailing bytes after the value", len - read),
        ))
    }
}

/// A nested message a Protobuf-like decode must find (prost, bilrost and rust-protobuf write
/// every one, and read a missing one as absent): absent, it is a decode error naming `what`.
#[allow(dead_code)]
fn required<T>(message: Option<T>, what: &str) -> Result<T, serprof_api::CodecError> {
    message.ok_or_else(|| missing(what))
}

#[cold]
fn missing(what: &str) -> serprof_api::CodecError {
    serprof_api::CodecError::decode(format_args!("missing message {what}"))
}
