//! rsb's `mesh` as Protobuf messages (its `mesh.proto`).

use super::{required, Messages};
use crate::dataset::rsb::mesh::{Mesh, Triangle, Vector3};
use serprof_api::CodecError;

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

/// A vector as a message.
fn vector(v: &Vector3) -> Option<Vector3Message> {
    Some(Vector3Message {
        x: v.x,
        y: v.y,
        z: v.z,
    })
}

/// A message as a vector.
fn vector_back(v: Option<Vector3Message>, what: &str) -> Result<Vector3, CodecError> {
    let v = required(v, what)?;
    Ok(Vector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    })
}

impl Messages for Mesh {
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

    fn convert(message: MeshMessage) -> Result<Mesh, CodecError> {
        let triangles = message
            .triangles
            .into_iter()
            .map(|t| {
                Ok(Triangle {
                    v0: vector_back(t.v0, "Triangle.v0")?,
                    v1: vector_back(t.v1, "Triangle.v1")?,
                    v2: vector_back(t.v2, "Triangle.v2")?,
                    normal: vector_back(t.normal, "Triangle.normal")?,
                })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(Mesh { triangles })
    }
}
