//! `serprof run --layouts N`: the timing children run N layouts of this binary's crate, so that
//! every row says how much layout alone moves it (`TimeStats::layout_spread`).
//!
//! A binary cargo linked cannot be linked again (rustc removes its objects), so the crate is
//! built as it is in the working tree in before-after's cache, with its link kept
//! ([`super::sides`]: a build seeded from the repository's `target/release`, which compiles only
//! the workspace's crates), and linked again N times. Set `k` of timing children runs layout
//! `k`; the verification, CPU, allocation and instruction recordings are this binary's.

use std::path::Path;

use crate::model::Planned;
use anyhow::Result;

use super::sides::{self, BuildTarget, Checkout, KeptLink, LayoutMode, SideSpec};
use crate::analyze::before_after::Side;
use crate::error::misuse_err;
use crate::model::binary::Layout;
use crate::model::Program;

/// The layouts a run's timing children run, and what they are of. Dropped, it removes their
/// binaries, on every path out of the run.
pub(crate) struct Relinked {
    pub layouts: Vec<Layout>,
    pub notes: Vec<String>,
}

impl Drop for Relinked {
    fn drop(&mut self) {
        self.layouts.iter().for_each(sides::remove_layout);
    }
}

/// Builds the working tree of `program`'s crate (with the engines `configs` need, for
/// serprof's own) and links it `n` times in layouts of `mode` with seeds from `seed`.
pub(crate) fn link(
    program: &Program,
    configs: &[Planned],
    (n, mode, seed): (usize, LayoutMode, u64),
    quiet: bool,
) -> Result<Relinked> {
    let cwd = std::env::current_dir()?;
    let repo = sides::repo_root(&cwd)?;
    let cache = sides::default_cache();
    sides::check_cache(&cache)?;
    let spec = SideSpec {
        label: Side::After,
        source: Checkout::WorkingTree {
            head: sides::resolve(&repo, "HEAD")?,
        },
        patches: Vec::new(),
        build: BuildTarget::of(&program.binary(), &repo, configs)?,
    };
    let say = |line: &str| {
        if !quiet {
            eprintln!("serprof: run --layouts: {line}");
        }
    };
    let staged = sides::stage(&repo, &cache, &spec, &say)?;
    let side = sides::build(&repo, &cache, &staged, !quiet, &say)?;
    let Some(kept) = side
        .link
        .as_deref()
        .and_then(|d| KeptLink::read(Path::new(d)))
    else {
        return Err(misuse_err(format!(
            "--layouts: the build of {} cannot be linked again: {}",
            side.describe,
            side.layouts_note
                .as_deref()
                .unwrap_or("its link was not kept")
        )));
    };
    let mut notes = vec![format!(
        "the timing children ran {n} layouts of {} (built in {}); verification and the CPU, allocation and instruction recordings are this binary's",
        side.describe,
        cache.display()
    )];
    let mode = sides::linkable(mode, &[&kept], &mut notes);
    let layouts = sides::link_layouts(&side, &kept, 0, mode, (n, seed)).map_err(misuse_err)?;
    say(&format!(
        "{n} layouts linked ({}; seeds in run.json)",
        mode.as_str()
    ));
    Ok(Relinked { layouts, notes })
}
