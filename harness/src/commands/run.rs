//! `serprof run`: measure configurations (the run layer does it) and print the tables.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::model::allocator::Allocator;
use crate::model::{Program, Settings};
use crate::run;
use crate::run::sides::LayoutMode;

/// `serprof run`'s flags: what to measure and how ([`MeasureArgs`], which `before-after`
/// shares), and where the run folder goes.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Parent folder of run folders.
    #[arg(long, value_name = "DIR", default_value = "snapshots")]
    pub out: PathBuf,
    /// Also count instructions per operation under valgrind's callgrind (exact, repeatable;
    /// needs valgrind).
    #[arg(long)]
    pub instructions: bool,
    /// Finish an interrupted run folder: measure only the configurations it is missing (with
    /// the run's own --child-timeout and --memory-cap unless given).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["studies", "configs", "quick"])]
    pub resume: Option<PathBuf>,
    /// Time in N layouts of this binary's crate, one set of timing children each (N sets,
    /// whatever --processes says), so that every row says how much layout alone moves it
    /// (`layout ±`, `layout_spread`). The working tree is built in before-after's cache with
    /// its link kept, then linked again N times (a link each); verification and the recordings
    /// stay this binary's. 0 or 1: this binary, as today.
    #[arg(long, value_name = "N", conflicts_with = "resume")]
    pub layouts: Option<usize>,
    /// How the layouts of --layouts differ (as in before-after: `both`, `shift`, `shuffle`).
    #[arg(long, value_enum, default_value_t = LayoutMode::Both, requires = "layouts")]
    pub layout_mode: LayoutMode,
    /// Measure every selected configuration under each of these allocators (comma-separated:
    /// system, jemalloc, mimalloc), a row each named CONFIG@ALLOCATOR, an allocator's children
    /// timed in lock-step with the others'; the table names each engine's fastest allocator.
    #[arg(long, value_name = "LIST", conflicts_with_all = ["resume", "layouts"])]
    pub allocators: Option<crate::model::allocator::AllocatorList>,
    /// Print the results as one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What to measure and how: the selection and the measurement settings, shared by `run` and
/// `before-after`.
#[derive(Debug, clap::Args)]
pub(crate) struct MeasureArgs {
    /// Run this study (repeat to add more). Default: every study.
    #[arg(long = "study", value_name = "NAME")]
    pub studies: Vec<String>,
    /// Run configurations matching GLOB over STUDY/CONFIG, or over CONFIG when GLOB has no `/`
    /// (repeat to add more).
    #[arg(long = "config", value_name = "GLOB")]
    pub configs: Vec<String>,
    /// A smoke run: a few seconds per configuration and recording (~300 CPU samples).
    #[arg(long)]
    pub quick: bool,
    /// CPU sampling rate in Hz (a high-resolution timer: the rate asked for is the rate obtained; each sample costs the sampled thread some tens of µs)
    #[arg(long, value_name = "HZ", default_value_t = Settings::DEFAULT_FREQUENCY_HZ)]
    pub frequency: u32,
    /// CPU samples to collect per configuration (default 1,000; --quick 300).
    #[arg(long, value_name = "N")]
    pub cpu_samples: Option<u64>,
    /// Skip the CPU recording.
    #[arg(long)]
    pub no_cpu: bool,
    /// Skip the allocation recording.
    #[arg(long)]
    pub no_alloc: bool,
    /// Sample one allocation stack every N allocated bytes.
    #[arg(long, value_name = "N", default_value_t = Settings::DEFAULT_ALLOC_SAMPLE_BYTES)]
    pub alloc_sample_bytes: u64,
    /// Lock-step timing children, one after another, each holding every configuration
    /// (default 12: the interval from the 3rd smallest to the 3rd largest child covers 96.1%;
    /// --quick 5: [min, max], 93.8%).
    #[arg(long, value_name = "N")]
    pub processes: Option<usize>,
    /// Rounds per timing child, one sample of every configuration each; given, exactly N
    /// (default: at least 20, --quick 8, and more when a round is short, so that a child
    /// measures for 2 s, --quick 0.6 s).
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Target length of one timing sample in ms (a sample is at least one operation).
    #[arg(long, value_name = "MS", default_value_t = Settings::DEFAULT_SAMPLE_MS)]
    pub sample_ms: u64,
    /// Pin every timing and CPU child to CPU N (default: the fastest CPU of a short probe at
    /// start; `--cpu none` pins nothing).
    #[arg(long, value_name = "N|none")]
    pub cpu: Option<crate::run::placement::CpuChoice>,
    /// Recordings (CPU, allocation, instructions) of N configurations side by side, each slot
    /// pinned to its own CPU, the first to the timing CPU (default: the CPUs serprof may use, at
    /// most 8; timing never runs beside anything).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Seed of the shuffled order of each round of the timing children (default: from the
    /// clock; recorded in run.json).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Kill a worker child after this many seconds (default 300; `run --resume` keeps the run's
    /// own).
    #[arg(long, value_name = "SECONDS")]
    pub child_timeout: Option<u64>,
    /// Address-space cap of a worker child in MiB, 0 for none (default 4096; `run --resume`
    /// keeps the run's own).
    #[arg(long, value_name = "MIB")]
    pub memory_cap: Option<u64>,
}

