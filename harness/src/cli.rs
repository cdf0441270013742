//! The command line (DESIGN.md "Command line"): parsing and dispatch only; the work lives in
//! the library's modules.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{ArgAction, Parser, Subcommand};

use crate::settings::Settings;
use crate::worker::Recording;
use crate::{commands, runner};

/// serprof: a profiling-instrumented research harness for serialization engines.
///
/// Every engine configuration runs under a pprof-rs sampler that writes its own flame graph,
/// with timing, payload size and allocation figures.
#[derive(Debug, Parser)]
#[command(name = "serprof", version, about, long_about = None)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Append serprof's own spans (verify, warm-up, timing, cpu, alloc, render; with their
    /// durations) to FILE as JSON lines, worker children included.
    #[arg(long, value_name = "FILE", global = true)]
    pub trace_json: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List studies and their configurations.
    List {
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Measure configurations: verify, time, sample CPU, count allocations; write a run folder.
    Run(RunArgs),
    /// Hot spots of a profile: self and total share per function.
    Hotspots {
        /// A configuration folder (e.g. snapshots/latest/formats/serde_json) or a .folded file.
        path: PathBuf,
        /// Rows to show.
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Also print the inclusive share of samples whose stack has a frame matching REGEX.
        #[arg(long = "match", value_name = "REGEX")]
        matching: Option<String>,
        /// Use the allocation profile (alloc.folded, bytes) instead of the CPU profile.
        #[arg(long)]
        alloc: bool,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The Order dataset as Jackson-mapping JSON (one Order per line), or its facts.
    Dataset {
        /// Print only Order N (0 to 199).
        #[arg(long, value_name = "N")]
        order: Option<usize>,
        /// Print the dataset's facts (counts, bytes) instead.
        #[arg(long, conflicts_with = "order")]
        stats: bool,
        /// With --stats: print one JSON document.
        #[arg(long, requires = "stats")]
        json: bool,
    },
    /// Write Order N as CONFIG encodes it to stdout.
    Encode {
        /// A configuration, STUDY/CONFIG (see `serprof list`).
        config: String,
        /// The Order to encode (0 to 199); omit for configurations of the Sample list.
        #[arg(long, value_name = "N")]
        order: Option<usize>,
    },
    /// Decode a payload (FILE or stdin) with CONFIG and print it as Jackson-mapping JSON.
    Decode {
        /// A configuration, STUDY/CONFIG (see `serprof list`).
        config: String,
        /// The payload; stdin when absent or `-`.
        file: Option<PathBuf>,
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
        /// Where to write compare.json and the diff flame graphs (default: AFTER/compare-<name>).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Interleaved A/B timing of two configurations (A B A B ...): the median ratio of pairs
    /// and its interval, for changes of a few percent on a noisy machine.
    Ab {
        /// Configuration A, STUDY/CONFIG.
        config_a: String,
        /// Configuration B, STUDY/CONFIG.
        config_b: String,
        /// Pairs of batches.
        #[arg(long, value_name = "N")]
        rounds: Option<usize>,
        /// Where to write the ab run folder (default: snapshots).
        #[arg(long, value_name = "DIR", default_value = "snapshots")]
        out: PathBuf,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Internal: decode the corrupt study's inputs for one configuration, in a guarded child.
    #[command(name = "__corrupt-worker", hide = true)]
    CorruptWorker {
        #[arg(long)]
        config: String,
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        settings: String,
        /// Index of the first input to decode.
        #[arg(long, default_value_t = 0)]
        start: usize,
    },
    /// Internal: one recording of one configuration, in a child process.
    #[command(name = "__worker", hide = true)]
    Worker {
        #[arg(long)]
        config: String,
        #[arg(long, value_enum)]
        recording: Recording,
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        settings: String,
    },
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
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
    /// Parent folder of run folders.
    #[arg(long, value_name = "DIR", default_value = "snapshots")]
    pub out: PathBuf,
    /// Requested CPU sampling rate in Hz (the kernel tick caps it near 250 Hz here).
    #[arg(long, value_name = "HZ")]
    pub frequency: Option<u32>,
    /// CPU samples to collect per configuration (default 2,000; --quick 300).
    #[arg(long, value_name = "N")]
    pub cpu_samples: Option<u64>,
    /// Skip the CPU recording.
    #[arg(long)]
    pub no_cpu: bool,
    /// Skip the allocation recording.
    #[arg(long)]
    pub no_alloc: bool,
    /// Sample one allocation stack every N allocated bytes (default 65536).
    #[arg(long, value_name = "N")]
    pub alloc_sample_bytes: Option<u64>,
    /// Timed batches per configuration (default 60; --quick 15).
    #[arg(long, value_name = "N")]
    pub batches: Option<usize>,
    /// Kill a worker child after this many seconds (default 300).
    #[arg(long, value_name = "SECONDS")]
    pub child_timeout: Option<u64>,
    /// Address-space cap of a worker child in MiB (default 4096; 0 for none).
    #[arg(long, value_name = "MIB")]
    pub memory_cap: Option<u64>,
    /// Finish an interrupted run folder: measure only the configurations it is missing.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["studies", "configs", "quick"])]
    pub resume: Option<PathBuf>,
    /// Print the results as one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl RunArgs {
    /// The settings these flags ask for.
    pub fn settings(&self) -> Result<Settings> {
        let mut s = if self.quick {
            Settings::quick()
        } else {
            Settings::defaults()
        };
        if let Some(hz) = self.frequency {
            if !(1..=10_000).contains(&hz) {
                crate::misuse!("--frequency {hz}: give a rate between 1 and 10000 Hz");
            }
            s.frequency_hz = hz;
        }
        if let Some(n) = self.cpu_samples {
            if n == 0 {
                crate::misuse!("--cpu-samples must be at least 1");
            }
            s.cpu_samples = n;
        }
        if let Some(n) = self.alloc_sample_bytes {
            s.alloc_sample_bytes = n;
        }
        if let Some(n) = self.batches {
            if n == 0 {
                crate::misuse!("--batches must be at least 1");
            }
            s.batches = n;
        }
        if let Some(t) = self.child_timeout {
            s.child_time_cap_s = t.max(1);
        }
        if let Some(m) = self.memory_cap {
            s.memory_cap_mib = m;
        }
        s.cpu = !self.no_cpu;
        s.alloc = !self.no_alloc;
        Ok(s)
    }
}

/// Environment variable through which worker children inherit `--trace-json`.
const TRACE_JSON_ENV: &str = "SERPROF_TRACE_JSON";

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

/// Parses the command line and runs it. Errors become one line on stderr and exit code 1 or 2
/// (see [`crate::error`]).
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let outcome = init_tracing(cli.verbose, cli.trace_json.as_deref()).and_then(|()| dispatch(cli));
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("serprof: error: {}", crate::error::one_line(&e));
            ExitCode::from(crate::error::exit_code_of(&e))
        }
    }
}

