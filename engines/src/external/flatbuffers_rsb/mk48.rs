//! rsb's `mk48` as FlatBuffers tables (`engines/schemas/rsb_mk48.fbs`, rsb's `mk48.fbs`).
//!
//! rsb's schema has a contact's entity type and player as plain scalars, which a builder leaves
//! out when they equal their defaults (`ArleighBurke`, 0), as it leaves out `None`: the bytes
//! cannot tell `Some(ArleighBurke)` from `None`, nor `Some(0)` from `None`. The dataset tells
//! them apart by what else a contact carries: one its player sees has its kind, its player and
//! its reloads (every kind has weapons), one it does not has none of them. So decode reads an
//! absent kind or player as the default on a contact with reloads and as `None` on one without,
//! and encode refuses, naming the field, a contact that rule would read back otherwise (none of
//! the dataset's): the bytes stay rsb's, and no value comes back changed.

use flatbuffers::WIPOffset;

use super::rsb_mk48_generated as fb;
use super::{present, Builder, Tables};
use crate::dataset::rsb::mk48::{
    Contact, EntityType, Guidance, TerrainUpdate, Transform, Update, Updates,
};
use crate::model::Digest;
use serprof_api::CodecError;

/// The entity types in the schema's order: the enum's numbers are their indexes.
const ENTITY_TYPES: [EntityType; 10] = [
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

/// Whether a contact is one its player sees: it has reloads (see the module's doc).
fn seen(reloads: usize) -> bool {
    reloads > 0
}

/// `field` as the builder writes it (`None` and `default` alike left out), or an error naming
/// it when decode would not read it back: `None` on a seen contact, `default` on another.
fn representable<T: PartialEq + Copy>(
    field: Option<T>,
    default: T,
    seen: bool,
    what: &str,
) -> Result<T, CodecError> {
    match field {
        None if seen => Err(unwritable(what, "None on a contact with reloads")),
        Some(v) if v == default && !seen => {
            Err(unwritable(what, "its default on a contact without reloads"))
        }
        v => Ok(v.unwrap_or(default)),
    }
}

#[cold]
fn unwritable(what: &str, why: &str) -> CodecError {
    CodecError::encode(format_args!(
        "{what}: rsb's schema cannot hold {why} (the field is left out, which reads back otherwise)"
    ))
}

fn build_contact(
    b: &mut Builder,
    c: &Contact,
) -> Result<WIPOffset<fb::Contact<'static>>, CodecError> {
    let seen = seen(c.reloads.len());
    let kind = representable(
        c.entity_type.map(|e| fb::EntityType(e as i8)),
        fb::EntityType::ArleighBurke,
        seen,
        "Contact.entity_type",
    )?;
    let player_id = representable(c.player_id, 0, seen, "Contact.player_id")?;
    let g = c.guidance;
    let guidance = fb::Guidance::new(g.angle, g.submerge, g.velocity);
    let t = c.transform;
    let position = fb::Vector2f::new(t.position.0, t.position.1);
    let transform = fb::Transform::new(t.altitude, t.angle, &position, t.velocity);
    let reloads = b.create_vector(&c.reloads);
    let turret_angles = b.create_vector(&c.turret_angles);
    let mut t = fb::ContactBuilder::new(b);
    t.add_damage(c.damage);
    t.add_entity_id(c.entity_id);
    t.add_entity_type(kind);
    t.add_guidance(&guidance);
    t.add_player_id(player_id);
    t.add_reloads(reloads);
    t.add_transform(&transform);
    t.add_turret_angles(turret_angles);
    Ok(t.finish())
}

fn build_terrain(b: &mut Builder, u: &TerrainUpdate) -> WIPOffset<fb::TerrainUpdate<'static>> {
    let data = b.create_vector(&u.data);
    let mut t = fb::TerrainUpdateBuilder::new(b);
    t.add_chunk_id(&fb::ChunkId::new(u.chunk_id.0, u.chunk_id.1));
    t.add_data(data);
    t.finish()
}