impl RunArgs {
    /// The settings these flags ask for.
    pub(crate) fn settings(&self) -> Result<Settings> {
        let mut s = self.measure.settings()?;
        s.instructions = self.instructions;
        Ok(s)
    }
}

impl MeasureArgs {
    /// The settings these flags ask for (instructions not counted).
    pub(crate) fn settings(&self) -> Result<Settings> {
        let mut s = if self.quick {
            Settings::quick()
        } else {
            Settings::defaults()
        };
        let hz = self.frequency;
        if !(1..=10_000).contains(&hz) {
            crate::misuse!("--frequency {hz}: give a rate between 1 and 10000 Hz");
        }
        s.frequency_hz = hz;
        if let Some(n) = self.cpu_samples {
            if n == 0 {
                crate::misuse!("--cpu-samples must be at least 1");
            }
            s.cpu_samples = n;
        }
        s.alloc_sample_bytes = self.alloc_sample_bytes;
        if let Some(n) = self.rounds {
            if !(1..=100_000).contains(&n) {
                crate::misuse!("--rounds {n}: give between 1 and 100000 rounds");
            }
            s.rounds = n;
            s.child_ms = 0;
        }
        let ms = self.sample_ms;
        if !(1..=10_000).contains(&ms) {
            crate::misuse!("--sample-ms {ms}: give between 1 and 10000 ms");
        }
        s.sample_ms = ms;
        if let Some(t) = self.child_timeout {
            s.child_time_cap_s = t.max(1);
        }
        if let Some(m) = self.memory_cap {
            s.memory_cap_mib = m;
        }
        s.cpu = !self.no_cpu;
        s.alloc = !self.no_alloc;
        if let Some(n) = self.processes {
            if !(1..=1000).contains(&n) {
                crate::misuse!("--processes {n}: give between 1 and 1000 processes");
            }
            s.processes = n;
        }
        s.jobs = match self.jobs {
            Some(n) if !(1..=64).contains(&n) => {
                crate::misuse!("--jobs {n}: give between 1 and 64 recording slots")
            }
            Some(n) => n,
            None => crate::measure::reference::allowed_cpus().len().clamp(1, 8),
        };
        if let Some(seed) = self.seed {
            s.seed = seed;
        }
        Ok(s)
    }
}

pub(crate) fn run(program: &Program, args: &RunArgs) -> Result<ExitCode> {
    let settings = args.settings()?;
    let m = &args.measure;
    let allocators = args.allocators.clone().map(|a| a.0).unwrap_or_default();
    // A program that names the allocators it has (every program of this protocol) is checked
    // before anything runs.
    let has = &program.build().allocators;
    let lacks = |a: &&Allocator| !has.iter().any(|h| h == a.name());
    if let Some(a) = allocators.iter().find(lacks).filter(|_| !has.is_empty()) {
        crate::misuse!(
            "--allocators: {} was built without {a}: turn on the `{a}` feature of its serprof (or serprof-bench) dependency",
            program.binary().bin
        );
    }
    let req = run::RunRequest {
        studies: m.studies.clone(),
        configs: m.configs.clone(),
        out: args.out.clone(),
        settings,
        cpu: m
            .cpu
            .clone()
            .unwrap_or(crate::run::placement::CpuChoice::Auto),
        resume: args.resume.clone(),
        resume_child_timeout: m.child_timeout.map(|t| t.max(1)),
        resume_memory_cap: m.memory_cap,
        quiet: args.quiet,
        layouts: (args.layouts.unwrap_or(0), args.layout_mode),
        allocators,
    };
    let outcome = run::run(program, &req)?;
    if args.json {
        let doc = serde_json::json!({
            "run_dir": outcome.run_dir,
            "complete": outcome.manifest.complete,
            "failed": outcome.manifest.failed,
            "results": outcome.results,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!(
            "{}",
            crate::render::table::render(program, &outcome.results)
        );
        println!(
            "\n{}",
            crate::render::summary::measurement_summary(&outcome.manifest)
        );
        if !outcome.manifest.warnings.is_empty() {
            println!("\nwarnings:");
            for w in &outcome.manifest.warnings {
                println!("  {w}");
            }
        }
    }
    if !args.quiet {
        eprintln!("\nrun folder: {}", outcome.run_dir.display());
    }
    if !outcome.manifest.complete {
        eprintln!(
            "serprof: the run was interrupted; finish it with `serprof run --resume {}`",
            outcome.run_dir.display()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(if outcome.manifest.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
