//! rsb's `mk48` as Protobuf messages (its `mk48.proto`).

use super::{required, Messages, Vector2fMessage};

/// A ship or weapon's kind (rsb's `EntityType`), written as its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum EntityTypeMessage {
    /// Arleigh Burke.
    ArleighBurke = 0,
    /// Bismarck.
    Bismarck = 1,
    /// Clemenceau.
    Clemenceau = 2,
    /// Fletcher.
    Fletcher = 3,
    /// G5.
    G5 = 4,
    /// Iowa.
    Iowa = 5,
    /// Kolkata.
    Kolkata = 6,
    /// Osa.
    Osa = 7,
    /// Yasen.
    Yasen = 8,
    /// Zubr.
    Zubr = 9,
}

/// Where a contact is and how it moves (rsb's `Transform`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TransformMessage {
    /// Altitude.
    #[prost(int32, tag = "1")]
    pub altitude: i32,
    /// Heading.
    #[prost(uint32, tag = "2")]
    pub angle: u32,
    /// Position.
    #[prost(message, optional, tag = "3")]
    pub position: Option<Vector2fMessage>,
    /// Speed.
    #[prost(int32, tag = "4")]
    pub velocity: i32,
}

/// Where a contact is steered (rsb's `Guidance`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GuidanceMessage {
    /// Heading.
    #[prost(uint32, tag = "1")]
    pub angle: u32,
    /// Dives.
    #[prost(bool, tag = "2")]
    pub submerge: bool,
    /// Speed.
    #[prost(int32, tag = "3")]
    pub velocity: i32,
}

/// A ship or weapon (rsb's `Contact`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ContactMessage {
    /// Damage taken.
    #[prost(uint32, tag = "1")]
    pub damage: u32,
    /// Its id.
    #[prost(uint32, tag = "2")]
    pub entity_id: u32,
    /// Its kind, when known.
    #[prost(enumeration = "EntityTypeMessage", optional, tag = "3")]
    pub entity_type: Option<i32>,
    /// Its steering.
    #[prost(message, optional, tag = "4")]
    pub guidance: Option<GuidanceMessage>,
    /// Its player, when it has one.
    #[prost(uint32, optional, tag = "5")]
    pub player_id: Option<u32>,
    /// Which weapons are loaded.
    #[prost(bool, repeated, tag = "6")]
    pub reloads: Vec<bool>,
    /// Where it is.
    #[prost(message, optional, tag = "7")]
    pub transform: Option<TransformMessage>,
    /// Its turrets' headings.
    #[prost(uint32, repeated, tag = "8")]
    pub turret_angles: Vec<u32>,
}

/// A chunk's coordinates (rsb's `ChunkId`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ChunkIdMessage {
    /// x.
    #[prost(int32, tag = "1")]
    pub x: i32,
    /// y.
    #[prost(int32, tag = "2")]
    pub y: i32,
}

/// A chunk of terrain (rsb's `TerrainUpdate`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TerrainUpdateMessage {
    /// Which chunk.
    #[prost(message, optional, tag = "1")]
    pub chunk_id: Option<ChunkIdMessage>,
    /// Its bytes.
    #[prost(bytes = "vec", tag = "2")]
    pub data: Vec<u8>,
}

/// One update (rsb's `Update`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct UpdateMessage {
    /// The contacts.
    #[prost(message, repeated, tag = "1")]
    pub contacts: Vec<ContactMessage>,
    /// Score.
    #[prost(uint32, tag = "2")]
    pub score: u32,
    /// The world's radius.
    #[prost(float, tag = "3")]
    pub world_radius: f32,
    /// The terrain.
    #[prost(message, repeated, tag = "4")]
    pub terrain_updates: Vec<TerrainUpdateMessage>,
}

/// Every update (rsb's `Updates`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct UpdatesMessage {
    /// The updates.
    #[prost(message, repeated, tag = "1")]
    pub updates: Vec<UpdateMessage>,
}

mk48_messages! {
    updates: UpdatesMessage, update: UpdateMessage, contact: ContactMessage,
    guidance: GuidanceMessage, transform: TransformMessage, vector2f: Vector2fMessage,
    terrain_update: TerrainUpdateMessage, chunk_id: ChunkIdMessage,
    some: Some, take: required,
    enum_to: |n: i32| n, enum_from: |n: i32| n,
    rest: {},
}
