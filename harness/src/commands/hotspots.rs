//! `serprof hotspots PATH`: JProfiler's hot spots view from a folded profile.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use regex::Regex;

use crate::analyze::folded::Folded;
use crate::analyze::hotspots::{compute, Hotspots};
use crate::error::misuse_err;
use crate::layout;
use crate::misuse;
use crate::model::ConfigResult;
use crate::render::table::format_thousands;

/// Which profile of a configuration folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileKind {
    Cpu,
    Alloc,
    Instructions,
}

impl ProfileKind {
    pub fn file(self) -> &'static str {
        match self {
            ProfileKind::Cpu => layout::CPU_FOLDED,
            ProfileKind::Alloc => layout::ALLOC_FOLDED,
            ProfileKind::Instructions => layout::INSTRUCTIONS_FOLDED,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            ProfileKind::Cpu => "samples",
            ProfileKind::Alloc => "bytes",
            ProfileKind::Instructions => "instructions",
        }
    }
}

/// The folded file PATH names (a configuration folder or a folded file) and the configuration
/// folder it belongs to, if any.
pub fn resolve(path: &Path, kind: ProfileKind) -> Result<(PathBuf, Option<PathBuf>)> {
    let file_name = kind.file();
    if path.is_dir() {
        let file = path.join(file_name);
        if !file.is_file() {
            misuse!(
                "{} is not a configuration folder with a {file_name} (a folder like snapshots/latest/formats/serde_json, or a .folded file)",
                path.display()
            );
        }
        return Ok((file, Some(path.to_path_buf())));
    }
    if path.is_file() {
        let dir = path
            .parent()
            .filter(|d| d.join(layout::RESULT_JSON).is_file())
            .map(Path::to_path_buf);
        return Ok((path.to_path_buf(), dir));
    }
    misuse!("{}: no such file or folder", path.display())
}

/// Loads a folded profile: unreadable, corrupt or empty profiles are misuse errors naming it.
pub fn load(file: &Path) -> Result<Folded> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| misuse_err(format!("cannot read {}: {e}", file.display())))?;
    let folded = Folded::parse(&text)
        .map_err(|e| misuse_err(format!("{} is not a folded profile: {e}", file.display())))?;
    if folded.total() == 0 {
        misuse!("{} is an empty profile (0 samples)", file.display());
    }
    Ok(folded)
}

pub fn run(
    path: &Path,
    top: usize,
    matching: Option<&str>,
    kind: ProfileKind,
    json: bool,
) -> Result<ExitCode> {
    let matching = match matching {
        Some(m) => Some(
            Regex::new(m).map_err(|e| misuse_err(format!("invalid --match regex {m:?}: {e}")))?,
        ),
        None => None,
    };
    let (file, dir) = resolve(path, kind)?;
    let folded = load(&file)?;
    let engine = dir
        .and_then(|d| std::fs::read(d.join(layout::RESULT_JSON)).ok())
        .and_then(|b| serde_json::from_slice::<ConfigResult>(&b).ok())
        .and_then(|r| Regex::new(&r.engine_frames).ok());
    let mut table = compute(&folded, engine.as_ref(), matching.as_ref());
    table.rows.truncate(top);
    if json {
        println!("{}", serde_json::to_string_pretty(&table)?);
    } else {
        print!("{}", render(&table, &file, kind, engine.is_some()));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(t: &Hotspots, file: &Path, kind: ProfileKind, marked: bool) -> String {
    let unit = kind.unit();
    let mut s = format!(
        "{}: {} {unit}\n",
        file.display(),
        format_thousands(t.total as f64, 0)
    );
    if let (Some(re), Some(p), Some(n)) = (&t.match_regex, t.match_percent, t.match_samples) {
        s.push_str(&format!(
            "stacks matching /{re}/: {p:.1}% inclusive ({} {unit})\n",
            format_thousands(n as f64, 0)
        ));
    }
    s.push_str(&format!(
        "{:>7} {:>8} {:>12}  function\n",
        "self %", "total %", unit
    ));
    for r in &t.rows {
        let mark = if r.engine { "* " } else { "  " };
        s.push_str(&format!(
            "{:>6.1}% {:>7.1}% {:>12}  {mark}{}\n",
            r.self_percent,
            r.total_percent,
            format_thousands(r.self_samples as f64, 0),
            r.function
        ));
    }
    if marked {
        s.push_str("* the engine's own frames (its result.json `engine_frames`); the rest is the harness loop, std and libc\n");
    }
    s
}
