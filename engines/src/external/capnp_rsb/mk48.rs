//! rsb's `mk48` as Cap'n Proto structs (`engines/schemas/rsb_mk48.capnp`): the tuples as groups,
//! the options as unions of `none` and `some`.

use super::rsb_mk48_capnp::EntityType as Kind;
use super::rsb_mk48_capnp::{contact, guidance, transform, update, updates};
use super::{build_list, checked, count, known, read_each, read_list, Structs};
use crate::dataset::rsb::mk48::{
    Contact, EntityType, Guidance, TerrainUpdate, Transform, Update, Updates,
};
use serprof_api::CodecError;

/// Every kind with its schema enumerant, at the index of both (the schema lists them in the
/// dataset's order).
pub const KINDS: [(EntityType, Kind); 10] = [
    (EntityType::ArleighBurke, Kind::ArleighBurke),
    (EntityType::Bismarck, Kind::Bismarck),
    (EntityType::Clemenceau, Kind::Clemenceau),
    (EntityType::Fletcher, Kind::Fletcher),
    (EntityType::G5, Kind::G5),
    (EntityType::Iowa, Kind::Iowa),
    (EntityType::Kolkata, Kind::Kolkata),
    (EntityType::Osa, Kind::Osa),
    (EntityType::Yasen, Kind::Yasen),
    (EntityType::Zubr, Kind::Zubr),
];

impl Structs for Updates {
    type Root = updates::Owned;

    fn build(&self, root: updates::Builder<'_>) -> Result<(), CodecError> {
        let list = |n| root.init_updates(n);
        build_list(&self.updates, "Updates.updates", list, build_update)
    }

    fn read(root: updates::Reader<'_>) -> Result<Updates, CodecError> {
        let updates = read_list(root.get_updates(), read_update)?;
        Ok(Updates { updates })
    }

    fn digest(root: updates::Reader<'_>) -> Result<u64, CodecError> {
        read_each(checked(root.get_updates())?, |d, u| {
            d.int(i64::from(u.get_score()));
            Ok(())
        })
    }
}

fn build_update(u: &Update, mut b: update::Builder<'_>) -> Result<(), CodecError> {
    build_list(
        &u.contacts,
        "Update.contacts",
        |n| b.reborrow().init_contacts(n),
        build_contact,
    )?;
    b.set_score(u.score);
    b.set_world_radius(u.world_radius);
    let terrain = |n| b.init_terrain_updates(n);
    build_list(
        &u.terrain_updates,
        "Update.terrainUpdates",
        terrain,
        |t, mut b| {
            let mut chunk = b.reborrow().init_chunk_id();
            chunk.set_x(t.chunk_id.0);
            chunk.set_y(t.chunk_id.1);
            let mut data = b.init_data(count(t.data.len(), 1, "TerrainUpdate.data")?);
            for (j, &byte) in (0..).zip(&t.data) {
                data.set(j, byte);
            }
            Ok(())
        },
    )
}

fn build_contact(c: &Contact, mut b: contact::Builder<'_>) -> Result<(), CodecError> {
    b.set_damage(c.damage);
    b.set_entity_id(c.entity_id);
    let mut kind = b.reborrow().init_entity_type();
    match c.entity_type {
        Some(k) => kind.set_some(KINDS[k as usize].1),
        None => kind.set_none(()),
    }
    build_guidance(c.guidance, b.reborrow().init_guidance());
    let mut player = b.reborrow().init_player_id();
    match c.player_id {
        Some(p) => player.set_some(p),
        None => player.set_none(()),
    }
    let mut reloads = b
        .reborrow()
        .init_reloads(count(c.reloads.len(), 1, "Contact.reloads")?);
    for (i, &r) in (0..).zip(&c.reloads) {
        reloads.set(i, r);
    }
    build_transform(c.transform, b.reborrow().init_transform());
    let n = count(c.turret_angles.len(), 1, "Contact.turretAngles")?;
    let mut turrets = b.init_turret_angles(n);
    for (i, &a) in (0..).zip(&c.turret_angles) {
        turrets.set(i, a);
    }
    Ok(())
}

fn build_guidance(g: Guidance, mut b: guidance::Builder<'_>) {
    b.set_angle(g.angle);
    b.set_submerge(g.submerge);
    b.set_velocity(g.velocity);
}

fn build_transform(t: Transform, mut b: transform::Builder<'_>) {
    b.set_altitude(t.altitude);
    b.set_angle(t.angle);
    let mut position = b.reborrow().init_position();
    position.set_x(t.position.0);
    position.set_y(t.position.1);
    b.set_velocity(t.velocity);
}

fn read_update(r: update::Reader<'_>) -> Result<Update, CodecError> {
    Ok(Update {
        contacts: read_list(r.get_contacts(), read_contact)?,
        score: r.get_score(),
        world_radius: r.get_world_radius(),
        terrain_updates: read_list(r.get_terrain_updates(), |t| {
            let chunk = t.get_chunk_id();
            Ok(TerrainUpdate {
                chunk_id: (chunk.get_x(), chunk.get_y()),
                data: checked(t.get_data())?.iter().collect(),
            })
        })?,
    })
}

fn read_contact(r: contact::Reader<'_>) -> Result<Contact, CodecError> {
    let entity_type = match known(r.get_entity_type().which(), "Contact.entityType")? {
        contact::entity_type::None(()) => None,
        contact::entity_type::Some(k) => {
            Some(KINDS[known(k, "Contact.entityType.some")? as usize].0)
        }
    };
    let player_id = match known(r.get_player_id().which(), "Contact.playerId")? {
        contact::player_id::None(()) => None,
        contact::player_id::Some(p) => Some(p),
    };
    let g = checked(r.get_guidance())?;
    let t = checked(r.get_transform())?;
    let position = t.get_position();
    Ok(Contact {
        damage: r.get_damage(),
        entity_id: r.get_entity_id(),
        entity_type,
        guidance: Guidance {
            angle: g.get_angle(),
            submerge: g.get_submerge(),
            velocity: g.get_velocity(),
        },
        player_id,
        reloads: checked(r.get_reloads())?.iter().collect(),
        transform: Transform {
            altitude: t.get_altitude(),
            angle: t.get_angle(),
            position: (position.get_x(), position.get_y()),
            velocity: t.get_velocity(),
        },
        turret_angles: checked(r.get_turret_angles())?.iter().collect(),
    })
}
