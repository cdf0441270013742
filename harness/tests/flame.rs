//! `serprof flame`: a profile drawn again, whole or started at the measured loop; bad input is
//! a one-line error with exit 2.

mod common;

use assert_cmd::Command;

fn serprof() -> Command {
    let mut c = Command::cargo_bin("serprof").unwrap();
    c.env_remove("RUST_LOG");
    c
}

#[test]
fn flame_graphs_start_at_the_measured_loop_on_request() {
    let out = tempfile::tempdir().unwrap();
    let run = common::run_once(out.path(), &["--no-alloc"], &["formats/postcard"]);
    let dir = run.join("formats/postcard");
    let svg = |args: &[&str]| {
        let o = serprof()
            .arg("flame")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let whole = svg(&[]);
    let cut = svg(&["--from-loop"]);
    for graph in [&whole, &cut] {
        assert!(graph.starts_with("<?xml"), "an SVG");
        assert!(graph.contains("roundtrip_loop"), "the loop is drawn");
    }
    assert!(
        whole.contains("lang_start"),
        "the whole stack starts at the runtime"
    );
    assert!(
        !cut.contains("lang_start"),
        "cut at the loop: no runtime frames"
    );
    let file = out.path().join("cut.svg");
    serprof()
        .arg("flame")
        .arg(&dir)
        .args(["--match", "roundtrip_loop", "-o"])
        .arg(&file)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("roundtrip_loop"));
    for (args, needle) in [
        (vec!["--match", "("], "invalid --match regex"),
        (vec!["--instructions"], "instructions.folded"),
    ] {
        let o = serprof()
            .arg("flame")
            .arg(&dir)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(needle) && err.lines().count() == 1, "{err}");
    }
    let o = serprof()
        .args(["flame", "/no/such/folder"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
