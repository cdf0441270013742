//! The Rust the schema engines compile is generated from `engines/schemas/` and committed, so a
//! build needs neither compiler. This test generates it again into a temporary folder and fails
//! when the committed files differ. It needs Debian's `capnp` 0.9.2 (package capnproto; the
//! code generator is the capnpc crate, a dev-dependency) and `flatc` 2.0.8 (package
//! flatbuffers-compiler); without them it says why and passes, except when `CI` is `true`.
//!
//! `scripts/regenerate-schemas` runs this test with `SERPROF_REGENERATE_SCHEMAS=1`, which
//! writes into the committed paths instead.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that rewrites the committed files.
const SCRIPT: &str = "scripts/regenerate-schemas";
/// Set by the script: generate into the committed paths.
const REGENERATE: &str = "SERPROF_REGENERATE_SCHEMAS";

/// Each generator's tool and the version line it must print to `--version` (another version
/// writes other code).
const TOOLS: [(&str, &str); 2] = [
    ("capnp", "Cap'n Proto version 0.9.2"),
    ("flatc", "flatc version 2.0.8"),
];

/// The Cap'n Proto schemas of each module that holds generated code (the module the generated
/// code names itself by, under `engines/src/external/`), where capnp writes each one's
/// `NAME_capnp.rs`.
const CAPNP: [(&str, &[&str]); 2] = [
    ("capnp", &["order.capnp"]),
    (
        "capnp_rsb",
        &[
            "rsb_log.capnp",
            "rsb_mesh.capnp",
            "rsb_minecraft.capnp",
            "rsb_mk48.capnp",
        ],
    ),
];

/// The FlatBuffers schemas under `engines/schemas/` and the folder under
/// `engines/src/external/` where flatc writes each one's `NAME_generated.rs`.
const FLATBUFFERS: [(&str, &str); 5] = [
    ("order.fbs", "flatbuffers"),
    ("rsb_log.fbs", "flatbuffers_rsb"),
    ("rsb_mesh.fbs", "flatbuffers_rsb"),
    ("rsb_mk48.fbs", "flatbuffers_rsb"),
    ("rsb_minecraft.fbs", "flatbuffers_rsb"),
];

/// Every committed generated file, under `engines/src/external/`.
fn generated_files() -> Vec<String> {
    let capnp = CAPNP.iter().flat_map(|(module, schemas)| {
        schemas.iter().map(move |schema| {
            let stem = schema.trim_end_matches(".capnp");
            format!("{module}/{stem}_capnp.rs")
        })
    });
    let flatbuffers = FLATBUFFERS.iter().map(|(schema, folder)| {
        let stem = schema.trim_end_matches(".fbs");
        format!("{folder}/{stem}_generated.rs")
    });
    capnp.chain(flatbuffers).collect()
}

fn engines() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes every file of [`generated_files`] under `external`.
fn generate(external: &Path) -> Result<(), String> {
    let schemas = engines().join("schemas");
    for (module, files) in CAPNP {
        let mut command = capnpc::CompilerCommand::new();
        command
            .src_prefix(&schemas)
            .output_path(external.join(module))
            .default_parent_module(vec!["external".into(), module.into()]);
        for file in files {
            command.file(schemas.join(file));
        }
        command.run().map_err(|e| format!("capnp: {e}"))?;
    }
    for (schema, folder) in FLATBUFFERS {
        let status = Command::new("flatc")
            .arg("--rust")
            .arg("-o")
            .arg(external.join(folder))
            .arg(schemas.join(schema))
            .status()
            .map_err(|e| format!("flatc {schema}: {e}"))?;
        if !status.success() {
            return Err(format!("flatc {schema}: {status}"));
        }
    }
    Ok(())
}

/// The first tool that is missing or of another version, as a reason to skip.
fn missing_tool() -> Option<String> {
    TOOLS.iter().find_map(|(tool, version)| {
        let printed = Command::new(tool)
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        match printed {
            Some(v) if v == *version => None,
            Some(v) => Some(format!("{tool} prints {v:?}, not {version:?}")),
            None => Some(format!("{tool} is not installed")),
        }
    })
}

/// A test that cannot run here: it says why and passes, unless `CI` is `true`.
fn skip(why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{why}, and CI is true: this test must run (scripts/test installs the tools)"
    );
    eprintln!("skipped: {why} (scripts/test installs capnproto and flatbuffers-compiler)");
}

#[test]
fn committed_generated_code_is_current() {
    if let Some(why) = missing_tool() {
        skip(&why);
        return;
    }
    let committed = engines().join("src/external");
    if std::env::var_os(REGENERATE).is_some() {
        generate(&committed).unwrap();
        return;
    }
    let fresh = std::env::temp_dir().join(format!("serprof-generated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    let generated = generate(&fresh);
    let compared: Vec<_> = generated_files()
        .into_iter()
        .map(|file| {
            let read = |root: &Path| std::fs::read(root.join(&file)).ok();
            let (committed, fresh) = (read(&committed), read(&fresh));
            (file, committed, fresh)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&fresh);
    generated.unwrap();
    for (file, committed, fresh) in compared {
        assert!(fresh.is_some(), "the generators wrote no {file}");
        assert!(
            committed == fresh,
            "engines/src/external/{file} differs from what engines/schemas/ generates: run {SCRIPT}"
        );
    }
}
