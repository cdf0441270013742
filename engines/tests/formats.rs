//! The `formats` study's engines: every configuration round-trips all 200 Orders to equal values,
//! appends to the caller's buffer, is pinned to the version it reports, and rejects truncated
//! payloads with an error instead of a panic.
//!
//! `cargo test -p serprof-engines --test formats -- --nocapture` also prints the payload table.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use serprof_api::Operation;
use serprof_engines::dataset::orders;
use serprof_engines::model::Order;
use serprof_engines::studies::{formats, Config};
use serprof_engines::{Codec, Engine};

/// JSON bytes per Order under the Jackson mapping, nulls written, base64: 9,814.14, where Ingo
/// Kegel's Java and Kotlin article (ej-technologies blog, 2026-08-31) gives 9,814 for Jackson.
const JACKSON_MEAN_BYTES: f64 = 1_962_828.0 / 200.0;

/// Every round-trip configuration of the study with the engine that makes its codec (in the
/// same order).
fn configurations() -> Vec<(Config, Engine<Order>)> {
    let study = formats::study();
    let configs: Vec<Config> = study
        .configs()
        .iter()
        .filter(|c| c.info.operation == Operation::RoundTrip)
        .cloned()
        .collect();
    assert_eq!(configs.len(), formats::engines().len());
    configs.into_iter().zip(formats::engines()).collect()
}

