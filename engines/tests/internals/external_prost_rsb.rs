//! `external::prost_rsb`.

use serprof_api::Codec;
use serprof_api::CodecError;
use serprof_engines::dataset::rsb::log::Logs;
use serprof_engines::dataset::rsb::minecraft::Players;
use serprof_engines::dataset::rsb::mk48::Updates;
use serprof_engines::external::prost_rsb::*;

fn decoded<T: Messages>(message: &T::Message) -> Result<T, CodecError> {
    let mut bytes = prost::Message::encode_to_vec(message);
    ProstRsb::default().decode(&mut bytes)
}

#[test]
fn kept_messages_write_the_values_payload_and_a_cut_payload_reads_into_no_message() {
    crate::external_rsb_pb::check_kept_messages::<ProstRsb<Logs>>();
}

#[test]
fn a_number_too_wide_for_its_field_is_an_error_that_names_the_field() {
    let mut players = serprof_engines::dataset::rsb::minecraft::players()
        .remove(0)
        .populate();
    players.players[0].inventory.push(minecraft::ItemMessage {
        count: 300,
        slot: 1,
        id: "minecraft:dirt".into(),
    });
    let e = decoded::<Players>(&players).unwrap_err().to_string();
    assert!(e.contains("Item.count 300"), "{e}");
}

#[test]
fn a_missing_message_and_an_unknown_enum_number_are_errors() {
    let mut updates = serprof_engines::dataset::rsb::mk48::updates()
        .remove(0)
        .populate();
    let contact = &mut updates.updates[0].contacts[0];
    contact.entity_type = Some(10);
    let e = decoded::<Updates>(&updates).unwrap_err().to_string();
    assert!(e.contains("entity_type 10"), "{e}");
    let mut updates = serprof_engines::dataset::rsb::mk48::updates()
        .remove(0)
        .populate();
    updates.updates[0].contacts[0].transform = None;
    let e = decoded::<Updates>(&updates).unwrap_err().to_string();
    assert!(e.contains("Contact.transform"), "{e}");
}
