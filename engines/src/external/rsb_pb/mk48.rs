//! rsb's `mk48` (its `mk48.proto`: `Updates`, `Update`, `Contact`, `Guidance`, `Transform`,
//! `Vector2f`, `TerrainUpdate`, `ChunkId` and the enum `EntityType`).

use crate::dataset::rsb::mk48::EntityType;
use serprof_api::CodecError;

/// Every kind of ship, in the order of its number in `mk48.proto`, which is the dataset's
/// declaration order.
pub const ENTITY_TYPES: [EntityType; 10] = [
    EntityType::ArleighBurke,
    EntityType::Bismarck,
    EntityType::Clemenceau,
    EntityType::Fletcher,
    EntityType::G5,
    EntityType::Iowa,
    EntityType::Kolkata,
    EntityType::Osa,
    EntityType::Yasen,
    EntityType::Zubr,
];

/// A kind's number in `mk48.proto`: its index in the declaration order.
pub fn entity_type_number(e: EntityType) -> i32 {
    e as i32
}

/// The kind of a number in `mk48.proto`; any other number is an error naming `what`.
pub fn entity_type_of_number(n: i32, what: &str) -> Result<EntityType, CodecError> {
    usize::try_from(n)
        .ok()
        .and_then(|i| ENTITY_TYPES.get(i).copied())
        .ok_or_else(|| CodecError::decode(format_args!("{what} {n} is no entity type")))
}

/// The codec's `Messages` (resolved where the macro is called) for rsb's `Updates`. The
/// arguments: the message types, then `some` and `take` (wrap a nested message; unwrap it,
/// given the field's name for the error), `enum_to` and `enum_from` (an enum field as the
/// codec holds it, from and to its number), then the tokens that end every struct literal
/// (`..Default::default()` or nothing).
macro_rules! mk48_messages {
    (
        updates: $updates:ident, update: $update:ident, contact: $contact:ident,
        guidance: $guidance:ident, transform: $transform:ident, vector2f: $vector2f:ident,
        terrain_update: $terrain_update:ident, chunk_id: $chunk_id:ident,
        some: $some:expr, take: $take:expr,
        enum_to: $enum_to:expr, enum_from: $enum_from:expr,
        rest: {$($rest:tt)*} $(,)?
    ) => {
        impl Messages for crate::dataset::rsb::mk48::Updates {
            type Message = $updates;

            fn populate(&self) -> $updates {
                use crate::dataset::rsb::mk48 as data;
                use crate::external::rsb_pb::mk48::entity_type_number;
                let contact = |c: &data::Contact| $contact {
                    damage: c.damage.into(),
                    entity_id: c.entity_id,
                    entity_type: c.entity_type.map(|e| ($enum_to)(entity_type_number(e))),
                    guidance: ($some)($guidance {
                        angle: c.guidance.angle.into(),
                        submerge: c.guidance.submerge,
                        velocity: c.guidance.velocity.into(),
                        $($rest)*
                    }),
                    player_id: c.player_id.map(u32::from),
                    reloads: c.reloads.clone(),
                    transform: ($some)($transform {
                        altitude: c.transform.altitude.into(),
                        angle: c.transform.angle.into(),
                        position: ($some)($vector2f {
                            x: c.transform.position.0,
                            y: c.transform.position.1,
                            $($rest)*
                        }),
                        velocity: c.transform.velocity.into(),
                        $($rest)*
                    }),
                    turret_angles: c.turret_angles.iter().map(|&a| a.into()).collect(),
                    $($rest)*
                };
                let terrain = |t: &data::TerrainUpdate| $terrain_update {
                    chunk_id: ($some)($chunk_id {
                        x: t.chunk_id.0.into(),
                        y: t.chunk_id.1.into(),
                        $($rest)*
                    }),
                    data: t.data.clone(),
                    $($rest)*
                };
                let updates = self
                    .updates
                    .iter()
                    .map(|u| $update {
                        contacts: u.contacts.iter().map(contact).collect(),
                        score: u.score,
                        world_radius: u.world_radius,
                        terrain_updates: u.terrain_updates.iter().map(terrain).collect(),
                        $($rest)*
                    })
                    .collect();
                $updates { updates, $($rest)* }
            }

            fn convert(
                message: $updates,
            ) -> Result<crate::dataset::rsb::mk48::Updates, serprof_api::CodecError> {
                use crate::dataset::rsb::mk48 as data;
                use crate::external::rsb_pb::fit;
                use crate::external::rsb_pb::mk48::entity_type_of_number;
                use serprof_api::CodecError;
                let contact = |c: $contact| {
                    let g: $guidance = ($take)(c.guidance, "Contact.guidance")?;
                    let t: $transform = ($take)(c.transform, "Contact.transform")?;
                    let position: $vector2f = ($take)(t.position, "Transform.position")?;
                    Ok::<_, CodecError>(data::Contact {
                        damage: fit(c.damage, "Contact.damage")?,
                        entity_id: c.entity_id,
                        entity_type: c
                            .entity_type
                            .map(|e| entity_type_of_number(($enum_from)(e), "Contact.entity_type"))
                            .transpose()?,
                        guidance: data::Guidance {
                            angle: fit(g.angle, "Guidance.angle")?,
                            submerge: g.submerge,
                            velocity: fit(g.velocity, "Guidance.velocity")?,
                        },
                        player_id: c
                            .player_id
                            .map(|p| fit(p, "Contact.player_id"))
                            .transpose()?,
                        reloads: c.reloads,
                        transform: data::Transform {
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
                };
                let terrain = |t: $terrain_update| {
                    let id: $chunk_id = ($take)(t.chunk_id, "TerrainUpdate.chunk_id")?;
                    Ok::<_, CodecError>(data::TerrainUpdate {
                        chunk_id: (fit(id.x, "ChunkId.x")?, fit(id.y, "ChunkId.y")?),
                        data: t.data,
                    })
                };
                let updates = message
                    .updates
                    .into_iter()
                    .map(|u| {
                        Ok(data::Update {
                            contacts: u
                                .contacts
                                .into_iter()
                                .map(contact)
                                .collect::<Result<_, CodecError>>()?,
                            score: u.score,
                            world_radius: u.world_radius,
                            terrain_updates: u
                                .terrain_updates
                                .into_iter()
                                .map(terrain)
                                .collect::<Result<_, CodecError>>()?,
                        })
                    })
                    .collect::<Result<_, CodecError>>()?;
                Ok(data::Updates { updates })
            }
        }
    };
}
