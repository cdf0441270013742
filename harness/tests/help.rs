//! The command-line grammar, from every subcommand's `--help`: results as JSON where a command
//! prints results, `--out` always a folder, `-o` always a file, frames named by `--match REGEX`
//! alone, constant defaults as clap's `[default: ...]`, and one line (exit 2) for a call without
//! a command or with a way of naming frames other than `--match`.

use std::process::Command;

mod common;
use common::{commands, entries, help};

fn serprof() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serprof"))
}

const COMMANDS: [&str; 15] = [
    "list",
    "run",
    "before-after",
    "hotspots",
    "explain",
    "tree",
    "flame",
    "dataset",
    "encode",
    "decode",
    "report",
    "compare",
    "check",
    "ab",
    "doctor",
];

/// The commands that print results, each of which takes `--json`.
const PRINT_RESULTS: [&str; 11] = [
    "list",
    "run",
    "hotspots",
    "explain",
    "tree",
    "compare",
    "ab",
    "check",
    "before-after",
    "doctor",
    "dataset",
];

/// A default written in an option's prose as a number ("(default 1)", "Default: 6") when the
/// description names no other option it depends on (as "--quick 300" does): a constant
/// default belongs in clap's `[default: ...]`. The description, if so.
fn prose_constant_default(flags: &str, description: &str) -> Option<String> {
    let prose = regex::Regex::new(r"(?i)(?:^|[^\[a-z])default:?\s+[0-9]").unwrap();
    let flag = regex::Regex::new(r"--[a-z][a-z-]*").unwrap();
    if !prose.is_match(description) {
        return None;
    }
    let own: Vec<&str> = flag.find_iter(flags).map(|m| m.as_str()).collect();
    let depends = flag
        .find_iter(description)
        .any(|m| !own.contains(&m.as_str()));
    (!depends).then(|| description.to_string())
}

#[test]
fn every_command_has_help_and_the_help_follows_the_grammar() {
    // Every command of `serprof --help` is checked here, and no other.
    let mut sorted = commands();
    sorted.sort();
    let mut ours = COMMANDS.to_vec();
    ours.sort();
    assert_eq!(sorted, ours, "the commands of `serprof --help`");
    for command in COMMANDS {
        let text = help(command);
        let options: Vec<&str> = text
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .collect();
        for line in &options {
            if line.contains("--out ") || line.contains("--out <") {
                assert!(
                    line.contains("--out <DIR>"),
                    "{command}: --out names a folder: {line}"
                );
            }
            if line.starts_with("-o,") {
                assert!(
                    line.contains("<FILE>"),
                    "{command}: -o names a file: {line}"
                );
            }
        }
        let has_json = options.iter().any(|l| l.starts_with("--json"));
        if PRINT_RESULTS.contains(&command) {
            assert!(has_json, "{command} prints results but takes no --json");
        }
        for (flags, description) in entries(&text) {
            // Frames are named one way: `--match REGEX`; what to do with them are flags.
            for other in ["--focus", "--from <", "--backtraces <"] {
                assert!(
                    !flags.contains(other),
                    "{command}: frames are named with --match REGEX, not {other}: {flags}"
                );
            }
            if flags.contains("<REGEX>") {
                assert!(
                    flags.contains("--match <REGEX>"),
                    "{command}: a REGEX is taken by --match only: {flags}"
                );
            }
            if let Some(d) = prose_constant_default(&flags, &description) {
                panic!("{command} {flags}: a constant default belongs in [default: ...]: {d}");
            }
        }
    }
    for command in ["hotspots", "tree", "flame"] {
        let text = help(command);
        assert!(
            entries(&text).iter().any(|(f, _)| f == "--match <REGEX>"),
            "{command} names frames with --match REGEX"
        );
    }
    let hotspots = entries(&help("hotspots"));
    assert!(
        hotspots.iter().any(|(f, _)| f == "--backtraces"),
        "hotspots --backtraces is a flag: {hotspots:?}"
    );
}

#[test]
fn the_prose_default_check_catches_a_constant() {
    let caught = |flags, d| prose_constant_default(flags, d).is_some();
    assert!(caught(
        "--max-regression <PCT>",
        "Largest growth that still passes, in percent (default 1)"
    ));
    assert!(caught(
        "--processes <P>",
        "Timing children (Default: 6: [min, max])"
    ));
    assert!(caught(
        "--processes <P>",
        "Children (default 6; see --processes)"
    ));
    assert!(!caught("--top <TOP>", "Rows to show [default: 20]"));
    assert!(!caught(
        "--cpu-samples <N>",
        "CPU samples per configuration (default 1,000; --quick 300)"
    ));
    assert!(!caught(
        "--out <DIR>",
        "Where to write them (default: AFTER's run folder)"
    ));
    let listed = entries(
        "Usage: x\n\nArguments:\n  <PATH>  A folder\n\nOptions:\n      --top <N>\n          Rows\n          (default 3)\n  -h, --help  Print help\n",
    );
    assert_eq!(
        listed,
        [
            ("<PATH>".to_string(), "A folder".to_string()),
            ("--top <N>".to_string(), "Rows (default 3)".to_string()),
            ("-h, --help".to_string(), "Print help".to_string()),
        ]
    );
}

#[test]
fn frames_named_other_than_by_match_are_one_line_pointing_at_it() {
    for args in [
        &["tree", "x", "--focus", "parse"][..],
        &["tree", "x", "--focus"],
        &["flame", "x", "--from", "parse"],
        &["hotspots", "x", "--backtraces", "parse"],
        &["hotspots", "--backtraces", "parse", "x"],
        &["hotspots", "x", "--backtraces"],
        &["hotspots", "x", "--match", "parse", "--backtraces", "parse"],
    ] {
        let o = serprof().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("serprof: error: ") && err.contains("--match REGEX"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn no_command_is_one_line_and_exit_2() {
    let o = serprof().output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("serprof: error: a command is needed"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn a_misspelt_flag_keeps_clap_s_tip_on_its_one_line() {
    let o = serprof()
        .args(["run", "--procesess", "3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'--procesess'")
            && err.contains("tip: a similar argument exists: '--processes'"),
        "{err}"
    );
}
