//! `external::protobuf_rsb`.

use protobuf::Message;
use serprof_api::{Codec, CodecError};
use serprof_engines::dataset::rsb::log::Logs;
use serprof_engines::dataset::rsb::minecraft::Players;
use serprof_engines::dataset::rsb::mk48::Updates;
use serprof_engines::external::protobuf_rsb::*;

/// The value `message` decodes to, through its bytes.
fn decoded<T: Messages>(message: &T::Message) -> Result<T, CodecError> {
    let mut bytes = message.write_to_bytes().map_err(CodecError::encode)?;
    ProtobufRsb::default().decode(&mut bytes)
}

#[test]
fn a_number_too_wide_for_its_field_is_an_error_that_names_the_field() {
    let mut logs = serprof_engines::dataset::rsb::log::logs()
        .remove(0)
        .populate();
    logs.logs[0].code = 70_000;
    let e = decoded::<Logs>(&logs).unwrap_err().to_string();
    assert!(e.contains("Log.code 70000"), "{e}");
    let mut logs = serprof_engines::dataset::rsb::log::logs()
        .remove(0)
        .populate();
    logs.logs[1].address.mut_or_insert_default().x2 = 256;
    let e = decoded::<Logs>(&logs).unwrap_err().to_string();
    assert!(e.contains("Address.x2 256"), "{e}");
}

#[test]
fn an_unknown_game_type_and_a_too_wide_item_count_are_errors_that_name_the_field() {
    use protobuf::EnumOrUnknown;
    let players = serprof_engines::dataset::rsb::minecraft::players()
        .remove(0)
        .populate();
    let mut unknown = players.clone();
    unknown.players[0].previous_game_type = EnumOrUnknown::from_i32(7);
    let e = decoded::<Players>(&unknown).unwrap_err().to_string();
    assert!(e.contains("Player.previous_game_type 7"), "{e}");
    let mut wide = players;
    wide.players[0].inventory[0].count = 300;
    let e = decoded::<Players>(&wide).unwrap_err().to_string();
    assert!(e.contains("Item.count 300"), "{e}");
}

#[test]
fn a_missing_message_is_an_error_that_names_the_field() {
    let mut logs = serprof_engines::dataset::rsb::log::logs()
        .remove(0)
        .populate();
    logs.logs[0].address.clear();
    let e = decoded::<Logs>(&logs).unwrap_err().to_string();
    assert!(e.contains("Log.address"), "{e}");
}

#[test]
fn an_unknown_enum_number_and_a_missing_message_are_errors_that_name_the_field() {
    use protobuf::EnumOrUnknown;
    let mut updates = serprof_engines::dataset::rsb::mk48::updates()
        .remove(0)
        .populate();
    updates.updates[0].contacts[0].entity_type = Some(EnumOrUnknown::from_i32(10));
    let e = decoded::<Updates>(&updates).unwrap_err().to_string();
    assert!(e.contains("Contact.entity_type 10"), "{e}");
    let mut updates = serprof_engines::dataset::rsb::mk48::updates()
        .remove(0)
        .populate();
    updates.updates[0].contacts[0].transform.clear();
    let e = decoded::<Updates>(&updates).unwrap_err().to_string();
    assert!(e.contains("Contact.transform"), "{e}");
}

#[test]
fn kept_messages_write_the_values_payload_and_a_cut_payload_reads_into_no_message() {
    crate::external_rsb_pb::check_kept_messages::<ProtobufRsb<Logs>>();
}

#[test]
fn bad_bytes_are_an_error() {
    let mut bytes = Vec::new();
    ProtobufRsb::default()
        .encode(&serprof_engines::dataset::rsb::log::logs()[0], &mut bytes)
        .unwrap();
    // Cut inside the last log: a length that runs past the end.
    let mut cut = bytes[..bytes.len() - 3].to_vec();
    assert!(Codec::<Logs>::decode(&mut ProtobufRsb::default(), &mut cut).is_err());
    // A field number 0 is never valid.
    let mut zero = vec![0x00, 0x01];
    assert!(Codec::<Logs>::decode(&mut ProtobufRsb::default(), &mut zero).is_err());
}
