//! `external::capnp_rsb::minecraft`.

use serprof_api::Codec;
use serprof_engines::dataset::rsb::minecraft;

/// The dataset's capnp payload, packed or not.
fn payload(players: &minecraft::Players, packed: bool) -> Vec<u8> {
    let mut out = Vec::new();
    serprof_engines::external::capnp_rsb::CapnpRsb::new(packed)
        .encode(players, &mut out)
        .unwrap();
    out
}

#[test]
fn the_packed_payload_is_rsbs_with_the_selected_slot_left_unset() {
    let mut players = minecraft::players().remove(0);
    let ours = (
        payload(&players, false).len(),
        payload(&players, true).len(),
    );
    // rsb's serialize never sets a player's selected_item_slot: the unpacked size is the
    // same, and packing, which squeezes out zero bytes, gives rsb's size only with every
    // slot zero (rsb/tests/rsb.rs and the rsb guide give these numbers).
    for p in &mut players.players {
        p.selected_item_slot = 0;
    }
    let rsbs = (
        payload(&players, false).len(),
        payload(&players, true).len(),
    );
    assert_eq!((ours, rsbs), ((803_896, 490_981), (803_896, 489_017)));
}

#[test]
fn each_game_mode_sits_at_the_index_of_both_its_forms() {
    for (i, (mode, enumerant)) in serprof_engines::external::capnp_rsb::minecraft::MODES
        .into_iter()
        .enumerate()
    {
        assert_eq!((mode as usize, enumerant as usize), (i, i));
    }
}
