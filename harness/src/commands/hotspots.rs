//! `serprof hotspots PATH`: JProfiler's hot spots view from a folded profile.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use regex::Regex;

use crate::analyze::callgrind::Event;
use crate::analyze::hotspots::short_name;
use crate::analyze::hotspots::{compute, Hotspots};
use crate::analyze::types::{by_type, TypeHints};
use crate::analyze::views::{allocation_sites, backtraces, regroup, Backtraces, ViewLimits};
use crate::error::misuse_err;
use crate::layout;
use crate::misuse;
use crate::model::diagnosis::{Diagnosis, EvidenceKind, Measure};
use crate::model::ConfigResult;
use crate::profile::folded::Folded;
use crate::profile::sources::{By, Sources};
use crate::render::table::format_thousands;
use crate::render::tree::{tree_text, Chain};

/// Which profile of a configuration folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProfileKind {
    Cpu,
    Alloc,
    Instructions,
    /// The instructions recording weighed by one of callgrind's simulated events
    /// (`--event branch-mispredicts`, `d1-misses`, `ll-misses`).
    Simulated(Event),
}

impl ProfileKind {
    /// The kind `--event NAME` asks for: instructions are [`ProfileKind::Instructions`].
    pub(crate) fn of_event(event: Event) -> ProfileKind {
        match event {
            Event::Instructions => ProfileKind::Instructions,
            other => ProfileKind::Simulated(other),
        }
    }

    pub(crate) fn file(self) -> &'static str {
        match self {
            ProfileKind::Cpu => layout::CPU_FOLDED,
            ProfileKind::Alloc => layout::ALLOC_FOLDED,
            ProfileKind::Instructions => layout::INSTRUCTIONS_FOLDED,
            ProfileKind::Simulated(e) => e.folded_file(),
        }
    }

    /// The side table of source files next to the folded stacks.
    pub(crate) fn sources_file(self) -> &'static str {
        match self {
            ProfileKind::Cpu => layout::CPU_SOURCES,
            ProfileKind::Alloc => layout::ALLOC_SOURCES,
            ProfileKind::Instructions | ProfileKind::Simulated(_) => layout::INSTRUCTIONS_SOURCES,
        }
    }

    /// What a reader should keep in mind about the unit, for headers.
    pub(crate) fn caveat(self) -> &'static str {
        match self {
            ProfileKind::Instructions => " (executed instructions, not time)",
            ProfileKind::Simulated(Event::BranchMispredicts) => {
                " (branches valgrind's predictor model mispredicts, not this CPU's)"
            }
            ProfileKind::Simulated(_) => {
                " (misses of callgrind's simulated caches, not this CPU's)"
            }
            ProfileKind::Alloc => " (allocated bytes, sampled)",
            ProfileKind::Cpu => "",
        }
    }

    pub(crate) fn unit(self) -> &'static str {
        match self {
            ProfileKind::Cpu => "samples",
            ProfileKind::Alloc => "bytes",
            ProfileKind::Instructions => "instructions",
            ProfileKind::Simulated(e) => e.unit(),
        }
    }
}

/// The folded file PATH names (a configuration folder or a folded file) and the configuration
/// folder it belongs to, if any.
pub(crate) fn resolve(path: &Path, kind: ProfileKind) -> Result<(PathBuf, Option<PathBuf>)> {
    let file_name = kind.file();
    if path.is_dir() {
        let file = path.join(file_name);
        let counted = matches!(kind, ProfileKind::Instructions | ProfileKind::Simulated(_));
        if !file.is_file() && counted && path.join(layout::RESULT_JSON).is_file() {
            misuse!(
                "{} has no {file_name}: record it with `serprof run --instructions` (valgrind's callgrind, with its cache and branch simulation)",
                path.display()
            );
        }
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
pub(crate) fn load(file: &Path) -> Result<Folded> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| misuse_err(format!("cannot read {}: {e}", file.display())))?;
    let folded = Folded::parse(&text)
        .map_err(|e| misuse_err(format!("{} is not a folded profile: {e}", file.display())))?;
    if folded.total() == 0 {
        misuse!("{} is an empty profile (0 samples)", file.display());
    }
    Ok(folded)
}

/// What `serprof hotspots` was asked for.
#[derive(Debug, Clone)]
pub(crate) struct HotspotsRequest<'a> {
    pub path: &'a Path,
    pub top: usize,
    pub matching: Option<&'a str>,
    pub kind: ProfileKind,
    pub by: By,
    /// `--backtraces` (with `--match`): the merged caller tree of the matching frames instead
    /// of the list.
    pub backtraces: bool,
    /// `--sites`: allocation hot spots by allocating site.
    pub sites: bool,
    pub limits: ViewLimits,
    pub json: bool,
}

/// A regex from the command line, or a one-line misuse error naming the flag.
pub(crate) fn regex_arg(flag: &str, re: Option<&str>) -> Result<Option<Regex>> {
    re.map(|m| {
        Regex::new(m).map_err(|e| {
            misuse_err(format!(
                "invalid {flag} regex {m:?}: {}",
                one_line_regex_error(&e)
            ))
        })
    })
    .transpose()
}

fn one_line_regex_error(e: &regex::Error) -> String {
    e.to_string()
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.chars().all(|c| c == '^' || c == ' '))
        .unwrap_or("not a regex")
        .to_string()
}

/// A profile opened for a view: the folded stacks (regrouped by `by`), the file they came
/// from, and the configuration folder it belongs to.
pub(crate) struct Opened {
    pub file: PathBuf,
    pub dir: Option<PathBuf>,
    pub folded: Folded,
}

