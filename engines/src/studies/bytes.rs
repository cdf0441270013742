//! The `bytes` study: the byte-array hotspot of Fory JSON, before and after the fix, after Ingo
//! Kegel, "How we made Apache Fory JSON 4.5 times faster" (ej-technologies blog, 2026-09-07).
//!
//! Four configurations of our own `bytes_json` engine differ only in [`ByteArrayCodec`]: the
//! article's three states (signed decimal arrays, the two-pass base64 decoder, the table-driven
//! one) and the `base64` crate as a reference. Beside them, serde_json as it comes (`Vec<u8>` as
//! an array of unsigned decimals: the same trap) and serde_json with base64.

use super::{Engine, Study};
use crate::casestudy::bytes_json::{ByteArrayCodec, BytesJson, Options};
use crate::external;
use crate::model::{Order, SerdeBytes};

/// The before/after steps, as the article took them.
pub const STEPS: [&str; 3] = ["json-decimal", "json-base64-twopass", "json-base64-table"];

/// The study: [`engines`] on the 200 Orders, round trip, with its question and steps.
pub fn study() -> Study {
    engines()
        .into_iter()
        .fold(
            Study::new("bytes", "The byte-array hotspot, before and after the fix")
                .source("Ingo Kegel, \"How we made Apache Fory JSON 4.5 times faster\", ej-technologies blog, 2026-09-07")
                // Every frame that handles byte arrays: ours (`read_byte_array`,
                // `write_base64`, `decode_base64_table`, ...), serde's `ByteArray` impls in
                // `model::bytes`, and the `base64` crate's.
                .question("(?i)byte_?array|base64", "byte-array code")
                .steps(STEPS)
                .dataset_static(crate::dataset::ORDERS, crate::dataset::orders),
            |study, engine| study.engine(engine),
        )
        .shared_references(Order::shares_references)
        .describe_difference(Order::first_difference)
        .into()
}

/// Frames of our engine.
const BYTES_JSON_FRAMES: &str = "bytes_json";
/// Frames of our engine and of the `base64` crate it calls in `json-base64-crate`.
const BYTES_JSON_CRATE_FRAMES: &str = "bytes_json|base64::";
/// Frames of serde_json, serde and the base64 crate. Since serde 1.0.220 the traits live in
/// `serde_core` (`<ByteArray as serde_core::ser::Serialize>::serialize`), so both crate names
/// count.
const SERDE_FRAMES: &str = "serde_json|serde(_core)?::|base64";

/// The Order's maps, as our JSON engines write them (objects of the map's keys).
pub const ORDER_MAPS: &[&str] = &["Order.attributes"];

/// Our engine with byte arrays written by `byte_arrays`.
fn bytes_json(name: &str, byte_arrays: ByteArrayCodec, frames: &str, notes: &str) -> Engine<Order> {
    Engine::new(name, move || {
        Ok(BytesJson {
            options: Options {
                byte_arrays,
                ..Options::default()
            },
        })
    })
    .library("bytes_json", "serprof")
    .json()
    .fields(crate::casestudy::json_fields("Order", ORDER_MAPS))
    .frames(frames)
    .notes(notes)
}

/// The four `bytes_json` codecs of the article's states and the reference decoder.
pub fn bytes_json_engines() -> Vec<Engine<Order>> {
    vec![
        bytes_json(
            "json-decimal",
            ByteArrayCodec::DecimalSigned,
            BYTES_JSON_FRAMES,
            "Fory JSON 1.7.0's state: byte arrays as signed decimal arrays, up to 5 characters a byte",
        ),
        bytes_json(
            "json-base64-twopass",
            ByteArrayCodec::Base64TwoPass,
            BYTES_JSON_FRAMES,
            "fix 1: base64, decoded by a branchy validation pass and a second branchy pass re-reading every character",
        ),
        bytes_json(
            "json-base64-table",
            ByteArrayCodec::Base64Table,
            BYTES_JSON_FRAMES,
            "fix 2: base64, one table-driven validation scan, then 4 characters to 3 bytes per step, no branches",
        ),
        bytes_json(
            "json-base64-crate",
            ByteArrayCodec::Base64Crate,
            BYTES_JSON_CRATE_FRAMES,
            "reference: the same engine, base64 decoded by the base64 crate's STANDARD engine",
        ),
    ]
}

/// Every engine of the study: ours, then serde_json as it comes and with base64.
pub fn engines() -> Vec<Engine<Order>> {
    let mut all = bytes_json_engines();
    all.push(
        external::serde_json::engine(SerdeBytes::Seq)
            .named("serde_json-default")
            .frames(SERDE_FRAMES)
            .notes("serde's default Vec<u8>: an array of unsigned decimals (the same trap); decimals through f64; nulls written"),
    );
    all.push(
        external::serde_json::engine(SerdeBytes::Base64)
            .named("serde_json-base64")
            .frames(SERDE_FRAMES)
            .notes("byte arrays as base64 through the base64 crate; decimals through f64 (2.00 is written 2.0); nulls written"),
    );
    all
}