fn build_update(b: &mut Builder, u: &Update) -> Result<WIPOffset<fb::Update<'static>>, CodecError> {
    let contacts = u
        .contacts
        .iter()
        .map(|c| build_contact(b, c))
        .collect::<Result<Vec<_>, _>>()?;
    let contacts = b.create_vector(&contacts);
    let terrain: Vec<_> = u
        .terrain_updates
        .iter()
        .map(|t| build_terrain(b, t))
        .collect();
    let terrain = b.create_vector(&terrain);
    let mut t = fb::UpdateBuilder::new(b);
    t.add_contacts(contacts);
    t.add_score(u.score);
    t.add_world_radius(u.world_radius);
    t.add_terrain_updates(terrain);
    Ok(t.finish())
}

fn read_contact(c: fb::Contact<'_>) -> Result<Contact, CodecError> {
    let seen = seen(c.reloads().len());
    let kind = c
        ._tab
        .get::<fb::EntityType>(fb::Contact::VT_ENTITY_TYPE, None)
        .or(seen.then_some(fb::EntityType::ArleighBurke))
        .map(|k| {
            usize::try_from(k.0)
                .ok()
                .and_then(|i| ENTITY_TYPES.get(i).copied())
                .ok_or_else(|| {
                    CodecError::decode(format_args!(
                        "Contact.entity_type {} is no entity type",
                        k.0
                    ))
                })
        })
        .transpose()?;
    let player_id = c
        ._tab
        .get::<u16>(fb::Contact::VT_PLAYER_ID, None)
        .or(seen.then_some(0));
    let g = present(c.guidance(), "Contact.guidance")?;
    let t = present(c.transform(), "Contact.transform")?;
    Ok(Contact {
        damage: c.damage(),
        entity_id: c.entity_id(),
        entity_type: kind,
        guidance: Guidance {
            angle: g.angle(),
            submerge: g.submerge(),
            velocity: g.velocity(),
        },
        player_id,
        reloads: c.reloads().to_vec(),
        transform: Transform {
            altitude: t.altitude(),
            angle: t.angle(),
            position: (t.position().x(), t.position().y()),
            velocity: t.velocity(),
        },
        turret_angles: c.turret_angles().iter().collect(),
    })
}

fn read_terrain(u: fb::TerrainUpdate<'_>) -> Result<TerrainUpdate, CodecError> {
    let chunk = present(u.chunk_id(), "TerrainUpdate.chunk_id")?;
    let data = present(u.data(), "TerrainUpdate.data")?;
    Ok(TerrainUpdate {
        chunk_id: (chunk.x(), chunk.y()),
        data: data.to_vec(),
    })
}

fn read_update(u: fb::Update<'_>) -> Result<Update, CodecError> {
    Ok(Update {
        contacts: u
            .contacts()
            .iter()
            .map(read_contact)
            .collect::<Result<_, _>>()?,
        score: u.score(),
        world_radius: u.world_radius(),
        terrain_updates: u
            .terrain_updates()
            .iter()
            .map(read_terrain)
            .collect::<Result<_, _>>()?,
    })
}

impl Tables for Updates {
    type Root<'a> = fb::Updates<'a>;

    fn build(&self, b: &mut Builder) -> Result<WIPOffset<fb::Updates<'static>>, CodecError> {
        let updates = self
            .updates
            .iter()
            .map(|u| build_update(b, u))
            .collect::<Result<Vec<_>, _>>()?;
        let updates = b.create_vector(&updates);
        let mut t = fb::UpdatesBuilder::new(b);
        t.add_updates(updates);
        Ok(t.finish())
    }

    fn read(root: fb::Updates<'_>) -> Result<Updates, CodecError> {
        let updates = root
            .updates()
            .iter()
            .map(read_update)
            .collect::<Result<_, _>>()?;
        Ok(Updates { updates })
    }

    /// Each update's score (rsb's read), as `mk48::read_digest` digests it.
    fn read_in_place(root: fb::Updates<'_>) -> Result<u64, CodecError> {
        let mut d = Digest::default();
        for u in root.updates() {
            d.int(i64::from(u.score()));
        }
        Ok(d.finish())
    }
}
