//! `external::capnp_rsb`.

use serprof_api::Codec;
use serprof_engines::dataset::rsb;
use serprof_engines::external::capnp_rsb::*;

fn encoded<T: Structs>(codec: &mut CapnpRsb, value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    codec.encode(value, &mut out).unwrap();
    out
}

/// Every byte of `value`'s payload damaged in turn, and the payload cut short, unpacked and
/// packed: decode and access answer (an error, or a value read from other bytes), never
/// panic; a cut payload is an error. The payload read from an odd address decodes back
/// equal.
fn damaged_bytes_are_errors_not_panics<T: Structs + PartialEq + std::fmt::Debug>(value: T) {
    for packed in [false, true] {
        let mut codec = CapnpRsb::new(packed);
        let payload = encoded(&mut codec, &value);
        for i in 0..payload.len() {
            let mut bytes = payload.clone();
            bytes[i] ^= 0xFF;
            let _ = Codec::<T>::decode(&mut codec, &mut bytes);
            let _ = Codec::<T>::access(&mut codec, &bytes);
        }
        let mut cut = payload[..payload.len() - 8].to_vec();
        assert!(Codec::<T>::decode(&mut codec, &mut cut).is_err());
        let mut odd = vec![0; payload.len() + 1];
        odd[1..].copy_from_slice(&payload);
        let back = Codec::<T>::decode(&mut codec, &mut odd[1..]).unwrap();
        assert_eq!(back, value, "packed: {packed}");
    }
}

#[test]
fn damaged_logs_are_errors() {
    let mut logs = rsb::log::logs().remove(0);
    logs.logs.truncate(3);
    damaged_bytes_are_errors_not_panics(logs);
}

#[test]
fn damaged_meshes_are_errors() {
    let mut mesh = rsb::mesh::mesh().remove(0);
    mesh.triangles.truncate(3);
    damaged_bytes_are_errors_not_panics(mesh);
}

/// The first update of the dataset with its first contact only, that contact of kind
/// Zubr with the id `0xDEAD_BEEF`, found again in the payload by those four bytes.
fn one_contact() -> rsb::mk48::Updates {
    let mut updates = rsb::mk48::updates().remove(0);
    updates.updates.truncate(1);
    let contacts = &mut updates.updates[0].contacts;
    contacts.truncate(1);
    contacts[0].entity_type = Some(rsb::mk48::EntityType::Zubr);
    contacts[0].entity_id = 0xDEAD_BEEF;
    updates
}

/// Where `marker` starts in `payload`.
fn at(payload: &[u8], marker: &[u8]) -> usize {
    let found = payload.windows(marker.len()).position(|w| w == marker);
    found.expect("the marker is in the payload")
}

#[test]
fn damaged_updates_are_errors() {
    damaged_bytes_are_errors_not_panics(one_contact());
}

#[test]
fn an_enum_number_or_union_tag_the_schema_lacks_is_an_error_that_names_the_field() {
    let mut codec = CapnpRsb::new(false);
    let payload = encoded(&mut codec, &one_contact());
    // A contact's data: the entity id in bytes 4 to 8, the union's tag (u16) before it,
    // the kind (u16) after it.
    let id = at(&payload, &0xDEAD_BEEFu32.to_le_bytes());
    let mut bytes = payload.clone();
    bytes[id + 4] = 10;
    let e = Codec::<rsb::mk48::Updates>::decode(&mut codec, &mut bytes).unwrap_err();
    assert!(e.to_string().contains("Contact.entityType.some 10"), "{e}");
    // The in-place read touches each update's score only: it does not see the kind.
    let access = Codec::<rsb::mk48::Updates>::access(&mut codec, &bytes);
    assert!(access.is_ok(), "{access:?}");
    let mut bytes = payload;
    bytes[id - 2] = 7;
    let e = Codec::<rsb::mk48::Updates>::decode(&mut codec, &mut bytes).unwrap_err();
    assert!(e.to_string().contains("Contact.entityType 7"), "{e}");

    let mut players = rsb::minecraft::players().remove(0);
    players.players.truncate(1);
    players.players[0].score = 0x0123_4567_89AB_CDEF;
    let payload = encoded(&mut codec, &players);
    // A player's data: the game mode (u16) in bytes 0 to 2, the score in bytes 8 to 16.
    let mut bytes = payload.clone();
    bytes[at(&payload, &0x0123_4567_89AB_CDEFi64.to_le_bytes()) - 8] = 4;
    let e = Codec::<rsb::minecraft::Players>::decode(&mut codec, &mut bytes).unwrap_err();
    assert!(e.to_string().contains("Player.gameType 4"), "{e}");
    let e = Codec::<rsb::minecraft::Players>::access(&mut codec, &bytes).unwrap_err();
    assert!(e.to_string().contains("Player.gameType 4"), "{e}");
}

#[test]
fn damaged_players_are_errors() {
    let mut players = rsb::minecraft::players().remove(0);
    players.players.truncate(2);
    damaged_bytes_are_errors_not_panics(players);
}

#[test]
fn a_count_past_capnps_bound_is_an_error_that_names_the_list() {
    assert_eq!(count(3, 7, "Logs.logs"), Ok(3));
    let e = count(CAPNP_BOUND / 7 + 1, 7, "Logs.logs").unwrap_err();
    assert!(e.to_string().contains("Logs.logs"), "{e}");
    assert!(count(CAPNP_BOUND, 1, "Log.date").is_err());
    assert!(count(usize::MAX, 1, "Log.date").is_err());
}