/// Opens the profile PATH names (cut at the allocating sites with `sites`), its frames grouped `by` function, module or crate (from the
/// side table of source files next to it, see `profile::sources`).
pub(crate) fn open(path: &Path, kind: ProfileKind, by: By, sites: bool) -> Result<Opened> {
    let (file, dir) = resolve(path, kind)?;
    let mut folded = load(&file)?;
    if sites {
        folded = allocation_sites(&folded);
    }
    let folded = if by == By::Function {
        folded
    } else if by == By::Type {
        // The configuration's split by field names the value's type and its sequences of
        // primitives (`analyze::types::TypeHints`); a bare .folded file has none.
        let fields = dir
            .as_ref()
            .and_then(|d| std::fs::read(d.join(layout::RESULT_JSON)).ok())
            .and_then(|b| serde_json::from_slice::<ConfigResult>(&b).ok())
            .map(|r| r.fields)
            .unwrap_or_default();
        by_type(&folded, &TypeHints::of(&fields))
    } else {
        let side = file
            .parent()
            .unwrap_or(Path::new("."))
            .join(kind.sources_file());
        regroup(&folded, by, &Sources::read(&side))
    };
    Ok(Opened { file, dir, folded })
}

pub(crate) fn run(req: &HotspotsRequest) -> Result<ExitCode> {
    let matching = regex_arg("--match", req.matching)?;
    if req.backtraces && matching.is_none() {
        misuse!("hotspots --backtraces: name frames with --match REGEX");
    }
    let kind = req.kind;
    let opened = open(req.path, kind, req.by, req.sites)?;
    let (file, dir, folded) = (opened.file, opened.dir, opened.folded);
    if let Some(re) = matching.as_ref().filter(|_| req.backtraces) {
        let b = backtraces(&folded, re, req.limits);
        if req.json {
            println!("{}", serde_json::to_string_pretty(&b)?);
        } else {
            print!("{}", render_backtraces(&b, &file, kind, req.by));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let result = dir
        .as_ref()
        .and_then(|d| std::fs::read(d.join(layout::RESULT_JSON)).ok())
        .and_then(|b| serde_json::from_slice::<ConfigResult>(&b).ok());
    let engine = result
        .as_ref()
        .and_then(|r| Regex::new(&r.engine_frames).ok())
        .filter(|_| req.by == By::Function);
    // The findings that rest on the CPU profile's functions, beside their frames.
    let findings = match (&dir, &result, kind, req.by) {
        (Some(d), Some(r), ProfileKind::Cpu, By::Function) => {
            super::explain::findings_of(d, r).0.diagnoses
        }
        _ => Vec::new(),
    };
    let mut table = compute(&folded, engine.as_ref(), matching.as_ref());
    table.rows.truncate(req.top);
    if req.json {
        /// The table, and the findings that rest on the profile (`findings`, absent when none).
        #[derive(serde::Serialize)]
        struct WithFindings<'a> {
            #[serde(flatten)]
            table: &'a Hotspots,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            findings: &'a [Diagnosis],
        }
        let out = WithFindings {
            table: &table,
            findings: &findings,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", render(&table, &file, kind, req.by, engine.is_some()));
        print!("{}", findings_beside(&table, &findings));
    }
    Ok(ExitCode::SUCCESS)
}

/// Under the hot spots, each finding of the profile with the listed functions it rests on
/// (its evidence), and its fix in a few words; `serprof explain` gives the rest.
fn findings_beside(t: &Hotspots, findings: &[Diagnosis]) -> String {
    let mut s = String::new();
    for d in findings.iter().filter(|d| d.measure == Measure::CpuSamples) {
        let rows: Vec<String> = t
            .rows
            .iter()
            .filter(|r| {
                let short = short_name(&r.function);
                d.evidence.iter().any(|e| {
                    matches!(
                        e.what,
                        EvidenceKind::Function | EvidenceKind::AllocationSite
                    ) && e.name == short
                })
            })
            .map(|r| short_name(&r.function))
            .collect();
        if s.is_empty() {
            s.push_str("findings (serprof explain prints their evidence and remedies):\n");
        }
        let on = match rows.is_empty() {
            true => String::new(),
            false => format!("; rows above: {}", rows.join(", ")),
        };
        s.push_str(&format!("  {}{on}\n", d.line()));
    }
    s
}

fn render_backtraces(b: &Backtraces, file: &Path, kind: ProfileKind, by: By) -> String {
    let unit = kind.unit();
    let mut s = format!(
        "{}: {} {unit}; {} /{}/ in {:.1}% of them ({} {unit}){}\n",
        file.display(),
        format_thousands(b.total as f64, 0),
        if by == By::Function {
            "frames matching"
        } else {
            by.as_str()
        },
        b.regex,
        b.matched_percent,
        format_thousands(b.matched as f64, 0),
        kind.caveat()
    );
    if b.matched == 0 {
        s.push_str("no stack has a matching frame\n");
        return s;
    }
    s.push_str(
        "shares are of the matched samples; each stack counts once, for its innermost match\n",
    );
    s.push_str(&tree_text(&b.roots, unit, Chain::Stacked, false));
    s
}

fn render(t: &Hotspots, file: &Path, kind: ProfileKind, by: By, marked: bool) -> String {
    let unit = kind.unit();
    let mut s = format!(
        "{}: {} {unit}{}\n",
        file.display(),
        format_thousands(t.total as f64, 0),
        kind.caveat()
    );
    if let (Some(re), Some(p), Some(n)) = (&t.match_regex, t.match_percent, t.match_samples) {
        s.push_str(&format!(
            "stacks matching /{re}/: {p:.1}% inclusive ({} {unit})\n",
            format_thousands(n as f64, 0)
        ));
    }
    s.push_str(&format!(
        "{:>7} {:>8} {:>12}  {}\n",
        "self %",
        "total %",
        unit,
        by.as_str()
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
