//! The rust-protobuf engine's generated messages are committed: this test generates them again
//! from `engines/schemas/order.proto` with protobuf-codegen (pure Rust parser, no protoc) into
//! a temporary folder and fails when the committed file differs.
//!
//! After changing the schema or the protobuf pins, regenerate the committed file with
//!
//! ```text
//! SERPROF_REGENERATE=1 cargo test -p serprof-engines --test protobuf_gen
//! ```
//!
//! which writes `engines/src/external/protobuf_gen/order.rs` and passes.
#![cfg(feature = "protobuf")]

use std::path::{Path, PathBuf};

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The committed file the test compares.
fn committed() -> PathBuf {
    Path::new(MANIFEST_DIR).join("src/external/protobuf_gen/order.rs")
}

/// Generates the messages into `out` the way the committed file was made: lite runtime (no
/// descriptors or reflection), no `mod.rs` (the adapter declares the module).
fn generate(out: &Path) {
    let schemas = Path::new(MANIFEST_DIR).join("schemas");
    protobuf_codegen::Codegen::new()
        .pure()
        .include(&schemas)
        .input(schemas.join("order.proto"))
        .customize(
            protobuf_codegen::Customize::default()
                .lite_runtime(true)
                .gen_mod_rs(false),
        )
        .out_dir(out)
        .run()
        .unwrap_or_else(|e| panic!("protobuf-codegen: {e:#}"));
}

#[test]
fn committed_messages_are_what_protobuf_codegen_generates() {
    let out = std::env::temp_dir().join(format!("serprof-protobuf-gen-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    generate(&out);
    let fresh = std::fs::read_to_string(out.join("order.rs")).expect("generated order.rs");
    std::fs::remove_dir_all(&out).ok();

    if std::env::var_os("SERPROF_REGENERATE").is_some_and(|v| v == "1") {
        std::fs::write(committed(), &fresh).expect("write the committed file");
        return;
    }
    let current = std::fs::read_to_string(committed()).unwrap_or_default();
    assert!(
        current == fresh,
        "{} differs from what protobuf-codegen generates from engines/schemas/order.proto; \
         regenerate it with `SERPROF_REGENERATE=1 cargo test -p serprof-engines --test \
         protobuf_gen` and commit the result",
        committed().display()
    );
}

/// The conversions number the statuses by the model's declaration order: the schema must too.
#[test]
fn the_schema_numbers_statuses_in_the_models_order() {
    use protobuf::Enum;
    use serprof_engines::external::protobuf::messages::PbStatus;
    use serprof_engines::model::OrderStatus;
    for status in OrderStatus::ALL {
        let pb = PbStatus::from_i32(status as i32).expect("a PbStatus of that number");
        assert_eq!(format!("{pb:?}"), status.name());
    }
}
