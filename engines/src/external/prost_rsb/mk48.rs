//! rsb's `mk48` as Protobuf messages (its `mk48.proto`).

use super::{fit, required, Messages, Vector2fMessage};
use crate::dataset::rsb::mk48::{
    Contact, EntityType, Guidance, TerrainUpdate, Transform, Update, Updates,
};
use serprof_api::CodecError;

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

/// Every kind with its message, in one place for both directions.
const ENTITY_TYPES: [(EntityType, EntityTypeMessage); 10] = [
    (EntityType::ArleighBurke, EntityTypeMessage::ArleighBurke),
    (EntityType::Bismarck, EntityTypeMessage::Bismarck),
    (EntityType::Clemenceau, EntityTypeMessage::Clemenceau),
    (EntityType::Fletcher, EntityTypeMessage::Fletcher),
    (EntityType::G5, EntityTypeMessage::G5),
    (EntityType::Iowa, EntityTypeMessage::Iowa),
    (EntityType::Kolkata, EntityTypeMessage::Kolkata),
    (EntityType::Osa, EntityTypeMessage::Osa),
    (EntityType::Yasen, EntityTypeMessage::Yasen),
    (EntityType::Zubr, EntityTypeMessage::Zubr),
];

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

fn entity_type(e: EntityType) -> i32 {
    let (_, m) = ENTITY_TYPES
        .iter()
        .find(|(t, _)| *t == e)
        .expect("every entity type is listed");
    *m as i32
}

fn entity_type_back(n: i32) -> Result<EntityType, CodecError> {
    let m = EntityTypeMessage::try_from(n).map_err(|_| {
        CodecError::decode(format_args!("Contact.entity_type {n} is no entity type"))
    })?;
    let (t, _) = ENTITY_TYPES
        .iter()
        .find(|(_, k)| *k == m)
        .expect("every entity type is listed");
    Ok(*t)
}

fn contact(c: &Contact) -> ContactMessage {
    ContactMessage {
        damage: c.damage.into(),
        entity_id: c.entity_id,
        entity_type: c.entity_type.map(entity_type),
        guidance: Some(GuidanceMessage {
            angle: c.guidance.angle.into(),
            submerge: c.guidance.submerge,
            velocity: c.guidance.velocity.into(),
        }),
        player_id: c.player_id.map(u32::from),
        reloads: c.reloads.clone(),
        transform: Some(TransformMessage {
            altitude: c.transform.altitude.into(),
            angle: c.transform.angle.into(),
            position: Some(Vector2fMessage {
                x: c.transform.position.0,
                y: c.transform.position.1,
            }),
            velocity: c.transform.velocity.into(),
        }),
        turret_angles: c.turret_angles.iter().map(|&a| a.into()).collect(),
    }
}

fn contact_back(c: ContactMessage) -> Result<Contact, CodecError> {
    let g = required(c.guidance, "Contact.guidance")?;
    let t = required(c.transform, "Contact.transform")?;
    let position = required(t.position, "Transform.position")?;
    Ok(Contact {
        damage: fit(c.damage, "Contact.damage")?,
        entity_id: c.entity_id,
        entity_type: c.entity_type.map(entity_type_back).transpose()?,
        guidance: Guidance {
            angle: fit(g.angle, "Guidance.angle")?,
            submerge: g.submerge,
            velocity: fit(g.velocity, "Guidance.velocity")?,
        },
        player_id: c
            .player_id
            .map(|p| fit(p, "Contact.player_id"))
            .transpose()?,
        reloads: c.reloads,
        transform: Transform {
            altitude: fit(t.altitude, "Transform.altitude")?,
            angle: fit(t.angle, "Transform.angle")?,
            position: (position.x, position.y),
            velocity: fit(t.velocity, "Transform.velocity")?,
        },
        turret_angles: c
            .turret_angles
            .into_iter()
            .map(|a| fit(a, "Contact.turret_angles"))
            .collect::<Result<_, _>>()?,
    })
}

fn terrain(t: &TerrainUpdate) -> TerrainUpdateMessage {
    TerrainUpdateMessage {
        chunk_id: Some(ChunkIdMessage {
            x: t.chunk_id.0.into(),
            y: t.chunk_id.1.into(),
        }),
        data: t.data.clone(),
    }
}

fn terrain_back(t: TerrainUpdateMessage) -> Result<TerrainUpdate, CodecError> {
    let id = required(t.chunk_id, "TerrainUpdate.chunk_id")?;
    Ok(TerrainUpdate {
        chunk_id: (fit(id.x, "ChunkId.x")?, fit(id.y, "ChunkId.y")?),
        data: t.data,
    })
}

impl Messages for Updates {
    type Message = UpdatesMessage;

    fn populate(&self) -> UpdatesMessage {
        let updates = self
            .updates
            .iter()
            .map(|u| UpdateMessage {
                contacts: u.contacts.iter().map(contact).collect(),
                score: u.score,
                world_radius: u.world_radius,
                terrain_updates: u.terrain_updates.iter().map(terrain).collect(),
            })
            .collect();
        UpdatesMessage { updates }
    }

    fn convert(message: UpdatesMessage) -> Result<Updates, CodecError> {
        let updates = message
            .updates
            .into_iter()
            .map(|u| {
                Ok(Update {
                    contacts: u
                        .contacts
                        .into_iter()
                        .map(contact_back)
                        .collect::<Result<_, CodecError>>()?,
                    score: u.score,
                    world_radius: u.world_radius,
                    terrain_updates: u
                        .terrain_updates
                        .into_iter()
                        .map(terrain_back)
                        .collect::<Result<_, CodecError>>()?,
                })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(Updates { updates })
    }
}