/// Every configuration, whatever its operation (serialize, deserialize, an in-place access),
/// passes the verification that runs before it is timed, on all 200 Orders; and each engine
/// has its serialize and deserialize rows.
#[test]
fn every_operation_verifies_on_every_order() {
    let study = formats::study();
    let names: Vec<String> = study
        .configs()
        .iter()
        .map(|c| c.info.config.clone())
        .collect();
    for engine in formats::engines() {
        for op in ["serialize", "deserialize"] {
            let name = format!("{}.{op}", engine.name());
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
    }
    #[cfg(feature = "rkyv")]
    assert!(
        names.contains(&"rkyv.access".to_string())
            && names.contains(&"rkyv.validated-access".to_string())
    );
    let mut failed = Vec::new();
    for config in study
        .configs()
        .iter()
        .filter(|c| c.info.operation != Operation::RoundTrip)
    {
        let verified = config
            .workload()
            .map_err(|e| e.to_string())
            .and_then(|mut w| w.verify().map_err(|e| e.to_string()));
        if let Err(e) = verified {
            failed.push(format!("{}: {e}", config.info.name()));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

fn build(engine: &Engine<Order>) -> Result<Box<dyn Codec<Order>>, String> {
    engine.build().map_err(|e| format!("make: {e}"))
}

/// What one configuration did with the 200 Orders.
struct RoundTrip {
    mean_bytes: f64,
    /// How many decoded Orders still share their references.
    shared: usize,
}

fn round_trip_all(engine: &Engine<Order>) -> Result<RoundTrip, String> {
    let mut codec = build(engine)?;
    let mut buf = Vec::new();
    let mut total = 0usize;
    let mut shared = 0usize;
    for (i, order) in orders().iter().enumerate() {
        buf.clear();
        codec
            .encode(order, &mut buf)
            .map_err(|e| format!("order {i}: {e}"))?;
        total += buf.len();
        let back = codec
            .decode(&mut buf)
            .map_err(|e| format!("order {i}: {e}"))?;
        if let Some(diff) = order.first_difference(&back) {
            return Err(format!("order {i}: {diff}"));
        }
        shared += usize::from(back.shares_references());
    }
    Ok(RoundTrip {
        mean_bytes: total as f64 / orders().len() as f64,
        shared,
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic)".into())
}

#[test]
fn every_configuration_round_trips_every_order() {
    assert!(orders().iter().all(Order::shares_references));
    let mut failures = Vec::new();
    let mut means = Vec::new();
    println!(
        "{:<18} {:>12} {:>14}",
        "config", "mean bytes", "shared refs"
    );
    for (config, engine) in configurations() {
        let name = config.info.name();
        match panic::catch_unwind(panic::AssertUnwindSafe(|| round_trip_all(&engine))) {
            Ok(Ok(r)) => {
                println!(
                    "{:<18} {:>12.3} {:>10}/{}",
                    config.info.config,
                    r.mean_bytes,
                    r.shared,
                    orders().len()
                );
                means.push((config.info.config, r.mean_bytes));
            }
            Ok(Err(e)) => failures.push(format!("{name}: {e}")),
            Err(p) => failures.push(format!("{name}: panicked: {}", panic_message(&*p))),
        }
    }
    assert!(failures.is_empty(), "failed:\n{}", failures.join("\n"));

    // serde_json and sonic-rs write the Jackson mapping but for decimals: `2.00` is `2.0`,
    // `218.60` is `218.6` (serde has no decimal), so they come out a little smaller.
    for (config, mean) in means {
        if config == "serde_json" || config == "sonic-rs" {
            let off = (mean - JACKSON_MEAN_BYTES) / JACKSON_MEAN_BYTES;
            assert!(
                off.abs() < 0.02,
                "{config}: {mean} B per Order is {:.2}% off Jackson's {JACKSON_MEAN_BYTES}",
                off * 100.0
            );
        }
    }
}

/// Only fory and rkyv keep shared references across a round trip; an engine that starts keeping
/// them (or one of those that stops) changes what its configuration's notes must say.
#[test]
fn shared_references_survive_only_where_the_notes_say_so() {
    let order = &orders()[0];
    for (config, engine) in configurations() {
        let Ok(mut codec) = build(&engine) else {
            continue; // reported by the round-trip test
        };
        let mut buf = Vec::new();
        let shares = codec
            .encode(order, &mut buf)
            .and_then(|()| codec.decode(&mut buf))
            .map(|back| back.shares_references());
        let Ok(shares) = shares else { continue };
        let notes_say_kept = config.info.notes.contains("shared references kept");
        assert_eq!(
            shares,
            notes_say_kept,
            "{}: shares references: {shares}; notes: {}",
            config.info.name(),
            config.info.notes
        );
    }
}

/// One buffer policy for every engine: encode appends to the caller's `Vec` and never swaps it
/// for a fresh one, so a buffer with room is reused without reallocation.
#[test]
fn encode_appends_to_the_callers_buffer() {
    let order = &orders()[0];
    for (config, engine) in configurations() {
        let name = config.info.name();
        let Ok(mut codec) = build(&engine) else {
            continue;
        };
        let mut alone = Vec::new();
        codec.encode(order, &mut alone).unwrap();

        let mut buf = b"prefix".to_vec();
        codec.encode(order, &mut buf).unwrap();
        assert_eq!(&buf[..6], b"prefix", "{name} overwrote the buffer");
        assert_eq!(&buf[6..], &alone[..], "{name} wrote another payload");

        buf.clear();
        buf.reserve(alone.len() * 2);
        let before = buf.as_ptr();
        codec.encode(order, &mut buf).unwrap();
        assert_eq!(buf.as_ptr(), before, "{name} replaced the caller's buffer");
    }
}

/// Every configuration reports the version of its library that the workspace's Cargo.lock
/// resolved (the one this test binary was built with), never a constant of its own.
#[test]
fn versions_are_the_lock_files() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    // `name = "X"` followed by `version = "Y"`, every package of the lock file.
    let mut locked: Vec<(String, String)> = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix("name = ") {
            let version = lines.next().and_then(|l| l.strip_prefix("version = "));
            locked.push((
                name.trim_matches('"').to_string(),
                version
                    .expect("version after name")
                    .trim_matches('"')
                    .to_string(),
            ));
        }
    }
    let mut checked = 0;
    for (config, _) in configurations() {
        let info = &config.info;
        if info.engine_version == "serprof" {
            // Our own engine (`bytes_json`), not a crate.
            continue;
        }
        // bincode 1 is the `bincode` crate of major version 1, renamed. A crate may be in the
        // lock file twice (prost 0.12 for pprof-rs): the engine's is the semver-compatible one.
        let krate = if info.engine == "bincode1" {
            "bincode"
        } else {
            &info.engine
        };
        let parts: Vec<&str> = info.engine_version.split('.').collect();
        let major = if parts[0] == "0" {
            format!("0.{}.", parts.get(1).copied().unwrap_or_default())
        } else {
            format!("{}.", parts[0])
        };
        let versions: Vec<&str> = locked
            .iter()
            .filter(|(n, v)| n == krate && v.starts_with(&major))
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(
            versions,
            [info.engine_version.as_str()],
            "{}: its version against Cargo.lock's {krate}",
            info.name()
        );
        checked += 1;
    }
    assert!(checked > 20, "only {checked} configurations of libraries");
}

/// No crate a user's crate pulls in (the API crate, the engines, the harness) requires an exact
/// version (`=X`) in its `[dependencies]`, except the runtimes that must match committed
/// generated code, each named with its reason on the line above.
#[test]
fn no_exact_requirements_beyond_the_named_exceptions() {
    let exceptions = ["protobuf"];
    for krate in ["api", "engines", "harness"] {
        let path = format!("{}/../{krate}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
        let manifest = std::fs::read_to_string(&path).expect("a manifest");
        let mut in_deps = false;
        let mut previous = "";
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
            } else if in_deps && line.contains("\"=") {
                let name = line.split([' ', '=']).next().unwrap_or_default();
                assert!(
                    exceptions.contains(&name),
                    "{path}: {name} requires an exact version: {line}"
                );
                assert!(
                    previous.starts_with('#') && previous.contains("generated"),
                    "{path}: the exact requirement of {name} has no reason above it"
                );
            }
            previous = line;
        }
    }
}

thread_local! {
    /// Set while this thread decodes damaged payloads: the panic hook then records where a panic
    /// came from instead of printing it.
    static PROBING: Cell<bool> = const { Cell::new(false) };
    static PANIC_AT: Cell<Option<(&'static str, u32)>> = const { Cell::new(None) };
}

fn install_probe_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if PROBING.with(Cell::get) {
                let at = info.location().map(|l| {
                    // Locations borrow the binary's static strings.
                    let file: &'static str = Box::leak(l.file().to_string().into_boxed_str());
                    (file, l.line())
                });
                PANIC_AT.with(|p| p.set(at));
            } else {
                previous(info);
            }
        }));
    });
}

