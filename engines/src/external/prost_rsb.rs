//! prost on two of rust_serialization_benchmark's datasets (`log`, `mesh`): Protobuf messages
//! derived in Rust from rsb's schemas' shapes (field numbers and types as its `.proto` files
//! have them, written here as prost's derive attributes), and a codec that converts the dataset
//! value to them in encode and back in decode, inside the timed operation: rsb's
//! `populate + encode` and `decode + convert` rows.

use crate::dataset::rsb::{log, mesh};
use serprof_api::{Codec, CodecError, Engine};

/// An IPv4 address (rsb's `Address`: four `uint32`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AddressMessage {
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

/// A log (rsb's `Log`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogMessage {
    /// The client's address.
    #[prost(message, optional, tag = "1")]
    pub address: Option<AddressMessage>,
    /// The identity.
    #[prost(string, tag = "2")]
    pub identity: String,
    /// The user.
    #[prost(string, tag = "3")]
    pub userid: String,
    /// The date.
    #[prost(string, tag = "4")]
    pub date: String,
    /// The request line.
    #[prost(string, tag = "5")]
    pub request: String,
    /// The status.
    #[prost(uint32, tag = "6")]
    pub code: u32,
    /// The size.
    #[prost(uint64, tag = "7")]
    pub size: u64,
}

/// Every log (rsb's `Logs`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogsMessage {
    /// The logs.
    #[prost(message, repeated, tag = "1")]
    pub logs: Vec<LogMessage>,
}

/// A vector (rsb's `Vector3`: three `float`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Vector3Message {
    /// x.
    #[prost(float, tag = "1")]
    pub x: f32,
    /// y.
    #[prost(float, tag = "2")]
    pub y: f32,
    /// z.
    #[prost(float, tag = "3")]
    pub z: f32,
}

/// A triangle (rsb's `Triangle`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TriangleMessage {
    /// First corner.
    #[prost(message, optional, tag = "1")]
    pub v0: Option<Vector3Message>,
    /// Second corner.
    #[prost(message, optional, tag = "2")]
    pub v1: Option<Vector3Message>,
    /// Third corner.
    #[prost(message, optional, tag = "3")]
    pub v2: Option<Vector3Message>,
    /// The normal.
    #[prost(message, optional, tag = "4")]
    pub normal: Option<Vector3Message>,
}

/// The mesh (rsb's `Mesh`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct MeshMessage {
    /// Its triangles.
    #[prost(message, repeated, tag = "1")]
    pub triangles: Vec<TriangleMessage>,
}

/// A part of an address, which must fit a byte.
fn byte(v: u32, what: &str) -> Result<u8, CodecError> {
    u8::try_from(v).map_err(|_| CodecError::decode(format_args!("{what} {v} is over 255")))
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

impl Messages for log::Logs {
    type Message = LogsMessage;

    fn populate(&self) -> LogsMessage {
        let logs = self
            .logs
            .iter()
            .map(|l| LogMessage {
                address: Some(AddressMessage {
                    x0: l.address.x0.into(),
                    x1: l.address.x1.into(),
                    x2: l.address.x2.into(),
                    x3: l.address.x3.into(),
                }),
                identity: l.identity.clone(),
                userid: l.userid.clone(),
                date: l.date.clone(),
                request: l.request.clone(),
                code: l.code.into(),
                size: l.size,
            })
            .collect();
        LogsMessage { logs }
    }

    fn convert(message: LogsMessage) -> Result<log::Logs, CodecError> {
        let logs = message
            .logs
            .into_iter()
            .map(|l| {
                let a = super::required(l.address, "Log.address")?;
                Ok(log::Log {
                    address: log::Address {
                        x0: byte(a.x0, "Address.x0")?,
                        x1: byte(a.x1, "Address.x1")?,
                        x2: byte(a.x2, "Address.x2")?,
                        x3: byte(a.x3, "Address.x3")?,
                    },
                    identity: l.identity,
                    userid: l.userid,
                    date: l.date,
                    request: l.request,
                    code: u16::try_from(l.code).map_err(|_| {
                        CodecError::decode(format_args!("Log.code {} is over 65535", l.code))
                    })?,
                    size: l.size,
                })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(log::Logs { logs })
    }
}

/// A vector as a message.
fn vector(v: &mesh::Vector3) -> Option<Vector3Message> {
    Some(Vector3Message {
        x: v.x,
        y: v.y,
        z: v.z,
    })
}

/// A message as a vector.
fn vector_back(v: Option<Vector3Message>, what: &str) -> Result<mesh::Vector3, CodecError> {
    let v = super::required(v, what)?;
    Ok(mesh::Vector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    })
}

impl Messages for mesh::Mesh {
    type Message = MeshMessage;

    fn populate(&self) -> MeshMessage {
        let triangles = self
            .triangles
            .iter()
            .map(|t| TriangleMessage {
                v0: vector(&t.v0),
                v1: vector(&t.v1),
                v2: vector(&t.v2),
                normal: vector(&t.normal),
            })
            .collect();
        MeshMessage { triangles }
    }

    fn convert(message: MeshMessage) -> Result<mesh::Mesh, CodecError> {
        let triangles = message
            .triangles
            .into_iter()
            .map(|t| {
                Ok(mesh::Triangle {
                    v0: vector_back(t.v0, "Triangle.v0")?,
                    v1: vector_back(t.v1, "Triangle.v1")?,
                    v2: vector_back(t.v2, "Triangle.v2")?,
                    normal: vector_back(t.normal, "Triangle.normal")?,
                })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(mesh::Mesh { triangles })
    }
}

/// prost through the messages: populate and encode, decode and convert.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProstRsb;

impl<T: Messages> Codec<T> for ProstRsb {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        prost::Message::encode(&value.populate(), out).map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let message: T::Message = prost::Message::decode(&bytes[..]).map_err(CodecError::decode)?;
        T::convert(message)
    }
}

/// prost on a dataset of rsb's that has messages here.
pub fn engine<T: Messages + serprof_api::Value>() -> Engine<T> {
    super::described("prost", super::prost::version(), "prost", || ProstRsb)
        .call("populate + prost::Message::encode, prost::Message::decode + convert")
}
