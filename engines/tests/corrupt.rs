//! The `corrupt` study's inputs against our own decoders, in process: every one of the 1,000
//! damaged payloads of every `bytes_json` configuration must decode to an error or a value,
//! never a panic (every decoder we write returns an error on bad input, as the `Codec` contract
//! in `codec.rs` requires). The harness test `robust.rs` checks the same through guarded
//! children; this one names the input that fails, and runs without the harness.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serprof_api::__private::Damaged;
use serprof_engines::studies::corrupt::{corrupt_input, study, Mutation, INPUTS_FULL};

#[test]
fn our_decoders_return_an_error_or_a_value_for_every_damaged_input() {
    let study = study();
    let ours: Vec<_> = study
        .configs()
        .iter()
        .filter(|c| c.info.engine == "bytes_json")
        .collect();
    assert_eq!(
        ours.len(),
        5,
        "formats/bytes_json and the four bytes codecs"
    );
    for config in ours {
        let name = config.info.name();
        let mut work = config.workload().unwrap();
        let payloads = work.payloads().unwrap();
        let (mut errors, mut values) = (0, 0);
        for index in 0..INPUTS_FULL {
            let input = corrupt_input(index, config.info.format, &payloads);
            let mut bytes = input.bytes.clone();
            match catch_unwind(AssertUnwindSafe(|| {
                work.decode_damaged(&mut bytes, input.order)
            })) {
                Ok(Damaged::Refused(_)) => errors += 1,
                Ok(Damaged::Unchanged | Damaged::Altered(_)) => values += 1,
                Err(_) => panic!(
                    "{name} panicked on input {index} ({}: {})",
                    input.mutation.as_str(),
                    input.what
                ),
            }
        }
        assert_eq!(errors + values, INPUTS_FULL);
        assert!(errors > values, "{name}: {errors} errors, {values} values");
    }
}

#[test]
fn json_inputs_use_every_json_mutation_and_binary_ones_inflate_lengths() {
    let json = vec![br#"{"a":"b","c":[1,{"d":"e"}]}"#.to_vec()];
    let kinds: std::collections::BTreeSet<Mutation> = (0..14)
        .map(|i| corrupt_input(i, serprof_engines::studies::Format::Json, &json).mutation)
        .collect();
    assert_eq!(kinds.len(), 7);
    let binary = vec![vec![3u8, b'a', b'b', b'c', 2, 0, 1]];
    let inflated = corrupt_input(3, serprof_engines::studies::Format::Binary, &binary);
    assert_eq!(inflated.mutation, Mutation::LengthInflate);
    assert!(inflated.bytes.contains(&0xFF), "{:?}", inflated.bytes);
}

/// The engines whose decoders are written against their libraries here (borsh, rkyv, wincode,
/// Müsli, speedy, minicbor, msgpacker, bincode 1, bilrost, capnp and flatbuffers): every
/// damaged input of the quick run is an error or a value, never a panic. An allocation the
/// process cannot survive would end this test too, which is the point: the harness measures
/// these engines in the same study.
#[test]
fn the_native_engines_return_an_error_or_a_value_for_every_damaged_input() {
    let names = [
        "bincode1",
        "borsh",
        "rkyv",
        "wincode",
        "musli",
        "speedy",
        "minicbor",
        "msgpacker",
        "bilrost",
        // Not nanoserde: its `Vec` decoder reserves the u64 length it reads before reading any
        // element, so an inflated length (a thumbnail's, in the quick run) makes the allocator
        // fail, which aborts the process (SIGABRT, not a panic this test could catch). The
        // harness's corrupt study decodes each engine in a child process and reports that
        // crash as nanoserde's verdict.
        "capnp",
        "flatbuffers",
    ];
    let study = study();
    let configs: Vec<_> = study
        .configs()
        .iter()
        .filter(|c| names.contains(&c.info.engine.as_str()))
        .collect();
    assert!(!configs.is_empty());
    for config in configs {
        let name = config.info.name();
        let mut work = config.workload().unwrap();
        let payloads = work.payloads().unwrap();
        for index in 0..INPUTS_FULL {
            let input = corrupt_input(index, config.info.format, &payloads);
            let mut bytes = input.bytes.clone();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                work.decode_damaged(&mut bytes, input.order)
            }));
            assert!(
                outcome.is_ok(),
                "{name} panicked on input {index} ({}: {})",
                input.mutation.as_str(),
                input.what
            );
        }
    }
}
