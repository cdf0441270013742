//! The command line: parsing and dispatch only; the work lives in the layers below
//! (docs/ARCHITECTURE.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::analyze::views::ViewLimits;
use crate::commands;
use crate::commands::run::RunArgs;
use crate::protocol::Serve;

/// serprof: a profiling-instrumented research harness for serialization engines.
///
/// Every engine configuration runs under a pprof-rs sampler that writes its own flame graph,
/// with timing, payload size and allocation figures.
#[derive(Debug, Parser)]
#[command(name = "serprof", version, about, long_about = None)]
pub(crate) struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Append serprof's own spans (verify, warm-up, timing, cpu, alloc, render; with their
    /// durations) to FILE as JSON lines, worker children included.
    #[arg(long, value_name = "FILE", global = true)]
    pub trace_json: Option<PathBuf>,
    /// The program to measure: a crate's binary that ends in `serprof::main!` (default: the
    /// binary of the crate in the working folder, built with `cargo build --release`; outside
    /// a crate, or in serprof's own, serprof's studies).
    #[arg(long, value_name = "EXE", global = true)]
    pub program: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List studies and their configurations.
    List {
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Measure configurations: verify, time, sample CPU, count allocations; write a run folder.
    Run(RunArgs),
    /// Before/after of a change: build two revisions of this program's crate (or the working
    /// tree, or an engine crate patched with a local checkout), time them in lock-step (one
    /// child per build, taking turns sample by sample), count their instructions, and compare:
    /// verdicts, moved functions, flame graphs.
    // It shares run's flags, but its sets of timing children are its layouts.
    #[command(mut_arg("processes", |a| a.help(
        "Sets of timing children when layouts are not sampled (--layouts 0 or 1; default 12, --quick 5); with layouts sampled the sets are --layouts, and --processes is refused"
    )))]
    BeforeAfter(Box<commands::before_after::BeforeAfterArgs>),
    /// Hot spots of a profile: self and total share per function.
    Hotspots {
        /// A configuration folder (e.g. snapshots/latest/formats/serde_json) or a .folded file.
        path: PathBuf,
        /// Rows to show.
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Frames matching REGEX: also print the inclusive share of samples whose stack has one
        /// (with --lines: only lines of functions matching REGEX; with --backtraces: their
        /// callers).
        #[arg(long = "match", value_name = "REGEX")]
        matching: Option<String>,
        #[command(flatten)]
        profile: ProfileArgs,
        /// Instead of the list, the merged caller tree (backtraces) of the frames --match names,
        /// each path's share of the matched samples.
        #[arg(long, conflicts_with_all = ["lines"])]
        backtraces: bool,
        /// Group frames by function, module or crate (from the functions' source files), or
        /// samples by the type whose serialize or deserialize code runs (`type`).
        #[arg(long, value_enum, default_value_t = ByArg::Function)]
        by: ByArg,
        /// The hottest source lines, from the instructions recording (instructions, not time).
        #[arg(long, conflicts_with_all = ["alloc", "sites"])]
        lines: bool,
        /// With --alloc: allocation hot spots by allocating site (the first frame that is not
        /// allocation plumbing: the allocator, Vec/String growth, core and alloc).
        #[arg(long, requires = "alloc")]
        sites: bool,
        /// With --backtraces: leave out paths under PCT of the matched samples.
        #[arg(long, value_name = "PCT", default_value_t = ViewLimits::DEFAULT_MIN_PERCENT)]
        min: f64,
        /// With --backtraces: levels of callers shown (a folded chain is one level).
        #[arg(long, value_name = "N", default_value_t = ViewLimits::DEFAULT_DEPTH)]
        depth: usize,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
        /// A value after --backtraces (which takes none), or a second path: a misuse error.
        #[arg(hide = true)]
        stray: Option<String>,
    },
    /// A configuration's findings: what costs its time, bytes or values, the evidence (shares,
    /// functions, fields, allocation sites), the remedy and the most removing it can gain.
    Explain {
        /// A configuration folder, or STUDY/CONFIG of the run folder --run names.
        config: String,
        /// The run folder STUDY/CONFIG is read from.
        #[arg(long, value_name = "DIR", default_value = "snapshots/latest")]
        run: PathBuf,
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The top-down call tree of a profile: total and self share per node, single-call chains
    /// folded into one line.
    Tree {
        /// A configuration folder or a .folded file.
        path: PathBuf,
        /// Only stacks through a frame matching REGEX, each started at its outermost match.
        #[arg(long = "match", value_name = "REGEX")]
        matching: Option<String>,
        /// Levels of nodes shown (a folded chain is one level).
        #[arg(long, value_name = "N", default_value_t = ViewLimits::DEFAULT_DEPTH)]
        depth: usize,
        /// Leave out nodes under PCT of the whole profile (with --match too).
        #[arg(long, value_name = "PCT", default_value_t = ViewLimits::DEFAULT_MIN_PERCENT)]
        min: f64,
        /// Group frames by function, module or crate (from the functions' source files), or
        /// samples by the type whose serialize or deserialize code runs (`type`).
        #[arg(long, value_enum, default_value_t = ByArg::Function)]
        by: ByArg,
        #[command(flatten)]
        profile: ProfileArgs,
        /// Print one JSON document instead of a tree.
        #[arg(long)]
        json: bool,
        /// Not an option: a misuse error pointing at --match.
        #[arg(long, hide = true, num_args = 0..=1)]
        focus: Option<Option<String>>,
    },
    /// Draw a profile's flame graph again, optionally with every stack started at a frame
    /// (`--match REGEX`, or `--from-loop`: the measured loop, leaving out the harness frames
    /// under it).
    Flame {
        /// A configuration folder or a .folded file.
        path: PathBuf,
        /// Start every stack at its first frame matching REGEX.
        #[arg(long = "match", value_name = "REGEX", conflicts_with = "from_loop")]
        matching: Option<String>,
        /// Start every stack at the measured loop (`serprof_api::workload::*_loop`).
        #[arg(long)]
        from_loop: bool,
        #[command(flatten)]
        profile: ProfileArgs,
        /// Write the SVG to FILE (default: stdout).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        out: Option<PathBuf>,
        /// Not an option: a misuse error pointing at --match.
        #[arg(long, hide = true, num_args = 0..=1)]
        from: Option<Option<String>>,
    },
    /// The Order dataset as Jackson-mapping JSON (one Order per line), or its facts.
    Dataset {
        /// Print only Order N (0 to 199).
        #[arg(long, value_name = "N")]
        order: Option<usize>,
        /// Print the dataset's facts (counts, bytes) instead.
        #[arg(long, conflicts_with = "order")]
        stats: bool,
        /// Print one JSON document: the array of Orders, or with --stats the facts.
        #[arg(long, conflicts_with = "order")]
        json: bool,
    },
    /// Write value N of CONFIG's dataset as CONFIG encodes it to stdout.
    Encode {
        /// A configuration, STUDY/CONFIG (see `serprof list`).
        config: String,
        /// The value to encode (0 to 199 for the Orders); omit when the dataset has one value.
        #[arg(long, value_name = "N", visible_alias = "order")]
        value: Option<usize>,
    },
    /// Decode a payload (FILE or stdin) with CONFIG and print the value's `{:#?}` (or JSON).
    Decode {
        /// A configuration, STUDY/CONFIG (see `serprof list`).
        config: String,
        /// The payload; stdin when absent or `-`.
        file: Option<PathBuf>,
        /// Print the value as JSON, for a type that derives serde's traits and is measured
        /// with serprof's serde engines (others print `{:#?}`, with a note on stderr).
        #[arg(long)]
        json: bool,
    },
    /// (Re)write RUN_DIR/report.html: tables, charts and links to every flame graph.
    Report {
        /// A run folder (e.g. snapshots/latest).
        run_dir: PathBuf,
    },
    /// Compare two run folders or two configuration folders: ratios with intervals, payload and
    /// allocation deltas, moved functions, differential flame graphs.
    Compare {
        /// The "before" run or configuration folder.
        before: PathBuf,
        /// The "after" run or configuration folder.
        after: PathBuf,
        /// Where to write compare.json and the diff flame graphs (default: compare/<BEFORE's run
        /// name>/ in AFTER's run folder, a folder per configuration below it).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The regression gate: exact figures (instructions, allocations, bytes allocated, payload)
    /// of two run folders per configuration; exit 1 naming each one that grew past the
    /// threshold.
    Check {
        /// The baseline run folder.
        baseline: PathBuf,
        /// The run folder to check.
        current: PathBuf,
        /// Largest growth that still passes, in percent.
        #[arg(long, value_name = "PCT", default_value_t = commands::check::DEFAULT_MAX_REGRESSION)]
        max_regression: f64,
        /// Also write CURRENT's figures in Bencher's metric format (BMF JSON) to FILE.
        #[arg(long, value_name = "FILE")]
        bmf: Option<PathBuf>,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Lock-step A/B timing of two configurations (samples of A and B in turn, in several
    /// children): the median of the children's ratios and its interval, for changes of a few
    /// percent on a noisy machine.
    Ab {
        /// Configuration A, STUDY/CONFIG.
        config_a: String,
        /// Configuration B, STUDY/CONFIG.
        config_b: String,
        /// Rounds per timing child, one sample of each configuration each (default: as many as
        /// fill 2 s per child).
        #[arg(long, value_name = "N")]
        rounds: Option<usize>,
        /// Lock-step timing children, one after another; the interval is [min, max] of their
        /// ratios (96.9% for 6).
        #[arg(long, value_name = "P", default_value_t = commands::ab::DEFAULT_PROCESSES)]
        processes: usize,
        /// Pin the processes to CPU N (default: the fastest in a short probe; `none`: no pinning).
        #[arg(long, value_name = "N|none")]
        cpu: Option<crate::run::placement::CpuChoice>,
        /// Where to write the ab run folder.
        #[arg(long, value_name = "DIR", default_value = "snapshots")]
        out: PathBuf,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Measure this machine: per-CPU speed, the spread between processes, load, governor and
    /// steal time, and the ratio precision a default run can expect (about 15 s).
    Doctor {
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Environment variable through which worker children inherit `--trace-json`.
const TRACE_JSON_ENV: &str = "SERPROF_TRACE_JSON";

/// A worker child's tracing: warnings to stderr, and its spans to the parent's `--trace-json`
/// file when the parent has one.
pub(crate) fn init_worker_tracing() {
    if let Err(e) = init_tracing(0, None) {
        eprintln!("serprof: warning: {e:#}");
    }
}

/// Logs to stderr at the `-v` level (or `RUST_LOG`), plus, with `--trace-json FILE`, every span's
/// close event with its busy and idle time as one JSON line in FILE. Worker children append to
/// the same file (they run one at a time).
fn init_tracing(verbose: u8, trace_json: Option<&std::path::Path>) -> Result<()> {
    use tracing_subscriber::fmt::format::FmtSpan;
    use tracing_subscriber::prelude::*;
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_filter(filter);
    let inherited = std::env::var_os(TRACE_JSON_ENV).map(PathBuf::from);
    let json_layer = match trace_json.map(std::path::Path::to_path_buf).or(inherited) {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| {
                    crate::error::misuse_err(format!(
                        "cannot open --trace-json {}: {e}",
                        path.display()
                    ))
                })?;
            // Children find the file through the environment.
            std::env::set_var(TRACE_JSON_ENV, &path);
            Some(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_span_events(FmtSpan::CLOSE)
                    .with_writer(std::sync::Mutex::new(file))
                    .with_filter(tracing_subscriber::filter::LevelFilter::INFO),
            )
        }
        None => None,
    };
    let _ = tracing_subscriber::registry()
        .with(stderr_layer)
        .with(json_layer)
        .try_init();
    Ok(())
}

/// Parses the command line and runs it: on `program`'s studies, or on those of the program
/// `--program` names (or the crate in the working folder builds) for the commands that measure.
pub(crate) fn main(program: &crate::model::Program, args: Vec<std::ffi::OsString>) -> ExitCode {
    // A program named on the command line is described before parsing, so that its help and
    // its commands are its own (no `dataset` where its studies have no Orders).
    let named = match program_flag(&args) {
        Some(exe) => match crate::driver::describe(&exe, program) {
            Ok(p) => Some(p),
            Err(e) => return crate::error::finish(Err(e)),
        },
        None => None,
    };
    let program = named.as_ref().unwrap_or(program);
    let cli = match command_of(program)
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let outcome = init_tracing(cli.verbose, cli.trace_json.as_deref()).and_then(|()| {
        let found = match named {
            Some(_) => None,
            None => crate::driver::program_for(measures(&cli.command), program)?,
        };
        dispatch(cli, found.as_ref().unwrap_or(program))
    });
    crate::error::finish(outcome)
}

/// Whether `command` measures (or lists, or serves) a program's studies.
fn measures(command: &Command) -> bool {
    matches!(
        command,
        Command::List { .. }
            | Command::Run(_)
            | Command::BeforeAfter(_)
            | Command::Dataset { .. }
            | Command::Encode { .. }
            | Command::Decode { .. }
            | Command::Report { .. }
            | Command::Ab { .. }
    )
}

/// The value of `--program` (`--program EXE` or `--program=EXE`), read before parsing.
fn program_flag(args: &[std::ffi::OsString]) -> Option<PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_str()?;
        if a == "--" {
            return None;
        }
        if a == "--program" {
            return it.next().map(PathBuf::from);
        }
        if let Some(v) = a.strip_prefix("--program=") {
            return Some(PathBuf::from(v));
        }
    }
    None
}

/// The command line of `program`: serprof's own `dataset` command and the Order wording of
/// `encode` only where its studies include the Order dataset.
pub(crate) fn command_of(program: &crate::model::Program) -> clap::Command {
    let command = Cli::command();
    if program.has_dataset() {
        return command;
    }
    command
        .mut_subcommand("dataset", |c| c.hide(true))
        .mut_subcommand("encode", |c| {
            c.mut_arg("value", |a| {
                a.visible_alias(None)
                    .help("The value to encode (its index in the dataset); omit when the dataset has one value")
            })
        })
}

/// Help and version print as clap prints them; a usage error becomes one line on stderr and
/// exit code 2, like every other misuse.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::from(e.exit_code() as u8)
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            eprintln!("serprof: error: {}", missing_command_line(&e.to_string()));
            ExitCode::from(2)
        }
        _ => {
            eprintln!("serprof: error: {}", usage_line(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// clap's usage error in one line: its first line and its tips ("a similar argument exists").
fn usage_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("invalid command line");
    let mut first = first.strip_prefix("error: ").unwrap_or(first).to_string();
    // "the following required arguments were not provided:" lists them on the next lines.
    if first.ends_with(':') {
        let listed: Vec<&str> = lines
            .take_while(|l| l.starts_with(' '))
            .map(str::trim)
            .collect();
        first = format!("{} {}", first, listed.join(", "));
    }
    let tips: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tip:"))
        .collect();
    let mut line = first;
    for tip in tips {
        line.push_str("; ");
        line.push_str(tip);
    }
    line.push_str(" (see `serprof --help`)");
    line
}

/// The one line for a call without a command (or a command without its subcommand).
fn missing_command_line(help: &str) -> String {
    let usage = help
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or("serprof <COMMAND>");
    format!("a command is needed: {usage} (`serprof --help` lists the commands; `serprof run` is the main job)")
}

/// Which profile of a configuration folder a command reads: the CPU profile unless one flag
/// says otherwise.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ProfileArgs {
    /// Use the allocation profile (alloc.folded, bytes) instead of the CPU profile.
    #[arg(long, conflicts_with = "instructions")]
    alloc: bool,
    /// Use the instruction profile (instructions.folded, from `run --instructions`):
    /// deterministic shares of executed instructions (the same as `--event instructions`).
    #[arg(long)]
    instructions: bool,
    /// Use the instructions recording weighed by one of callgrind's events (from `run
    /// --instructions`): instructions, branch-mispredicts (valgrind's predictor model),
    /// d1-misses or ll-misses (its simulated data caches).
    #[arg(long, value_name = "NAME", value_parser = event_name, conflicts_with_all = ["alloc", "instructions"])]
    event: Option<crate::analyze::callgrind::Event>,
}

impl ProfileArgs {
    fn kind(self, lines: bool) -> commands::hotspots::ProfileKind {
        match self.event {
            Some(e) if !lines => commands::hotspots::ProfileKind::of_event(e),
            _ => profile_kind(self.alloc, self.instructions || lines),
        }
    }
}

/// An `--event` that is none of callgrind's simulated events.
#[derive(Debug, thiserror::Error)]
#[error("no event {0:?}: use one of {events}", events = crate::analyze::callgrind::Event::ALL.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "))]
struct UnknownEvent(String);

/// `--event NAME`: one of the events callgrind's simulation counts.
fn event_name(name: &str) -> Result<crate::analyze::callgrind::Event, UnknownEvent> {
    crate::analyze::callgrind::Event::named(name).ok_or_else(|| UnknownEvent(name.to_string()))
}

/// `--by` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ByArg {
    Function,
    Module,
    Crate,
    /// The type whose serialize or deserialize code runs.
    Type,
}

impl From<ByArg> for crate::profile::sources::By {
    fn from(b: ByArg) -> Self {
        use crate::profile::sources::By;
        match b {
            ByArg::Function => By::Function,
            ByArg::Module => By::Module,
            ByArg::Crate => By::Crate,
            ByArg::Type => By::Type,
        }
    }
}

fn profile_kind(alloc: bool, instructions: bool) -> commands::hotspots::ProfileKind {
    use commands::hotspots::ProfileKind;
    match (alloc, instructions) {
        (true, _) => ProfileKind::Alloc,
        (_, true) => ProfileKind::Instructions,
        _ => ProfileKind::Cpu,
    }
}

fn limits(min: f64, depth: usize) -> Result<ViewLimits> {
    if !(0.0..=100.0).contains(&min) {
        crate::misuse!("--min {min} is not a share between 0 and 100");
    }
    if depth == 0 {
        crate::misuse!("--depth 0 shows nothing: give 1 or more");
    }
    Ok(ViewLimits {
        min_percent: min,
        depth,
    })
}

fn dispatch(cli: Cli, program: &crate::model::Program) -> Result<ExitCode> {
    match cli.command {
        Command::List { json } => commands::list::run(program, json),
        Command::Run(args) => commands::run::run(program, &args),
        Command::BeforeAfter(args) => commands::before_after::run(program, &args),
        Command::Hotspots {
            path,
            top,
            matching,
            profile,
            backtraces,
            by,
            lines,
            sites,
            min,
            depth,
            json,
            stray,
        } => {
            if let Some(stray) = stray {
                match backtraces {
                    true => crate::misuse!(
                        "hotspots: unexpected argument {stray:?}: --backtraces takes no value; name frames with --match REGEX"
                    ),
                    false => crate::misuse!(
                        "hotspots: unexpected argument {stray:?}: give one PATH"
                    ),
                }
            }
            let req = commands::hotspots::HotspotsRequest {
                path: &path,
                top,
                matching: matching.as_deref(),
                kind: profile.kind(lines),
                by: by.into(),
                backtraces,
                sites,
                limits: limits(min, depth)?,
                json,
            };
            match lines {
                true => commands::lines::run(&req),
                false => commands::hotspots::run(&req),
            }
        }
        Command::Explain { config, run, json } => commands::explain::run(&config, &run, json),
        Command::Flame {
            path,
            matching,
            from_loop,
            profile,
            out,
            from,
        } => {
            if from.is_some() {
                crate::misuse!("flame: name frames with --match REGEX");
            }
            commands::flame::run(
                &path,
                profile.kind(false),
                matching.as_deref(),
                from_loop,
                out.as_deref(),
            )
        }
        Command::Tree {
            path,
            matching,
            depth,
            min,
            by,
            profile,
            json,
            focus,
        } => {
            if focus.is_some() {
                crate::misuse!("tree: name frames with --match REGEX");
            }
            commands::tree::run(&commands::tree::TreeRequest {
                path: &path,
                matching: matching.as_deref(),
                kind: profile.kind(false),
                by: by.into(),
                limits: limits(min, depth)?,
                json,
            })
        }
        Command::Dataset { order, stats, json } if !program.is_local() => {
            crate::driver::serve(program, &Serve::Dataset { order, stats, json })
        }
        Command::Dataset { order, stats, json } => crate::serve::dataset::run(
            program,
            &crate::model::program::DatasetArgs { order, stats, json },
        ),
        Command::Encode { config, value } if !program.is_local() => {
            crate::driver::serve(program, &Serve::Encode { config, value })
        }
        Command::Encode { config, value } => {
            crate::serve::codec_io::encode(program, &config, value)
        }
        Command::Decode { config, file, json } if !program.is_local() => {
            crate::driver::serve(program, &Serve::Decode { config, file, json })
        }
        Command::Decode { config, file, json } => {
            crate::serve::codec_io::decode(program, &config, file.as_deref(), json)
        }
        Command::Report { run_dir } => commands::report::run(program, &run_dir),
        Command::Compare {
            before,
            after,
            out,
            json,
        } => commands::compare::run(&before, &after, out.as_deref(), json),
        Command::Ab {
            config_a,
            config_b,
            rounds,
            processes,
            cpu,
            out,
            json,
        } => commands::ab::run(
            program,
            &crate::run::ab::AbRequest {
                a: config_a,
                b: config_b,
                rounds,
                processes,
                cpu: cpu.unwrap_or(crate::run::placement::CpuChoice::Auto),
                out,
            },
            json,
        ),
        Command::Doctor { json } => commands::doctor::run(program, json),
        Command::Check {
            baseline,
            current,
            max_regression,
            bmf,
            json,
        } => commands::check::run(&baseline, &current, max_regression, json, bmf.as_deref()),
    }
}
