//! The rust-protobuf engines' generated messages are committed: this test generates them again
//! from the schemas in `engines/schemas/` ([`SCHEMAS`]: the Order graph's `order.proto` and
//! the rsb datasets' `rsb_*.proto`) with protobuf-codegen (pure Rust parser, no protoc) into a
//! temporary folder and fails when a committed file differs.
//!
//! After changing a schema or the protobuf pins, regenerate the committed files with
//!
//! ```text
//! SERPROF_REGENERATE=1 cargo test -p serprof-engines --test protobuf_gen
//! ```
//!
//! which writes `engines/src/external/protobuf_gen/NAME.rs` for each schema and passes.
#![cfg(feature = "protobuf")]

use std::path::{Path, PathBuf};

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The schemas whose generated code is committed, by name: `schemas/NAME.proto` generates
/// `src/external/protobuf_gen/NAME.rs`.
const SCHEMAS: [&str; 5] = ["order", "rsb_log", "rsb_mesh", "rsb_minecraft", "rsb_mk48"];

/// The committed file of a schema.
fn committed(name: &str) -> PathBuf {
    Path::new(MANIFEST_DIR).join(format!("src/external/protobuf_gen/{name}.rs"))
}

/// Generates the messages of every schema into `out` the way the committed files were made:
/// lite runtime (no descriptors or reflection), no `mod.rs` (the adapters declare the modules).
fn generate(out: &Path) {
    let schemas = Path::new(MANIFEST_DIR).join("schemas");
    protobuf_codegen::Codegen::new()
        .pure()
        .include(&schemas)
        .inputs(SCHEMAS.map(|name| schemas.join(format!("{name}.proto"))))
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
    let fresh = SCHEMAS.map(|name| {
        std::fs::read_to_string(out.join(format!("{name}.rs")))
            .unwrap_or_else(|e| panic!("generated {name}.rs: {e}"))
    });
    std::fs::remove_dir_all(&out).ok();

    let regenerate = std::env::var_os("SERPROF_REGENERATE").is_some_and(|v| v == "1");
    let mut differ = Vec::new();
    for (name, fresh) in SCHEMAS.iter().zip(&fresh) {
        if regenerate {
            std::fs::write(committed(name), fresh).expect("write the committed file");
        } else if std::fs::read_to_string(committed(name)).unwrap_or_default() != *fresh {
            differ.push(format!(
                "{} differs from what protobuf-codegen generates from engines/schemas/{name}.proto",
                committed(name).display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{}; regenerate with `SERPROF_REGENERATE=1 cargo test -p serprof-engines --test \
         protobuf_gen` and commit the result",
        differ.join("; ")
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
