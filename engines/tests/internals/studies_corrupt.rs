//! `studies::corrupt`.

use serprof_engines::studies::corrupt::*;
use serprof_engines::studies::{bytes, formats, Format};

fn fake_payloads(format: Format) -> Vec<Vec<u8>> {
    let json = br#"{"id":"A-1","lines":[{"sku":"x","qty":2}],"notes":"hi"}"#.to_vec();
    let binary: Vec<u8> = (0..200u32).map(|i| (i % 90) as u8).collect();
    let one = match format {
        Format::Json => json,
        Format::Binary => binary,
    };
    vec![one; 3]
}

#[test]
fn inputs_are_deterministic_and_independent_of_the_count() {
    for format in [Format::Json, Format::Binary] {
        let p = fake_payloads(format);
        for i in [0, 1, 7, 99, 999] {
            assert_eq!(corrupt_input(i, format, &p), corrupt_input(i, format, &p));
        }
    }
}

#[test]
fn every_input_differs_from_its_payload_and_kinds_cycle() {
    for format in [Format::Json, Format::Binary] {
        let p = fake_payloads(format);
        let kinds = Mutation::kinds(format);
        for i in 0..300 {
            let input = corrupt_input(i, format, &p);
            assert_eq!(input.mutation, kinds[i % kinds.len()]);
            // Bit flips and replacements can undo each other; everything else always damages.
            if input.mutation != Mutation::BitFlip && input.mutation != Mutation::ByteReplace {
                assert_ne!(input.bytes, p[input.order], "{i}: {}", input.what);
            }
        }
    }
}

#[test]
fn truncations_start_with_every_length_class() {
    struct Zero;
    impl RngLike for Zero {
        fn below(&mut self, _: usize) -> usize {
            0
        }
    }
    let got: Vec<usize> = (0..16)
        .map(|t| truncation_length(t, 100, &mut Zero))
        .collect();
    assert_eq!(got, [0, 1, 2, 3, 4, 8, 16, 32, 64, 50, 96, 98, 99, 0, 0, 0]);
}

#[test]
fn the_trap_misbehaves_at_inputs_4_8_12_and_16() {
    let p = fake_payloads(Format::Binary);
    let lens: Vec<usize> = [4, 8, 12, 16]
        .iter()
        .map(|&i| corrupt_input(i, Format::Binary, &p).bytes.len())
        .collect();
    assert_eq!(lens, [1, 2, 3, 4]);
}

#[test]
fn configs_cover_formats_and_our_decoders() {
    let study = study();
    let names: Vec<String> = study.configs().iter().map(|c| c.info.name()).collect();
    assert!(names.contains(&"corrupt/serde_json".to_string()));
    assert!(names.contains(&"corrupt/json-base64-table".to_string()));
    assert!(!names.iter().any(|n| n.ends_with("serde_json-default")));
    let engines = names.iter().filter(|n| !n.contains("testkit")).count();
    assert_eq!(
        engines,
        formats::engines().len() + bytes::bytes_json_engines().len()
    );
    assert!(study
        .configs()
        .iter()
        .all(|c| c.info.operation == serprof_api::Operation::Decode));
}
