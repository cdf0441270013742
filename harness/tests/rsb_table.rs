//! `scripts/rsb-table.py`'s comparison with rsb's published ratios, on a run folder and an rsb
//! README made up here: which ratios it calls off, which side it says moved, the count against
//! the median crate, the versions of the side that moved, and the off row's profile read through
//! `serprof hotspots`.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::workspace;

/// One raw table of rsb's README: `(crate, serialize ns, deserialize ns)`, each of size 1000,
/// and rows whose cells are given as rsb writes them: `(crate, serialize cell, deserialize
/// cell, size cell)`.
fn rsb_section(
    dataset: &str,
    rows: &[(&str, f64, f64)],
    raw: &[(&str, &str, &str, &str)],
) -> String {
    let mut s = format!(
        "## `{dataset}`\n\n#### Serialize / deserialize speed and size\n\n\
         | Crate | Serialize | Deserialize | Borrow | Size | Zlib | Zstd | Zstd Time |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|\n"
    );
    let cells = rows
        .iter()
        .map(|(k, ser, de)| {
            let (ser, de) = (format!("{ser:.2} ns"), format!("{de:.2} ns"));
            (*k, ser, de, "1000".to_string())
        })
        .chain(
            raw.iter()
                .map(|(k, ser, de, size)| (*k, ser.to_string(), de.to_string(), size.to_string())),
        );
    for (krate, ser, de, size) in cells {
        s.push_str(&format!(
            "| [{krate} 1.0.0][{krate}] | {ser} | {de} | † | {size} | 500 | 400 | 1.0 µs |\n"
        ));
    }
    s + "\n"
}

/// A variant of a cell, as rsb's README writes it.
fn span(title: &str, ns: f64) -> String {
    format!("<span title=\"{title}\">*{ns:.2} ns\\**</span>")
}

/// The row of `label` in the zero-copy table (the first table whose header is a Read's).
fn zero_copy_row(text: &str, label: &str) -> String {
    let table = text
        .find("| Crate | Read (unvalidated)")
        .map(|at| &text[at..])
        .unwrap_or_else(|| panic!("no zero-copy table:\n{text}"));
    table
        .lines()
        .find(|l| l.starts_with(&format!("| {label} |")))
        .unwrap_or_else(|| panic!("no zero-copy row {label}:\n{text}"))
        .to_string()
}

fn result(dir: &Path, config: &str, median_ns: f64) {
    let folder = dir.join("rsb-log").join(config);
    fs::create_dir_all(&folder).unwrap();
    let r = serde_json::json!({
        "config": config,
        // c is a newer version here than in rsb (whose README says 1.0.0 for every crate).
        "engine_version": if config.starts_with("c.") { "2.0.0" } else { "1.0.0" },
        "time_ns": {"median": median_ns, "ci95": [median_ns * 0.99, median_ns * 1.01]},
        "payload_bytes": 1000.0,
        "compressed": {"zlib": 500.0, "zstd": 400.0},
    });
    fs::write(folder.join("result.json"), r.to_string()).unwrap();
}

