//! The `formats` study: every major Rust engine on the Order dataset, after Ingo
//! Kegel, "Java vs. Kotlin: who (de)serializes faster?" (ej-technologies blog, 2026-08-31), which
//! profiled JSON and binary engines on the same realistic object graph.
//!
//! Three configurations per engine: the round trip, named after its crate (`formats/postcard`),
//! serialize only (`postcard.serialize`) and deserialize only (`postcard.deserialize`); a
//! zero-copy engine adds its in-place reads (`rkyv.access`, `rkyv.validated-access`). Every
//! serde binary engine comes twice,
//! as it comes (`Vec<u8>` as a sequence of integers: serde's default) and with `+bytes` (byte
//! arrays through `serialize_bytes`, what `serde_bytes` does), because serde's default costs a
//! binary format as much as JSON costs (postcard 13 vs 6 µs, rmp-serde 71 vs 10, ciborium 200 vs
//! 18 per round trip). The JSON engines write byte arrays as base64, like Jackson. postcard comes
//! a third time, `postcard-extend`: the same engine through `to_extend` instead of `to_slice`,
//! what its serialize call alone costs.

use super::{Budget, Engine, Operation, Study};
use crate::external;
use crate::model::{Order, SerdeBytes};

/// The article the study follows.
const SOURCE: &str =
    "Ingo Kegel, \"Java vs. Kotlin: who (de)serializes faster?\", ej-technologies blog, 2026-08-31";

/// The caps of a study of about a hundred configurations (see [`study`]).
pub const BUDGET: Budget = Budget {
    processes: 12,
    quick_processes: 5,
    cpu_samples: 300,
    quick_cpu_samples: 110,
    overhead_pairs: 6,
    quick_overhead_pairs: 4,
};

/// The study: every engine of [`engines`] on the 200 Orders, round trip.
pub fn study() -> Study {
    engines()
        .into_iter()
        .fold(
            Study::new(
                "formats",
                "Which engine is fastest on the Order graph, and why",
            )
            .source(SOURCE)
            // About a hundred configurations: at the run's full CPU settings (1,000 samples at
            // 997 Hz, about 1 s of sampling, and 24 overhead pairs) their profiles would take
            // over three times the sampling of 300 samples and 6 pairs (the range of six covers
            // the overhead's median at 96.9%); --quick gets 110 samples and 4 pairs (87.5%: a
            // smoke run's check that the sampler costs little, no more).
            .budget(BUDGET)
            .dataset_static(crate::dataset::ORDERS, crate::dataset::orders),
            |study, engine| study.engine(engine),
        )
        .shared_references(Order::shares_references)
        .describe_difference(Order::first_difference)
        .digest(Order::digest)
        .operations([
            Operation::RoundTrip,
            Operation::Serialize,
            Operation::Deserialize,
        ])
        .into()
}

/// The configuration `formats/serde_json` alone, whatever studies the process measures: the
/// reference workload serprof times to tell CPUs and processes apart.
pub fn reference() -> super::Config {
    let study: Study = Study::new("formats", "the reference workload")
        .dataset_static(crate::dataset::ORDERS, crate::dataset::orders)
        .engine(json_engine())
        .into();
    study.configs()[0].clone()
}

/// serde_json on the Orders, byte arrays as base64 (the study's `serde_json`).
fn json_engine() -> Engine<Order> {
    external::serde_json::engine(SerdeBytes::Base64)
        .frames("serde_json|serde(_core)?::|base64")
        .notes(format!(
            "derived serde; byte arrays as base64 (base64 crate); decimals through f64 (2.00 is written 2.0); nulls written; {NO_SHARING}"
        ))
}

/// The 200 Orders.
pub fn orders() -> Vec<Order> {
    crate::dataset::orders().to_vec()
}

/// Notes shared by the serde engines' descriptions.
const NO_SHARING: &str = "shared references not kept";

/// A serde binary engine as it comes (`Vec<u8>` as a sequence of integers) and with native byte
/// strings (`+bytes`).
#[cfg(any(
    feature = "rmp-serde",
    feature = "ciborium",
    feature = "bincode",
    feature = "postcard",
    feature = "bitcode",
    feature = "bincode1"
))]
fn both_ways(
    make: fn(SerdeBytes) -> Engine<Order>,
    seq_notes: &str,
    native_notes: &str,
) -> [Engine<Order>; 2] {
    let name = make(SerdeBytes::Seq).name().to_string();
    [
        make(SerdeBytes::Seq).notes(seq_notes),
        make(SerdeBytes::Native)
            .named(format!("{name}+bytes"))
            .notes(native_notes),
    ]
}

