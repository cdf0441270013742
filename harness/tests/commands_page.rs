//! docs/guide/commands.md matches the command line: every command of `serprof --help` has a
//! section (a `###` heading naming `serprof COMMAND`), every long flag of a command's `--help`
//! is written on its sections, the flags every command takes (`serprof --help`'s own) before
//! the first section, and every `--flag` written on a command's section or before the first
//! exists on the command line, except another program's: in a code span that starts with its
//! name (`cargo build --release`), or one of [`OTHER_PROGRAMS`].

mod common;
use common::{commands, entries, help, workspace};

/// Flags of other programs that the command sections name in code spans of their own
/// (callgrind's options under `run --instructions`): none may be a flag of serprof's.
const OTHER_PROGRAMS: [&str; 4] = [
    "--toggle-collect",
    "--dump-after",
    "--cache-sim",
    "--branch-sim",
];

/// The long flags (`--name`) written in `text`: `--` after a character that cannot be part of a
/// flag, followed by a lowercase letter, then letters, digits and dashes.
fn flags_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let part = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    let mut i = 0;
    while let Some(at) = text[i..].find("--").map(|k| k + i) {
        let starts = at == 0 || !(part(bytes[at - 1]) || bytes[at - 1].is_ascii_alphabetic());
        let mut end = at + 2;
        if starts && bytes.get(end).is_some_and(u8::is_ascii_lowercase) {
            while bytes.get(end).is_some_and(|b| part(*b)) {
                end += 1;
            }
            out.push(text[at..end].trim_end_matches('-').to_string());
        }
        i = end.max(at + 2);
    }
    out
}

/// The long flags of `serprof COMMAND --help` (of `serprof --help` for an empty `command`).
fn long_flags(command: &str) -> Vec<String> {
    entries(&help(command))
        .iter()
        .flat_map(|(flags, _)| flags_in(flags))
        .collect()
}

/// The page's text before its first `###` heading, and each `###` section (heading and body).
fn sections(page: &str) -> (String, Vec<String>) {
    let mut intro = String::new();
    let mut out: Vec<String> = Vec::new();
    for line in page.lines() {
        if line.starts_with("### ") {
            out.push(String::new());
        }
        let into = out.last_mut().unwrap_or(&mut intro);
        into.push_str(line);
        into.push('\n');
    }
    (intro, out)
}

/// Whether a section's heading (its first line) names `serprof COMMAND`.
fn names(section: &str, command: &str) -> bool {
    let heading = section.lines().next().unwrap_or("");
    let named = format!("serprof {command}");
    heading.match_indices(&named).any(|(at, _)| {
        let after = heading[at + named.len()..].chars().next();
        after.is_none_or(|c| c == ' ' || c == '`')
    })
}

/// `text` without its inline code spans that start with the name of a program other than
/// serprof (`cargo run --release`, `valgrind --tool=callgrind`; a span starting with one of
/// serprof's `commands` is serprof's). Fenced blocks stay: their lines are commands.
fn serprof_text(text: &str, commands: &[String]) -> String {
    let unfenced: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    let unfenced = unfenced.join("\n");
    let other = |span: &str| {
        span.split_whitespace().next().is_some_and(|w| {
            w != "serprof" && !w.starts_with('-') && !commands.iter().any(|c| c == w)
        })
    };
    unfenced
        .split('`')
        .enumerate()
        .filter(|(k, part)| k % 2 == 0 || !other(part))
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` writes `flag` as a whole flag.
fn writes(text: &str, flag: &str) -> bool {
    flags_in(text).iter().any(|f| f == flag)
}

#[test]
fn the_commands_page_names_every_command_and_flag_and_no_other() {
    let page = std::fs::read_to_string(workspace().join("docs/guide/commands.md")).unwrap();
    let (intro, sections) = sections(&page);
    let global = long_flags("");
    assert!(global.contains(&"--program".to_string()), "{global:?}");
    let mut missing = Vec::new();
    for flag in &global {
        if !writes(&intro, flag) {
            missing.push(format!("{flag} (every command's) before the first section"));
        }
    }
    let mut all = global.clone();
    let mut command_text = intro.clone();
    for command in commands() {
        let own: Vec<&String> = sections.iter().filter(|s| names(s, &command)).collect();
        if own.is_empty() {
            missing.push(format!("a section for `serprof {command}`"));
            continue;
        }
        let text: String = own.iter().map(|s| s.as_str()).collect();
        command_text.push_str(&text);
        for flag in long_flags(&command) {
            if !global.contains(&flag) && !writes(&text, &flag) {
                missing.push(format!("{command} {flag}"));
            }
            all.push(flag);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/guide/commands.md lacks: {missing:#?}"
    );
    for other in OTHER_PROGRAMS {
        assert!(
            !all.iter().any(|f| f == other),
            "{other} is serprof's own flag"
        );
        assert!(
            writes(&command_text, other),
            "the page no longer names {other}"
        );
    }
    let unknown: Vec<String> = flags_in(&serprof_text(&command_text, &commands()))
        .into_iter()
        .filter(|f| !all.contains(f) && !OTHER_PROGRAMS.contains(&f.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "docs/guide/commands.md names flags no command has: {unknown:?}"
    );
}

#[test]
fn flags_are_read_whole() {
    assert_eq!(
        flags_in("`--layouts N` and `--layout-mode\nboth`, `cargo bench -- --profile-time 5`"),
        ["--layouts", "--layout-mode", "--profile-time"]
    );
    assert_eq!(
        flags_in("--cache-sim=yes, a--b, x --A, `--flag=--layouts=80`"),
        ["--cache-sim", "--flag", "--layouts"]
    );
    assert!(writes("`--no-alloc`", "--no-alloc") && !writes("`--no-alloc`", "--no"));
    let commands = ["run".to_string()];
    let text =
        "`cargo run --release -- run`, `run --quick`, `--jobs N`\n```sh\nserprof run --seed 1\n```";
    assert_eq!(
        flags_in(&serprof_text(text, &commands)),
        ["--quick", "--jobs", "--seed"]
    );
    let run = "### `serprof run [--study NAME]`\nbody";
    assert!(names(run, "run") && !names(run, "ru") && !names("### `serprof runs`", "run"));
    assert!(names(
        "### `serprof encode CONFIG` and `serprof decode CONFIG`",
        "decode"
    ));
}