/// Help and version print as clap prints them; a usage error becomes one line on stderr and
/// exit code 2, like every other misuse.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(e.exit_code() as u8)
        }
        _ => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid command line");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("serprof: error: {first} (see `serprof --help`)");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::List { json } => commands::list::run(json),
        Command::Run(args) => run(&args),
        Command::Hotspots {
            path,
            top,
            matching,
            alloc,
            json,
        } => commands::hotspots::run(&path, top, matching.as_deref(), alloc, json),
        Command::Dataset { order, stats, json } => commands::dataset::run(order, stats, json),
        Command::Encode { config, order } => commands::codec_io::encode(&config, order),
        Command::Decode { config, file } => commands::codec_io::decode(&config, file.as_deref()),
        Command::Report { run_dir } => commands::report::run(&run_dir),
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
            out,
            json,
        } => commands::ab::run(&config_a, &config_b, rounds, &out, json),
        Command::CorruptWorker {
            config,
            dir,
            settings,
            start,
        } => {
            let settings: Settings = serde_json::from_str(&settings)?;
            crate::corrupt::worker(&config, &dir, &settings, start)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Worker {
            config,
            recording,
            dir,
            settings,
        } => {
            let settings: Settings = serde_json::from_str(&settings)?;
            crate::worker::run(&config, recording, &dir, &settings)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run(args: &RunArgs) -> Result<ExitCode> {
    let req = runner::RunRequest {
        studies: args.studies.clone(),
        configs: args.configs.clone(),
        out: args.out.clone(),
        settings: args.settings()?,
        resume: args.resume.clone(),
        resume_child_timeout: args.child_timeout.map(|t| t.max(1)),
        resume_memory_cap: args.memory_cap,
        quiet: args.quiet,
    };
    let outcome = runner::run(&req)?;
    if args.json {
        let doc = serde_json::json!({
            "run_dir": outcome.run_dir,
            "complete": outcome.manifest.complete,
            "failed": outcome.manifest.failed,
            "results": outcome.results,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", crate::render::table::render(&outcome.results));
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
