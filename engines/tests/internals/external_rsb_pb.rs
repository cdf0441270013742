//! Shared by the prost and rust-protobuf tests.

/// A codec's message configurations on the log, for its tests: the kept message of a value
/// writes the value's payload, the payload reads into messages and a cut one does not, and no
/// message is kept past the values given.
pub(crate) fn check_kept_messages<C>()
where
    C: serprof_api::Codec<serprof_engines::dataset::rsb::log::Logs> + Default,
{
    let logs = serprof_engines::dataset::rsb::log::logs();
    let mut codec = C::default();
    codec.keep_messages(&logs).unwrap();
    let (mut value, mut kept) = (Vec::new(), Vec::new());
    codec.encode(&logs[0], &mut value).unwrap();
    codec.encode_message(0, &mut kept).unwrap();
    assert_eq!(value, kept);
    codec.decode_message(&value).unwrap();
    // Cut inside the last log: a length that runs past the end.
    assert!(codec.decode_message(&value[..value.len() - 3]).is_err());
    let e = codec.encode_message(logs.len(), &mut kept).unwrap_err();
    assert!(e.to_string().contains("no message is kept"), "{e}");
}
