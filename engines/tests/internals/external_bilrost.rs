//! `external::bilrost`.

use bilrost::{Message, OwnedMessage};
use serprof_api::Codec;
use serprof_engines::dataset::rsb::{mesh, mk48};
use serprof_engines::external::bilrost::*;

fn prepended<T: OwnedMessage>(codec: &mut Prepend, value: &T) -> Vec<u8> {
    let mut slice = [0u8; 0];
    let payload = codec
        .encode_to_slice(value, &mut slice)
        .expect("has a slice call");
    payload.expect("prepends").to_vec()
}

#[test]
fn prepend_writes_encode_s_bytes_in_one_chunk_and_keeps_its_buffer() {
    let mut codec = Prepend::default();
    for mesh in mesh::mesh() {
        assert_eq!(prepended(&mut codec, &mesh), mesh.encode_to_vec());
    }
    let updates = mk48::updates().remove(0);
    let first = prepended(&mut codec, &updates);
    let capacity = codec.capacity();
    assert_eq!(first, updates.encode_to_vec());
    assert_eq!(prepended(&mut codec, &updates), first);
    assert_eq!(codec.capacity(), capacity, "the second prepend reallocated");
    let mut out = Vec::new();
    codec.encode(&updates, &mut out).unwrap();
    assert_eq!(out, first);
    let back: mk48::Updates = codec.decode(&mut out).unwrap();
    assert!(back == updates);
}
