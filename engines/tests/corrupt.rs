//! The `corrupt` study's inputs against our own decoders, in process: every one of the 1,000
//! damaged payloads of every `bytes_json` configuration must decode to an error or a value,
//! never a panic (every decoder we write returns an error on bad input, as the `Codec` contract
//! in `codec.rs` requires). The harness test `robust.rs` checks the same through guarded
//! children; this one names the input that fails, and runs without the harness.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serprof_engines::dataset::orders;
use serprof_engines::studies::corrupt::{configs, corrupt_input, Mutation, INPUTS_FULL};
use serprof_engines::studies::AnyCodec;

#[test]
fn our_decoders_return_an_error_or_a_value_for_every_damaged_input() {
    let ours: Vec<_> = configs()
        .into_iter()
        .filter(|c| c.info.engine == "bytes_json")
        .collect();
    assert_eq!(
        ours.len(),
        5,
        "formats/bytes_json and the four bytes codecs"
    );
    for config in ours {
        let name = config.info.name();
        let AnyCodec::Orders(mut codec) = (config.make)().unwrap() else {
            panic!("{name} decodes Orders");
        };
        let payloads: Vec<Vec<u8>> = orders()
            .iter()
            .map(|o| {
                let mut buf = Vec::new();
                codec.encode(o, &mut buf).unwrap();
                buf
            })
            .collect();
        let (mut errors, mut values) = (0, 0);
        for index in 0..INPUTS_FULL {
            let input = corrupt_input(index, config.info.format, &payloads);
            let mut bytes = input.bytes.clone();
            match catch_unwind(AssertUnwindSafe(|| codec.decode(&mut bytes))) {
                Ok(Err(_)) => errors += 1,
                Ok(Ok(_)) => values += 1,
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
