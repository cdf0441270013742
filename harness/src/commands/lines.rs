//! `serprof hotspots PATH --lines`: the hottest source lines of a configuration's instructions
//! recording (its callgrind dump, which attributes every executed instruction to the file and
//! line it came from, inlined code to the line of the inlined function), with the text of each
//! line when the source file is readable here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::hotspots::{regex_arg, HotspotsRequest};
use crate::analyze::callgrind::{base_name, Profile};
use crate::error::misuse_err;
use crate::layout;
use crate::misuse;
use crate::render::table::format_thousands;

/// One hot line.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LineRow {
    pub file: String,
    pub line: u64,
    pub instructions: u64,
    pub percent: f64,
    /// The function with most of the line's instructions (code of one line can be inlined into
    /// several functions).
    pub function: String,
    /// The line's text, when the file is readable.
    pub text: Option<String>,
}

/// The document of `--lines`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Lines {
    pub file: String,
    pub unit: &'static str,
    pub note: &'static str,
    pub total: u64,
    pub match_regex: Option<String>,
    /// Instructions of the lines of matching functions (all of them without `--match`).
    pub matched: u64,
    pub lines: Vec<LineRow>,
}

const NOTE: &str = "lines of executed instructions (callgrind), not of time";

/// The callgrind dump PATH names: a configuration folder's, or the file itself.
fn dump_of(path: &Path) -> Result<PathBuf> {
    if path.is_dir() {
        let file = path.join(layout::INSTRUCTIONS_CALLGRIND);
        if !file.is_file() {
            misuse!(
                "{} has no {} (--lines reads the instructions recording: run with --instructions)",
                path.display(),
                layout::INSTRUCTIONS_CALLGRIND
            );
        }
        return Ok(file);
    }
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    misuse!("{}: no such file or folder", path.display())
}

/// The text of line `n` of `file`, read once per file.
fn source_line(
    cache: &mut HashMap<String, Option<Vec<String>>>,
    file: &str,
    n: u64,
) -> Option<String> {
    let lines = cache.entry(file.to_string()).or_insert_with(|| {
        std::fs::read_to_string(file)
            .ok()
            .map(|t| t.lines().map(str::to_string).collect())
    });
    let text = lines
        .as_ref()?
        .get(usize::try_from(n).ok()?.checked_sub(1)?)?;
    Some(text.trim().to_string())
}

pub(crate) fn run(req: &HotspotsRequest) -> Result<ExitCode> {
    let matching = regex_arg("--match", req.matching)?;
    let dump = dump_of(req.path)?;
    let text = std::fs::read_to_string(&dump)
        .map_err(|e| misuse_err(format!("cannot read {}: {e}", dump.display())))?;
    let profile = Profile::parse(&text)
        .map_err(|e| misuse_err(format!("{} is not a callgrind file: {e}", dump.display())))?;
    let Some(ir) = profile.event("Ir") else {
        misuse!("{} counts no instructions (Ir)", dump.display());
    };
    let total = profile.total(ir);
    let mut cache = HashMap::new();
    let mut matched = 0;
    let mut lines = Vec::new();
    for l in profile.hottest_lines(ir) {
        let function = base_name(&profile.functions[l.function].name).to_string();
        if matching.as_ref().is_some_and(|re| !re.is_match(&function)) {
            continue;
        }
        matched += l.cost;
        if lines.len() < req.top {
            lines.push(LineRow {
                text: (l.line > 0)
                    .then(|| source_line(&mut cache, &l.file, l.line))
                    .flatten(),
                percent: if total == 0 {
                    0.0
                } else {
                    100.0 * l.cost as f64 / total as f64
                },
                file: l.file,
                line: l.line,
                instructions: l.cost,
                function,
            });
        }
    }
    let doc = Lines {
        file: dump.display().to_string(),
        unit: "instructions",
        note: NOTE,
        total,
        match_regex: matching.map(|r| r.as_str().to_string()),
        matched,
        lines,
    };
    if req.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&doc));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(d: &Lines) -> String {
    let mut s = format!(
        "{}: {} instructions; {NOTE}\n",
        d.file,
        format_thousands(d.total as f64, 0)
    );
    if let Some(re) = &d.match_regex {
        s.push_str(&format!(
            "lines of functions matching /{re}/: {} instructions\n",
            format_thousands(d.matched as f64, 0)
        ));
    }
    s.push_str(&format!("{:>7} {:>14}  line\n", "share", "instructions"));
    for l in &d.lines {
        let short = l.file.rsplit('/').take(2).collect::<Vec<_>>();
        let short: Vec<&str> = short.into_iter().rev().collect();
        s.push_str(&format!(
            "{:>6.1}% {:>14}  {}:{}  in {}\n",
            l.percent,
            format_thousands(l.instructions as f64, 0),
            short.join("/"),
            l.line,
            crate::analyze::hotspots::short_name(&l.function)
        ));
        if let Some(t) = &l.text {
            s.push_str(&format!("{:>24}{t}\n", "| "));
        }
    }
    s
}
