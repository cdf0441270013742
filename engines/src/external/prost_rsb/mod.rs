//! prost on rust_serialization_benchmark's four datasets: Protobuf messages derived in Rust
//! from rsb's schemas' shapes (field numbers and types as its `.proto` files have them, written
//! here as prost's derive attributes, one module per dataset), and a codec that converts the
//! dataset value to them in encode and back in decode, inside the timed operation: rsb's
//! `populate + encode` and `decode + convert` rows; and its message configurations, the
//! messages built before anything is timed and a payload decoded without its conversion: rsb's
//! `encode` and `decode` rows. Each dataset's populate and convert are those of `rsb_pb`,
//! written once for prost and rust-protobuf (`protobuf_rsb`).

pub mod log;
pub mod mesh;
pub mod minecraft;
pub mod mk48;

use super::required;
use super::rsb_pb::kept;
use serprof_api::{Codec, CodecError, Engine};

/// Four `uint32`s: rsb's `Address` on the log (an IPv4 address) and `Uuid` on minecraft, one
/// message shape under two names.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FourU32Message {
    /// First part.
    #[prost(uint32, tag = "1")]
    pub x0: u32,
    /// Second part.
    #[prost(uint32, tag = "2")]
    pub x1: u32,
    /// Third part.
    #[prost(uint32, tag = "3")]
    pub x2: u32,
    /// Fourth part.
    #[prost(uint32, tag = "4")]
    pub x3: u32,
}

/// Two `float`s: rsb's `Vector2f`, on minecraft and mk48.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Vector2fMessage {
    /// x.
    #[prost(float, tag = "1")]
    pub x: f32,
    /// y.
    #[prost(float, tag = "2")]
    pub y: f32,
}

/// A dataset value and its message: populate, and convert back.
pub trait Messages: Sized {
    /// The message.
    type Message: prost::Message + Default;
    /// The value as a message.
    fn populate(&self) -> Self::Message;
    /// The message as a value, or why it is not one.
    fn convert(message: Self::Message) -> Result<Self, CodecError>;
}

/// prost through the messages: populate and encode, decode and convert; and the messages of
/// the values, kept for the message encode.
pub struct ProstRsb<T: Messages> {
    kept: Vec<T::Message>,
}

impl<T: Messages> Default for ProstRsb<T> {
    fn default() -> Self {
        ProstRsb { kept: Vec::new() }
    }
}

impl<T: Messages> Codec<T> for ProstRsb<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        prost::Message::encode(&value.populate(), out).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        T::convert(message::<T>(bytes)?)
    }

    fn keep_messages(&mut self, values: &[T]) -> Result<(), CodecError> {
        self.kept = values.iter().map(Messages::populate).collect();
        Ok(())
    }

    fn encode_message(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        prost::Message::encode(kept(&self.kept, index)?, out).map_err(CodecError::encode)
    }

    fn decode_message(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        drop(std::hint::black_box(message::<T>(bytes)?));
        Ok(())
    }
}

/// The message `bytes` hold.
fn message<T: Messages>(bytes: &[u8]) -> Result<T::Message, CodecError> {
    prost::Message::decode(bytes).map_err(CodecError::decode)
}

/// prost on a dataset of rsb's that has messages here.
pub fn engine<T: Messages + serprof_api::Value>() -> Engine<T> {
    super::described(
        "prost",
        super::prost::version(),
        "prost",
        ProstRsb::<T>::default,
    )
    .call(
        "populate + prost::Message::encode, prost::Message::decode + convert \
             (encode-message: prost::Message::encode; decode-message: prost::Message::decode)",
    )
    .messages()
}
