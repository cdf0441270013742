//! rsb's `mesh` as rust-protobuf's generated messages (`engines/schemas/rsb_mesh.proto`).

use super::{required, Messages};
use protobuf::MessageField;

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/rsb_mesh.proto`.
#[path = "../protobuf_gen/rsb_mesh.rs"]
pub mod messages;

use messages::{Mesh, Triangle, Vector3};

mesh_messages! {
    mesh: Mesh, triangle: Triangle, vector3: Vector3,
    some: MessageField::some, take: required,
    rest: { ..Default::default() },
}
