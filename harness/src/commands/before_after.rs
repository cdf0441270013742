//! `serprof before-after REV_BEFORE [REV_AFTER] [--patch CRATE=PATH]... [run's selection and
//! measurement flags]`: builds both sides ([`crate::run::sides`]), measures them in alternating
//! rounds and compares them ([`crate::run::before_after`]), and prints the table (or, with
//! `--json`, the record).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::analyze::before_after::{BySide, Side, SideRecord};
use crate::commands::run::MeasureArgs;
use crate::layout;
use crate::model::Program;
use crate::run::before_after::{self, BeforeAfterRequest};
use crate::run::sides::{self, BuildTarget, Checkout, LayoutMode, Patch, SideSpec};

#[derive(Debug, clap::Args)]
pub(crate) struct BeforeAfterArgs {
    /// The before side: a git revision of serprof (HEAD~1, a branch, a commit).
    pub before: String,
    /// The after side: a git revision; omitted, the working tree as it is, uncommitted and
    /// untracked (not ignored) files included.
    pub after: Option<String>,
    /// Build the after side with the dependency CRATE replaced by the checkout at PATH (repeat
    /// for more). An `=` pin on CRATE is changed to the checkout's version in the side's copy
    /// of the source, never in yours.
    #[arg(long = "patch", value_name = "CRATE=PATH")]
    pub patch: Vec<Patch>,
    /// The same for the before side.
    #[arg(long = "patch-before", value_name = "CRATE=PATH")]
    pub patch_before: Vec<Patch>,
    /// The build cache: side sources, binaries, and the CARGO_TARGET_DIR both sides share
    /// (default: $SERPROF_BA_CACHE, else ~/.cache/serprof/before-after; not inside a folder with a .cargo/config.toml).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Do not count instructions (by default both sides are counted under callgrind when
    /// valgrind is installed; the moved functions come from those exact counts).
    #[arg(long)]
    pub no_instructions: bool,
    /// Do not profile each configuration in every set of timing children (by default each
    /// timing child records 0.1 s of CPU samples of every configuration it holds after its
    /// rounds, for the table of functions over layouts and functions-diff.svg).
    #[arg(long)]
    pub no_functions: bool,
    /// Where the two builds' timing children run: `same-cpu` takes turns on one CPU, sample by
    /// sample; `split` runs both at once, one on each of two CPUs, swapping CPUs every round.
    #[arg(long, value_enum, default_value_t = PlacementArg::SameCpu)]
    pub placement: PlacementArg,
    /// Layouts per side: each side's binary is linked again N times (a link each, no build)
    /// and each set of timing children runs its own pair of layouts, one per side, so that a
    /// verdict is about the change averaged over layouts: N sets (default: 40, --quick 8; 0 or
    /// 1: the binaries as cargo linked them, timed in --processes sets, whose verdicts may be
    /// layout effects).
    #[arg(long, value_name = "N")]
    pub layouts: Option<usize>,
    /// How layouts differ: `both` (the default) puts every section in a random order and moves
    /// code, read-only data and data by random multiples of 16 bytes below 4 KiB; `shift` only
    /// moves them, keeping the order of functions (what an edit above the measured code
    /// does); `shuffle` only reorders. Shuffling needs LLD (Rust's default linker on x86_64
    /// Linux) or mold; with another linker `both` is `shift`, and the notes say so.
    #[arg(long, value_enum, default_value_t = LayoutMode::Both)]
    pub layout_mode: LayoutMode,
    /// Compile the workspace's own crates (where generic engine code is instantiated for your
    /// types) with every function on a 64-byte boundary (`-C llvm-args=-align-all-functions=6`,
    /// through serprof's workspace wrapper: dependencies are not rebuilt; std as shipped). A
    /// build you do not ship, whose layouts move the time less.
    #[arg(long)]
    pub align: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// The folder the before-after folders go in.
    #[arg(long, value_name = "DIR", default_value = "snapshots/before-after")]
    pub out: PathBuf,
    /// Print the record as one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--placement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PlacementArg {
    SameCpu,
    Split,
}

