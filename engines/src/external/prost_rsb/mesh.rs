//! rsb's `mesh` as Protobuf messages (its `mesh.proto`).

use super::{required, Messages};

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

mesh_messages! {
    mesh: MeshMessage, triangle: TriangleMessage, vector3: Vector3Message,
    some: Some, take: required,
    rest: {},
}
