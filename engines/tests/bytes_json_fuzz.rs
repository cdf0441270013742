//! Property test: `read_order` never panics, whatever it is given, with every byte-array codec.
//!
//! Inputs are valid payloads (every written form: decimal and base64 byte arrays, nulls omitted
//! and written, and pretty-printed serde_json output) damaged by a few mutations each (truncation,
//! bit flips, byte replacements, deletions, inserted JSON punctuation), and plain random bytes.
//! A decode may fail or, where the damage leaves valid JSON, succeed with another value; it must
//! never panic, and a failure must point inside the input.
//!
//! Case counts are fixed (no environment override) so that `cargo test` stays fast under the test
//! profile's opt-level 1: 1,500 mutated payloads plus 500 random inputs, each decoded with the
//! four codecs (8,000 decodes).

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::Config;
use serprof_engines::casestudy::bytes_json::{read_order, write_order, ByteArrayCodec, Options};
use serprof_engines::dataset::orders;

const MUTATED_CASES: u32 = 1_500;
const RANDOM_CASES: u32 = 500;

/// Valid payloads: Orders 0-3 in every written form, and Order 4 as pretty serde_json.
fn payloads() -> &'static [Vec<u8>] {
    static PAYLOADS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    PAYLOADS.get_or_init(|| {
        let forms = [
            (ByteArrayCodec::DecimalSigned, false),
            (ByteArrayCodec::Base64Table, false),
            (ByteArrayCodec::Base64Table, true),
        ];
        let mut all = Vec::new();
        for order in &orders()[..4] {
            for (byte_arrays, write_nulls) in forms {
                let mut out = Vec::new();
                let options = Options {
                    byte_arrays,
                    write_nulls,
                };
                write_order(order, &options, &mut out);
                all.push(out);
            }
        }
        let mut out = Vec::new();
        write_order(&orders()[4], &Options::jackson(), &mut out);
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        all.push(serde_json::to_vec_pretty(&value).unwrap());
        all
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    FlipBit(usize, u8),
    Replace(usize, u8),
    Delete(usize),
    Insert(usize, u8),
}

impl Mutation {
    fn apply(&self, input: &mut Vec<u8>) {
        if input.is_empty() {
            return;
        }
        let at = |p: usize| p % input.len();
        match *self {
            Mutation::Truncate(p) => input.truncate(at(p)),
            Mutation::FlipBit(p, bit) => {
                let i = at(p);
                input[i] ^= 1 << bit;
            }
            Mutation::Replace(p, b) => {
                let i = at(p);
                input[i] = b;
            }
            Mutation::Delete(p) => {
                input.remove(at(p));
            }
            Mutation::Insert(p, b) => input.insert(at(p), b),
        }
    }
}

/// Bytes that matter to a JSON reader or a base64 decoder.
const PUNCTUATION: &[u8] = b"[]{}\"\\,:-+.0123456789eEu=/ \xc3\xff\x00ntf";

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0u8..8).prop_map(|(p, bit)| Mutation::FlipBit(p, bit)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Replace(p, b)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), prop::sample::select(PUNCTUATION))
            .prop_map(|(p, b)| Mutation::Insert(p, b)),
    ]
}

/// Decodes `input` with every codec: errors must point inside the input; panics fail the test.
fn decode_with_every_codec(input: &[u8]) -> Result<(), TestCaseError> {
    for byte_arrays in ByteArrayCodec::ALL {
        let options = Options {
            byte_arrays,
            write_nulls: false,
        };
        if let Err(e) = read_order(input, &options) {
            prop_assert!(e.offset <= input.len(), "{byte_arrays:?}: {e}");
        }
    }
    Ok(())
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        // Keep failures in the report, not in files beside the tests.
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(MUTATED_CASES))]
    #[test]
    fn mutated_payloads_never_panic(
        which in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let mut input = which.get(payloads()).clone();
        for m in &mutations {
            m.apply(&mut input);
        }
        decode_with_every_codec(&input)?;
    }
}

proptest! {
    #![proptest_config(config(RANDOM_CASES))]
    #[test]
    fn random_bytes_never_panic(
        input in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..256),
            prop::collection::vec(prop::sample::select(PUNCTUATION), 0..256),
        ],
    ) {
        decode_with_every_codec(&input)?;
    }
}