pub(crate) fn run(program: &Program, args: &BeforeAfterArgs) -> Result<ExitCode> {
    let mut settings = args.measure.settings()?;
    settings.instructions = !args.no_instructions;
    if !args.no_functions {
        settings.functions_ms = before_after::FUNCTIONS_MS;
    }
    let layouts = layouts_wanted(args)?;
    if layouts >= 2 && args.measure.rounds.is_none() {
        // Many layouts, each timed briefly: the layouts' spread, not a child's own noise, is
        // what the interval has to average out.
        settings.child_ms = match args.measure.quick {
            true => before_after::QUICK_LAYOUT_CHILD_MS,
            false => before_after::LAYOUT_CHILD_MS,
        };
        settings.rounds = settings.rounds.min(before_after::LAYOUT_ROUNDS);
    }
    let cwd = std::env::current_dir()?;
    let binary = program.binary();
    let repo = sides::repo_root(&cwd)?;
    let cache = cache_dir(args, &cwd);
    sides::check_cache(&cache)?;
    // The selection is checked before anything is built.
    let (configs, _) = before_after::select(program, &args.measure.studies, &args.measure.configs)?;
    let mut target = BuildTarget::of(&binary, &repo, &configs)?;
    target.align = args.align;
    let specs = side_specs(args, &repo, target)?;
    let quiet = args.quiet;
    let BySide { before, after } = build_sides(&repo, &cache, &specs, quiet)?;
    let mut notes = Vec::new();
    if before.key == after.key {
        notes.push(format!(
            "both sides are one build ({}): an A/A comparison, which shows the noise of this machine",
            before.describe
        ));
    }
    let req = BeforeAfterRequest {
        studies: args.measure.studies.clone(),
        configs: args.measure.configs.clone(),
        settings,
        cpu: args
            .measure
            .cpu
            .clone()
            .unwrap_or(crate::run::placement::CpuChoice::Auto),
        split: args.placement == PlacementArg::Split,
        out: args.out.clone(),
        quiet,
        layouts,
        layout_mode: args.layout_mode,
    };
    let record = before_after::measure(program, &req, &before, &after, notes)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        print!("{}", crate::render::before_after::table(&record));
    }
    if !quiet {
        eprintln!(
            "\nbefore-after folder: {} (open {})",
            record.out_dir,
            layout::BEFORE_AFTER_HTML
        );
    }
    Ok(if record.not_compared.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Layouts per side: `--layouts`, else the default of a full or quick before-after. With
/// layouts sampled there is one set of timing children per layout, so `--processes` (the
/// number of sets) is refused: it counts the sets only of binaries timed as cargo linked them.
fn layouts_wanted(args: &BeforeAfterArgs) -> Result<usize> {
    let layouts = args.layouts.unwrap_or(match args.measure.quick {
        true => before_after::QUICK_LAYOUTS,
        false => before_after::DEFAULT_LAYOUTS,
    });
    if let (Some(p), true) = (args.measure.processes, layouts >= 2) {
        crate::misuse!(
            "before-after --processes {p}: with layouts sampled ({layouts} per side), each set of timing children runs its own pair of layouts, so the sets are --layouts: give --layouts {p}, or --layouts 0 --processes {p} to time the binaries as cargo linked them"
        );
    }
    Ok(layouts)
}

/// The build cache: `--cache`, or the default; relative to `cwd`.
fn cache_dir(args: &BeforeAfterArgs, cwd: &Path) -> PathBuf {
    let cache = match &args.cache {
        Some(c) => c.clone(),
        None => sides::default_cache(),
    };
    if cache.is_absolute() {
        cache
    } else {
        cwd.join(cache)
    }
}

/// What each side builds: the before revision, the after revision or the working tree, each
/// with its patches.
fn side_specs(args: &BeforeAfterArgs, repo: &Path, build: BuildTarget) -> Result<BySide<SideSpec>> {
    let revision = |spec: &str| -> Result<Checkout> {
        Ok(Checkout::Revision {
            spec: spec.to_string(),
            sha: sides::resolve(repo, spec)?,
        })
    };
    Ok(BySide {
        before: SideSpec {
            label: Side::Before,
            source: revision(&args.before)?,
            patches: args.patch_before.clone(),
            build: build.clone(),
        },
        after: SideSpec {
            label: Side::After,
            source: match &args.after {
                Some(spec) => revision(spec)?,
                None => Checkout::WorkingTree {
                    head: sides::resolve(repo, "HEAD")?,
                },
            },
            patches: args.patch.clone(),
            build,
        },
    })
}

/// Both sides staged (before either is built: a misuse on the after side costs no build), then
/// built; two sides of one key are one build.
fn build_sides(
    repo: &Path,
    cache: &Path,
    specs: &BySide<SideSpec>,
    quiet: bool,
) -> Result<BySide<SideRecord>> {
    let say = |line: &str| {
        if !quiet {
            sides::stderr_line(line);
        }
    };
    let staged = specs
        .as_ref()
        .map(|_, spec| sides::stage(repo, cache, spec, &say))
        .transpose()?;
    let before = sides::build(repo, cache, &staged.before, !quiet, &say)?;
    let after = if staged.after.key() == staged.before.key() {
        let mut same = before.clone();
        same.label = Side::After;
        same.build_seconds = 0.0;
        same
    } else {
        sides::build(repo, cache, &staged.after, !quiet, &say)?
    };
    Ok(BySide { before, after })
}
