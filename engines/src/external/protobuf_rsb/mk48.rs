//! rsb's `mk48` as rust-protobuf's generated messages (`engines/schemas/rsb_mk48.proto`).

use super::{required, Messages};
use protobuf::{EnumOrUnknown, MessageField};

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/rsb_mk48.proto`.
#[path = "../protobuf_gen/rsb_mk48.rs"]
pub mod messages;

use messages::{
    ChunkId, Contact, EntityType, Guidance, TerrainUpdate, Transform, Update, Updates, Vector2f,
};

mk48_messages! {
    updates: Updates, update: Update, contact: Contact,
    guidance: Guidance, transform: Transform, vector2f: Vector2f,
    terrain_update: TerrainUpdate, chunk_id: ChunkId,
    some: MessageField::some, take: required,
    enum_to: EnumOrUnknown::<EntityType>::from_i32,
    enum_from: |e: EnumOrUnknown<EntityType>| e.value(),
    rest: { ..Default::default() },
}
