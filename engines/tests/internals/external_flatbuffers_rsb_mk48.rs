//! `external::flatbuffers_rsb::mk48`.

use crate::external_flatbuffers_rsb::read;
use flatbuffers::WIPOffset;
use serprof_api::Codec;
use serprof_engines::dataset::rsb::mk48;
use serprof_engines::dataset::rsb::mk48::{Contact, EntityType, Updates};
use serprof_engines::external::flatbuffers_rsb::rsb_mk48_generated as fb;
use serprof_engines::external::flatbuffers_rsb::Builder;
use serprof_engines::external::flatbuffers_rsb::FlatbuffersRsb;

/// A payload of one update of one contact, seen (it has reloads), of kind `kind`, with a
/// transform or without.
fn one_contact(kind: i8, transform: bool) -> Vec<u8> {
    let mut b = Builder::new();
    let reloads = b.create_vector(&[true]);
    let turret_angles = b.create_vector::<u16>(&[]);
    let mut t = fb::ContactBuilder::new(&mut b);
    t.add_entity_type(fb::EntityType(kind));
    t.add_guidance(&fb::Guidance::new(1, false, 2));
    if transform {
        let position = fb::Vector2f::new(0.5, 0.25);
        t.add_transform(&fb::Transform::new(0, 3, &position, 4));
    }
    t.add_reloads(reloads);
    t.add_turret_angles(turret_angles);
    let contact = t.finish();
    let contacts = b.create_vector(&[contact]);
    let terrain = b.create_vector::<WIPOffset<fb::TerrainUpdate<'_>>>(&[]);
    let mut t = fb::UpdateBuilder::new(&mut b);
    t.add_contacts(contacts);
    t.add_terrain_updates(terrain);
    let update = t.finish();
    let updates = b.create_vector(&[update]);
    let mut t = fb::UpdatesBuilder::new(&mut b);
    t.add_updates(updates);
    let root = t.finish();
    b.finish(root, None);
    b.finished_data().to_vec()
}

#[test]
fn an_unknown_entity_type_and_a_missing_transform_are_errors_that_name_them() {
    let (decoded, _) = read::<Updates>(&one_contact(10, true));
    let e = decoded.unwrap_err().to_string();
    assert!(e.contains("Contact.entity_type 10"), "{e}");
    let (decoded, _) = read::<Updates>(&one_contact(9, false));
    let e = decoded.unwrap_err().to_string();
    assert!(e.contains("Contact.transform"), "{e}");
    let (decoded, _) = read::<Updates>(&one_contact(9, true));
    let contact = &decoded.unwrap().updates[0].contacts[0];
    // Seen, so the absent player is the default.
    assert_eq!(
        (contact.entity_type, contact.player_id),
        (Some(EntityType::Zubr), Some(0))
    );
}

#[test]
fn defaults_are_read_by_the_reloads_and_a_contact_the_rule_misreads_is_refused() {
    let mut updates = mk48::updates().remove(0);
    let contacts = &mut updates.updates[0].contacts;
    contacts.truncate(2);
    contacts[0].reloads = vec![true];
    contacts[0].entity_type = Some(EntityType::ArleighBurke);
    contacts[0].player_id = Some(0);
    contacts[1].reloads.clear();
    contacts[1].entity_type = None;
    contacts[1].player_id = None;
    let (decoded, _) = read::<Updates>(&crate::external_flatbuffers_rsb::encoded(&updates));
    assert_eq!(decoded.as_ref(), Ok(&updates));

    let mut codec = FlatbuffersRsb::default();
    type Change = fn(&mut Contact);
    let cases: [(Change, &str); 4] = [
        (|c| c.entity_type = None, "Contact.entity_type"),
        (|c| c.player_id = None, "Contact.player_id"),
        (
            |c| {
                c.reloads.clear();
                c.entity_type = Some(EntityType::ArleighBurke);
                c.player_id = None;
            },
            "Contact.entity_type",
        ),
        (
            |c| {
                c.reloads.clear();
                c.entity_type = None;
                c.player_id = Some(0);
            },
            "Contact.player_id",
        ),
    ];
    for (change, field) in cases {
        let mut refused = updates.clone();
        change(&mut refused.updates[0].contacts[0]);
        let e = codec
            .encode(&refused, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains(field), "{e}");
    }
}
