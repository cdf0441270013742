//! `serprof tree PATH`: the top-down call tree of a profile, with total and self shares.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use super::hotspots::{open, regex_arg, ProfileKind};
use crate::analyze::views::{call_tree, CallTree, ViewLimits};
use crate::profile::sources::By;
use crate::render::table::format_thousands;
use crate::render::tree::{tree_text, Chain};

/// What `serprof tree` was asked for.
#[derive(Debug, Clone)]
pub(crate) struct TreeRequest<'a> {
    pub path: &'a Path,
    /// `--match`: only stacks through a matching frame, each from its outermost match.
    pub matching: Option<&'a str>,
    pub kind: ProfileKind,
    pub by: By,
    pub limits: ViewLimits,
    pub json: bool,
}

pub(crate) fn run(req: &TreeRequest) -> Result<ExitCode> {
    let matching = regex_arg("--match", req.matching)?;
    let opened = open(req.path, req.kind, req.by, false)?;
    let tree = call_tree(&opened.folded, matching.as_ref(), req.limits);
    if req.json {
        println!("{}", serde_json::to_string_pretty(&tree)?);
    } else {
        print!("{}", render(&tree, &opened.file, req));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(t: &CallTree, file: &Path, req: &TreeRequest) -> String {
    let unit = req.kind.unit();
    let mut s = format!(
        "{}: {} {unit}{}, by {}\n",
        file.display(),
        format_thousands(t.total as f64, 0),
        req.kind.caveat(),
        req.by.as_str()
    );
    if let Some(f) = &t.focus {
        s.push_str(&format!(
            "stacks through /{f}/: {:.1}% of the {unit} ({}), each from its outermost match\n",
            100.0 * t.focused as f64 / t.total.max(1) as f64,
            format_thousands(t.focused as f64, 0)
        ));
    }
    s.push_str(&format!(
        "shares are of the whole profile; nodes under {}% are left out; a ▸ b: a calls only b\n",
        req.limits.min_percent
    ));
    s.push_str(&tree_text(&t.roots, unit, Chain::OneLine, true));
    s
}
