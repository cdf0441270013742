//! `external::flatbuffers_rsb`.

use serprof_api::{Codec, CodecError};
use serprof_engines::dataset::rsb::{log, mesh};
use serprof_engines::external::flatbuffers_rsb::*;

/// `value`'s payload, as `encode` writes it.
pub(crate) fn encoded<T: Tables>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    FlatbuffersRsb::default().encode(value, &mut out).unwrap();
    out
}

/// Decode's and the validated access's answers to `bytes` (neither may panic).
pub(crate) fn read<T: Tables>(bytes: &[u8]) -> (Result<T, CodecError>, Result<u64, CodecError>) {
    let mut codec = FlatbuffersRsb::default();
    let decoded = Codec::<T>::decode(&mut codec, &mut bytes.to_vec());
    (decoded, Codec::<T>::access(&mut codec, bytes))
}

/// The round trip, the slice call and both accesses of the dataset's value.
fn reads_back<T: Tables + PartialEq + std::fmt::Debug>(value: &T, digest: fn(&T) -> u64) {
    let mut codec = FlatbuffersRsb::default();
    let bytes = encoded(value);
    let slice = Codec::<T>::encode_to_slice(&mut codec, value, &mut [])
        .unwrap()
        .unwrap();
    assert_eq!(slice, &bytes[..]);
    let (decoded, access) = read::<T>(&bytes);
    assert_eq!(decoded.as_ref(), Ok(value));
    assert_eq!(access, Ok(digest(value)));
    // SAFETY: `bytes` is a payload `encode` wrote.
    let unchecked = unsafe { Codec::<T>::access_unchecked(&mut codec, &bytes) };
    assert_eq!(unchecked, Ok(digest(value)));
}

/// Every prefix of `value`'s payload and every one of its bytes inverted: decode and the
/// validated access answer (a value or an error), never panic; the empty and the half
/// payloads are errors.
pub(crate) fn survives_damage<T: Tables>(value: &T) {
    let bytes = encoded(value);
    for len in 0..bytes.len() {
        let _ = read::<T>(&bytes[..len]);
    }
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0xFF;
        let _ = read::<T>(&damaged);
    }
    for short in [&bytes[..0], &bytes[..bytes.len() / 2]] {
        let (decoded, access) = read::<T>(short);
        assert!(decoded.is_err() && access.is_err(), "{} bytes", short.len());
    }
}

#[test]
fn the_log_and_the_mesh_read_back() {
    reads_back(&log::logs()[0], log::read_digest);
    reads_back(&mesh::mesh()[0], mesh::read_digest);
}

#[test]
fn damaged_logs_and_meshes_are_errors_or_values_never_panics() {
    let mut logs = log::logs().remove(0);
    logs.logs.truncate(3);
    survives_damage(&logs);
    let mut mesh = mesh::mesh().remove(0);
    mesh.triangles.truncate(2);
    survives_damage(&mesh);
}
