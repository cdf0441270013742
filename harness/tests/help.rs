//! The command-line grammar, from every subcommand's `--help`: results as JSON where a command
//! prints results, `--out` always a folder, `-o` always a file, and one line (exit 2) for a
//! call without a command.

use std::process::Command;

fn serprof() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serprof"))
}

const COMMANDS: [&str; 14] = [
    "list",
    "run",
    "before-after",
    "hotspots",
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
const PRINT_RESULTS: [&str; 10] = [
    "list",
    "run",
    "hotspots",
    "tree",
    "compare",
    "ab",
    "check",
    "before-after",
    "doctor",
    "dataset",
];

fn help(command: &str) -> String {
    let o = serprof().args([command, "--help"]).output().unwrap();
    assert!(o.status.success(), "{command} --help failed");
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn every_command_has_help_and_the_help_follows_the_grammar() {
    // Every command of `serprof --help` is checked here, and no other.
    let top = String::from_utf8(serprof().arg("--help").output().unwrap().stdout).unwrap();
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    let mut sorted = listed.clone();
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