#[test]
fn the_comparison_names_the_side_that_moved_and_the_off_rows_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // Serialize: `c` takes twice its rsb time where the others take theirs (c moved).
    // Deserialize: postcard, the reference, takes twice its rsb time (the reference moved).
    let published = [
        ("postcard", 100.0, 100.0),
        ("a", 200.0, 100.0),
        ("b", 300.0, 100.0),
        ("c", 400.0, 100.0),
    ];
    let here = [
        ("postcard", 100.0, 200.0),
        ("a", 200.0, 100.0),
        ("b", 300.0, 100.0),
        ("c", 800.0, 100.0),
    ];
    for (engine, ser, de) in here {
        result(&run, &format!("{engine}.serialize"), ser);
        result(&run, &format!("{engine}.deserialize"), de);
    }
    // The off serialize row's CPU profile: 90% of its samples in one function.
    fs::write(
        run.join("rsb-log/c.serialize/cpu.folded"),
        "c.serialize;main;c::write_slowly 9\nc.serialize;main 1\n",
    )
    .unwrap();
    // Cells of several variants: each engine is compared with the variant it measures
    // (bilrost: encode, and bilrost-prepend its prepend; capnp-packed: packed), or with the
    // cell's unlabelled time (capnp: unpacked, not packed); a dagger is no ratio.
    for (config, ns) in [
        ("bilrost.serialize", 200.0),
        ("bilrost.deserialize", 100.0),
        ("bilrost-prepend.serialize", 300.0),
        ("capnp.serialize", 500.0),
        ("capnp.deserialize", 100.0),
        ("capnp-packed.serialize", 900.0),
        ("capnp-packed.deserialize", 100.0),
        ("rkyv.serialize", 100.0),
        ("rkyv.deserialize", 300.0),
        ("rkyv.unvalidated-deserialize", 200.0),
        ("capnp.validated-access", 400.0),
        ("capnp-packed.validated-access", 1600.0),
        ("rkyv.update", 60.0),
        // prost's message configurations are rsb's encode and decode; its serialize and
        // deserialize rsb's populate + encode and decode + convert (deserialize times twice
        // rsb's, as the reference's).
        ("prost.serialize", 400.0),
        ("prost.deserialize", 800.0),
        ("prost.encode-message", 200.0),
        ("prost.decode-message", 600.0),
    ] {
        result(&run, config, ns);
    }
    let encode_prepend = format!("{} {}", span("encode", 200.0), span("prepend", 150.0));
    let unpacked_packed = format!("500.00 ns {}", span("packed", 900.0));
    let capnp_sizes = "1000 <span title=\"packed\">*700\\**</span>".to_string();
    let two_deserializes = format!(
        "{} {}",
        span("unvalidated", 100.0),
        span("validated upfront with error", 300.0)
    );
    let prost_encodes = format!(
        "{} {}",
        span("encode", 200.0),
        span("populate + encode", 400.0)
    );
    let prost_decodes = format!(
        "{} {}",
        span("decode", 300.0),
        span("decode + convert", 400.0)
    );
    let readme = tmp.path().join("README.md");
    let other = [("postcard", 1.0, 1.0)];
    let raw = [
        ("bilrost", encode_prepend.as_str(), "100.00 ns", "1000"),
        ("capnp", unpacked_packed.as_str(), "†", capnp_sizes.as_str()),
        ("rkyv", "100.00 ns", two_deserializes.as_str(), "1000"),
        (
            "prost",
            prost_encodes.as_str(),
            prost_decodes.as_str(),
            "1000",
        ),
    ];
    // rsb's zero-copy table: capnp's Read, packed and validated on demand; rkyv's Update.
    let capnp_reads = format!(
        "{} {}",
        span("packed", 800.0),
        span("validated on-demand with error", 400.0)
    );
    let zero_copy = format!(
        "#### Zero-copy deserialization speed\n\n| Crate | Access | Read | Update |\n\
         |---|--:|--:|--:|\n| [capnp 1.0.0][capnp] | 1.00 ns | {capnp_reads} | ‡ |\n\
         | [rkyv 1.0.0][rkyv] | 1.00 ns | 2.00 ns | {} |\n\n",
        span("unvalidated", 30.0)
    );
    fs::write(
        &readme,
        rsb_section("log", &published, &raw)
            + &zero_copy
            + &rsb_section("mesh", &other, &[])
            + &rsb_section("minecraft_savedata", &other, &[])
            + &rsb_section("mk48", &other, &[]),
    )
    .unwrap();

    let out = Command::new("python3")
        .arg(workspace().join("scripts/rsb-table.py"))
        .arg(&run)
        .arg("--rsb")
        .arg(&readme)
        .args(["--serprof", env!("CARGO_BIN_EXE_serprof")])
        .output()
        .expect("python3 runs (scripts/test installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Serialize: a, b, bilrost, capnp, capnp-packed, rkyv and both prost rows within, c and
    // bilrost-prepend (3.00 here, 1.50 in rsb) off; deserialize: a, b, c, bilrost and rkyv's
    // validated one off, by the reference, rkyv's unvalidated one (its own configuration) and
    // both prost rows (twice rsb's, as the reference) within; capnp's daggers are no ratio.
    // Against the median crate, whose deserialize moved by 1, the prost rows' deserialize
    // moved by 2.
    assert!(
        text.contains("11 of 18 ratios within 15% of rsb's"),
        "{text}"
    );
    assert!(
        text.contains("against the median crate instead of postcard, 13 of 18."),
        "{text}"
    );
    // The comparison's rows come after the zero-copy table's.
    let row = |label: &str| {
        text.lines()
            .rfind(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no row {label}:\n{text}"))
            .to_string()
    };
    assert!(row("bilrost").contains("| 2.00 | 2.00 | +0% |"), "{text}");
    assert!(
        row("bilrost (`bilrost-prepend`)").contains("| 3.00 | 1.50 | +100% ** |"),
        "{text}"
    );
    assert!(
        row("capnp").contains("| 5.00 | 5.00 | +0% | 0.50 | † |"),
        "{text}"
    );
    assert!(
        row("capnp (`capnp-packed`)").contains("| 9.00 | 9.00 | +0% | 0.50 | † |  | 1000 | 700 |"),
        "each row's size beside rsb's size of its variant:\n{text}"
    );
    assert!(row("capnp").contains("| 1000 | 1000 |"), "{text}");
    // The zero-copy table: capnp's validated read beside rsb's validated one, capnp-packed's
    // beside rsb's packed one (neither has an update: rsb's dagger, no ratio); rkyv's update
    // beside rsb's.
    let read = |label: &str| zero_copy_row(&text, label);
    assert!(
        read("capnp").ends_with("| 400 ns | 1.00 | † |  |  |"),
        "{text}"
    );
    assert!(
        read("capnp-packed").ends_with("| 800 ns | 2.00 | † |  |  |"),
        "{text}"
    );
    assert!(read("rkyv").ends_with("| 30 ns | 2.00 |"), "{text}");
    assert!(
        row("rkyv").contains("| 1.00 | 1.00 | +0% | 1.50 | 3.00 | -50% ** |"),
        "{text}"
    );
    assert!(
        row("rkyv (`rkyv.unvalidated-deserialize`)").contains("|  |  |  | 1.00 | 1.00 | +0% |"),
        "{text}"
    );
    // Each prost row beside the variants it measures: a row compared with the other variant
    // would be off by half or a third.
    assert!(
        row("prost").contains("| 4.00 | 4.00 | +0% | 4.00 | 4.00 | +0% |"),
        "{text}"
    );
    assert!(
        row("prost (`prost.encode-message`, `prost.decode-message`)")
            .contains("| 2.00 | 2.00 | +0% | 3.00 | 3.00 | +0% |"),
        "{text}"
    );
    // rsb's layout holds each second configuration in its operation's cell.
    let table_row = text
        .lines()
        .find(|l| l.starts_with("| prost 1.0.0 |"))
        .unwrap_or_else(|| panic!("no table row of prost:\n{text}"));
    assert!(
        table_row.contains("; encode 200 ns [198 ns, 202 ns]")
            && table_row.contains("; decode 600 ns [594 ns, 606 ns]"),
        "{table_row}"
    );
    let line = |config: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("- `{config}`")))
            .unwrap_or_else(|| panic!("no off line for {config}:\n{text}"))
            .to_string()
    };
    let c_ser = line("c.serialize");
    assert!(
        c_ser.contains("+100%") && c_ser.contains("(c moved; c 2.0.0 here, 1.0.0 in rsb)"),
        "{c_ser}"
    );
    assert!(
        c_ser.contains("`c::write_slowly` 90%"),
        "the off row's profile: {c_ser}"
    );
    let a_de = line("a.deserialize");
    assert!(
        a_de.contains("-50%") && a_de.contains("(postcard moved)") && !a_de.contains(" here, "),
        "{a_de}"
    );
    assert!(
        a_de.contains("(no profile: "),
        "a row without a profile says so: {a_de}"
    );
    assert!(
        !text.contains("- `a.serialize`"),
        "a row within 15% is listed as off:\n{text}"
    );
}