/// Every engine of this build on the Orders, in the order the study lists them: the JSON
/// engines (byte arrays as base64, like Jackson), then the binary ones; every serde binary
/// engine twice, as it comes and with `+bytes`.
pub fn engines() -> Vec<Engine<Order>> {
    #[allow(unused_mut)]
    let mut all = vec![
        Engine::new("bytes_json", || {
            Ok(crate::casestudy::bytes_json::BytesJson {
                options: crate::casestudy::bytes_json::Options::default(),
            })
        })
        .library("bytes_json", "serprof")
        .json()
        .fields(crate::casestudy::json_fields("Order", crate::studies::bytes::ORDER_MAPS))
        .frames("bytes_json")
        .notes("hand-written (the bytes study's engine): streaming writer, cursor reader, base64 with the table decoder; decimals exact with their scale; nulls omitted like Fory JSON; shared references not kept"),
        json_engine(),
    ];
    #[cfg(feature = "sonic-rs")]
    all.push(external::sonic_rs::engine(SerdeBytes::Base64).frames("sonic_rs|serde(_core)?::|base64").notes(format!(
        "derived serde, the serde_json mapping: byte arrays as base64 (base64 crate); decimals through f64 (2.00 is written 2.0); nulls written; {NO_SHARING}"
    )));
    #[cfg(feature = "simd-json")]
    all.push(external::simd_json::engine(SerdeBytes::Base64).frames("simd_json|serde(_core)?::|base64").notes(format!(
        "derived serde, the serde_json mapping (base64, f64 decimals, nulls written); parses the encode buffer in place with reused tape buffers, no copy; {NO_SHARING}"
    )));
    #[cfg(feature = "fory")]
    all.push(
        Engine::new("fory", external::fory::ForyCodec::new)
            .library("fory", external::fory::version())
            .call("Fory::serialize_to, Fory::deserialize")
            .frames("fory")
            .feature("fory")
            .notes("native mode, same schema (compatible=false), reference tracking on: shared references kept (address, products, categories written once); prices as i64 cents; attributes, tags, thumbnails through small serializers of ours"),
    );
    #[cfg(feature = "prost")]
    all.push(
        Engine::new("prost", || Ok(external::prost::Prost))
            .library("prost", external::prost::version())
            .call("prost::Message::encode, decode (through the mirror messages)")
            .frames("prost|serprof_engines::external::prost")
            .feature("prost")
            .notes("Protobuf messages derived in Rust; the Order is converted to messages in encode and back in decode, inside the timed round trip (strings and thumbnails copied); prices as int64 cents; attributes as repeated entries (a proto map loses order); shared references not kept"),
    );
    #[cfg(feature = "rmp-serde")]
    all.extend(both_ways(
        external::rmp_serde::engine,
        "MessagePack, structs as arrays (no field names, rmp-serde's default); Vec<u8> as serde's sequence of integers; prices as i64 cents; shared references not kept",
        "MessagePack, structs as arrays; byte arrays as bin (serialize_bytes); prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "ciborium")]
    all.extend(both_ways(
        external::ciborium::engine,
        "CBOR, structs as maps with field names (like Jackson CBOR); Vec<u8> as serde's sequence of integers; prices as i64 cents; shared references not kept",
        "CBOR, structs as maps with field names; byte arrays as CBOR byte strings (serialize_bytes); prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "bincode")]
    all.extend(both_ways(
        external::bincode::engine,
        "bincode 2 serde API, config::standard() (varints, no field names); Vec<u8> as serde's sequence; prices as i64 cents; shared references not kept",
        "bincode 2 serde API, config::standard(); byte arrays through serialize_bytes; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "postcard")]
    all.extend(both_ways(
        external::postcard::engine,
        "no field names, varints; Vec<u8> as serde's sequence; prices as i64 cents; shared references not kept",
        "no field names, varints; byte arrays through serialize_bytes; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "postcard")]
    all.push(
        external::postcard::with_call(SerdeBytes::Seq, external::postcard::Call::Extend).notes(
            "`postcard` through `to_extend` (every byte pushed through `Extend` onto the buffer) instead of `to_slice`: the call's cost on its own; Vec<u8> as serde's sequence; prices as i64 cents; shared references not kept",
        ),
    );
    #[cfg(feature = "bitcode")]
    all.extend(both_ways(
        external::bitcode::engine,
        "serde API (bitcode's own derive rejects the recursive Category); returns an owned Vec, copied into the buffer; Vec<u8> as serde's sequence; prices as i64 cents; shared references not kept",
        "serde API (bitcode's own derive rejects the recursive Category); returns an owned Vec, copied into the buffer; byte arrays through serialize_bytes, which bitcode's serde writes and reads as the same u8 sequence: a control, equal to `bitcode`; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "bincode1")]
    all.extend(both_ways(
        external::bincode1::engine,
        "bincode 1.3.3 serde API, bincode1::serialize's format (fixed-width integers, u64 lengths, no field names), trailing bytes rejected; Vec<u8> as serde's sequence; prices as i64 cents; shared references not kept",
        "bincode 1.3.3 serde API, fixed-width integers; byte arrays through serialize_bytes (the same bytes as the sequence: u64 length, then the bytes); prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "borsh")]
    all.push(external::borsh::engine().notes(
        "borsh's derives on the model (features rc, indexmap): fixed-width integers, u32 lengths, Vec<u8> in bulk, attributes and tags in insertion order; prices as i64 cents; shared references not kept (rc decodes each Arc separately)",
    ));
    #[cfg(feature = "rkyv")]
    all.push(external::rkyv::order_engine().notes(
        "rkyv's derives on the model (feature indexmap-2): archive written in place, then validated with bytecheck (rkyv::access) and deserialized into owned values; rkyv.access and rkyv.validated-access read every field of the archive in place instead (access_unchecked, and access after bytecheck validates it); copied into an aligned buffer only when the payload is misaligned; prices as i64 cents; shared references kept (each Arc archived once)",
    ));
    #[cfg(feature = "wincode")]
    all.push(external::wincode::engine().notes(
        "wincode's derives on the model (feature indexmap), default configuration: bincode 1's layout (fixed-width integers, u64 lengths, u32 enum tags), Vec<u8> as a memcpy, trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "musli")]
    all.push(external::musli::engine().notes(
        "Müsli's derives on the model, musli::storage (varints, fields by position); byte arrays as #[musli(bytes)]; attributes and tags through small with-modules of ours (no IndexMap impls); prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "speedy")]
    all.push(external::speedy::engine().notes(
        "speedy, little endian, through Readable/Writable impls of ours (speedy has no Arc impls): fixed-width integers, u32 lengths, Vec<u8> as a memcpy, attributes and tags in insertion order (feature indexmap_v2); sized first, then written in place; trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "minicbor")]
    all.push(external::minicbor::engine().notes(
        "CBOR through Encode/Decode impls of ours on minicbor's encoder and decoder (its derive has no Arc, IndexMap or IndexSet): structs as arrays without field names, byte arrays as CBOR byte strings, attributes as a map in insertion order; trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "msgpacker")]
    all.push(external::msgpacker::engine().notes(
        "MessagePack through Packable/Unpackable impls of ours (msgpacker has no Arc impls): structs as bare field sequences (its derive's layout), byte arrays as bin, attributes as a map in insertion order; collections decoded without trusting their lengths (msgpacker's own Vec decoder reserves them up front); trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "bilrost")]
    all.push(external::bilrost::order_engine().notes(
        "bilrost's derive on mirror messages of ours (no Arc messages, no ordered map): the Order is converted to them in encode and back in decode, inside the timed round trip (strings and thumbnails copied); varints, fields by tag, values equal to their default not written; attributes as (key, value) tuples and tags as a list, both in insertion order; thumbnails as plainbytes; the recursive category boxed (recurses); trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "nanoserde")]
    all.push(external::nanoserde::engine().notes(
        "nanoserde's SerBin/DeBin derives on the model, its decoders as they ship: fixed-width little-endian integers, u64 lengths, u16 enum tags; Arc fields through proxies of ours (nanoserde has no Arc), attributes and tags through impls of ours in nanoserde's list layout, in insertion order (no IndexMap/IndexSet); no bytes mode, so thumbnails are written and read one u8 at a time; decoded from an offset, trailing bytes rejected; prices as i64 cents; shared references not kept",
    ));
    #[cfg(feature = "protobuf")]
    all.push(external::protobuf::engine().notes(
        "rust-protobuf 3 with messages generated from engines/schemas/order.proto by protobuf-codegen (pure parser, lite runtime), committed; the Order is converted to messages in encode and back in decode, inside the timed round trip (strings and thumbnails copied); write_to_vec sizes the message, then appends; prices as int64 cents; attributes as repeated entries (a proto map loses order); trailing bytes rejected; shared references not kept",
    ));
    #[cfg(feature = "capnp")]
    all.push(external::capnp::engine().notes(
        "Cap'n Proto through code capnpc generates from engines/schemas/order.capnp; the Order is built into a message in encode (a fresh heap-allocated message each time) and written unpacked (segment table and segments) into the buffer; decode reads it in place with capnp's default limits and copies every field back into an owned Order, both inside the timed round trip; prices as Int64 cents, attributes as a list of key/value structs and tags as a list of texts, both in insertion order, thumbnails as Data, notes and a category's parent as null pointers when absent; trailing bytes rejected; shared references not kept",
    ));
    #[cfg(feature = "flatbuffers")]
    all.push(external::flatbuffers::engine().notes(
        "FlatBuffers through code flatc 2.0.8 generates from engines/schemas/order.fbs; the Order is built back to front in a builder the adapter keeps (children before parents), then copied into the buffer; decode verifies the whole buffer first (flatbuffers::root, default verifier limits) and copies every field back into an owned Order, both inside the timed round trip; prices as long cents, attributes as a vector of key/value tables and tags as a vector of strings, both in insertion order, thumbnails as [ubyte], notes and a category's parent absent when None; bytes after the verified buffer not detected (FlatBuffers has no end marker); shared references not kept",
    ));
    all
}
