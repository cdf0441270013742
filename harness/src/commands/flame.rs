//! `serprof flame PATH [--alloc | --instructions | --event NAME] [--match REGEX | --from-loop] [-o FILE]`:
//! draws a profile's flame graph again, optionally with every stack started at a frame (the
//! measured loop, with `--from-loop`), so the harness frames under every engine
//! (`_start`, `main`, the worker, ...) do not take the graph's bottom rows.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::hotspots::{load, regex_arg, resolve, ProfileKind};
use crate::layout::write_atomic;
use crate::render::flame::{flame_svg, from_the_loop, Kind, LOOP_PATTERN};

pub(crate) fn run(
    path: &Path,
    kind: ProfileKind,
    matching: Option<&str>,
    from_loop: bool,
    out: Option<&Path>,
) -> Result<ExitCode> {
    let (file, _) = resolve(path, kind)?;
    let folded = load(&file)?;
    let from_re = regex_arg("--match", matching)?;
    let pattern = match from_loop {
        true => Some(LOOP_PATTERN.as_str()),
        false => matching,
    };
    let folded = match (&from_re, from_loop) {
        (Some(re), _) => folded.starting_at(|frame| re.is_match(frame)),
        (None, true) => from_the_loop(folded),
        (None, false) => folded,
    };
    let (flame_kind, unit) = match kind {
        ProfileKind::Cpu => (Kind::Cpu, "samples"),
        ProfileKind::Alloc => (Kind::Alloc, "bytes"),
        ProfileKind::Instructions => (Kind::Instructions, "instructions"),
        ProfileKind::Simulated(e) => (Kind::Instructions, e.unit()),
    };
    let subtitle = match pattern {
        Some(p) => format!(
            "{} {unit}; stacks start at the first frame matching {p}",
            folded.total()
        ),
        None => format!("{} {unit}", folded.total()),
    };
    let svg = flame_svg(
        &folded.to_text(),
        flame_kind,
        &file.display().to_string(),
        &subtitle,
    )?;
    match out {
        Some(o) if o != Path::new("-") => {
            write_atomic(o, &svg)?;
            eprintln!("flame graph: {}", o.display());
        }
        _ => {
            use std::io::Write;
            std::io::stdout().write_all(&svg)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