/// Whether a panic location is in serprof's own engine code (not a registry crate or std).
fn is_ours(file: &str) -> bool {
    !file.contains(".cargo/registry") && !file.contains("/rustc/") && file.contains("engines/src")
}

#[test]
fn truncated_payloads_are_errors_not_panics() {
    install_probe_hook();
    let mut ours = Vec::new();
    let mut accepted = Vec::new();
    for (config, engine) in configurations() {
        let name = config.info.name();
        let Ok(mut codec) = build(&engine) else {
            continue;
        };
        for index in [0, 1, 7] {
            let mut payload = Vec::new();
            codec.encode(&orders()[index], &mut payload).unwrap();
            let len = payload.len();
            let cuts = [0, 1, 2, len / 3, len / 2, len - 2, len - 1];
            for cut in cuts {
                // A fresh copy each time: simd-json rewrites what it parses.
                let mut damaged = payload[..cut].to_vec();
                PROBING.with(|p| p.set(true));
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| codec.decode(&mut damaged)));
                PROBING.with(|p| p.set(false));
                match outcome {
                    Ok(Err(_)) => {}
                    Ok(Ok(_)) => {
                        accepted.push(format!("{name}: order {index} cut at {cut}/{len} decoded"))
                    }
                    Err(p) => {
                        let at = PANIC_AT.with(Cell::take);
                        let what = format!(
                            "{name}: order {index} cut at {cut}/{len}: panic {:?} at {}",
                            panic_message(&*p),
                            at.map_or("?".into(), |(f, l)| format!("{f}:{l}"))
                        );
                        if at.is_some_and(|(f, _)| is_ours(f)) {
                            ours.push(what);
                        } else {
                            println!("third-party panic (reported, not a failure here): {what}");
                        }
                    }
                }
                // A panic may leave an engine's state broken: start again from a fresh one.
                if let Ok(fresh) = build(&engine) {
                    codec = fresh;
                }
            }
        }
    }
    assert!(ours.is_empty(), "our code panicked:\n{}", ours.join("\n"));
    assert!(
        accepted.is_empty(),
        "truncated payloads accepted:\n{}",
        accepted.join("\n")
    );
}
