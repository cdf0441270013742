//! Where every serprof binary starts (`serprof::main!` expands to [`main_with`]): the hidden
//! commands a driver sends to a measured program (worker children, identity, description,
//! served commands), then either the command line (with the `driver` feature) or the hand-off
//! of the command to the installed driver (without it).

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Result;

#[cfg(feature = "driver")]
use crate::cli::{init_worker_tracing as worker_tracing, main as command_line};
use crate::model::described::Description;
use crate::model::program::Builtins;
use crate::model::{Binary, Program};
use crate::protocol::{
    Identity, Serve, WorkerArgs, WorkerRequest, DESCRIBE_COMMAND, IDENTITY_COMMAND, PROTOCOL,
    SERVE_COMMAND, WORKER_COMMAND,
};
#[cfg(not(feature = "driver"))]
use handoff::{command_line, worker_tracing};

/// A measured program without the driver: its command line handed to the installed driver.
#[cfg(not(feature = "driver"))]
mod handoff;

/// The `main` of a binary that measures `studies`: sets the process's studies and binary, then
/// serves a hidden command or runs (or hands off) the command line. Errors become one line on
/// stderr and exit code 2 (misuse) or 1.
pub(crate) fn main_with(
    binary: Binary,
    studies: fn() -> Vec<serprof_api::Study>,
    builtins: fn(&[serprof_api::Study]) -> Builtins,
) -> ExitCode {
    // Like other Unix tools, end quietly when stdout is closed early (`serprof list | head`)
    // instead of panicking on EPIPE.
    // SAFETY: setting a signal disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    if let Some(line) = crate::model::cpu_check::refusal() {
        eprintln!("serprof: error: {line}");
        return ExitCode::from(2);
    }
    std::hint::black_box(crate::protocol::PROGRAM_MARKER);
    let args: Vec<OsString> = std::env::args_os().collect();
    let studies = studies();
    // A study that cannot be measured as described stops the program before anything runs.
    if let Some(problem) = studies.iter().find_map(serprof_api::Study::problem) {
        eprintln!("serprof: error: {problem}");
        return ExitCode::from(2);
    }
    let builtins = builtins(&studies);
    let program = Program::new(binary, studies, builtins);
    let hidden = args.get(1).and_then(|a| a.to_str());
    let outcome = match hidden {
        Some(WORKER_COMMAND) => worker(&program, &args[2..]),
        Some(IDENTITY_COMMAND) => print_json(&Identity::this(program.git_rev())),
        Some(DESCRIBE_COMMAND) => print_json(&Description::of(&program, PROTOCOL)),
        Some(SERVE_COMMAND) => serve(&program, &args[2..]),
        _ => return command_line(&program, args),
    };
    crate::error::finish(outcome)
}

fn print_json(value: &impl serde::Serialize) -> Result<ExitCode> {
    println!("{}", serde_json::to_string(value)?);
    Ok(ExitCode::SUCCESS)
}

/// A worker child: the request its parent sent, done.
fn worker(program: &Program, args: &[OsString]) -> Result<ExitCode> {
    // With the driver, a child's spans join the parent's `--trace-json` file.
    worker_tracing();
    match WorkerArgs::parse(args)?.request()? {
        WorkerRequest::Record(r) => crate::measure::run(program, &r)?,
        WorkerRequest::Corrupt(r) => crate::measure::corrupt::run(program, &r)?,
        WorkerRequest::Timing(r) => crate::measure::timing::serve(program, &r)?,
        WorkerRequest::Probe { batches } => {
            crate::measure::reference::probe_process(program, batches)?
        }
        WorkerRequest::Recorder { fds, fork } => {
            crate::measure::recorder::serve(program, fds, fork)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A command the driver has this program serve on its own values.
fn serve(program: &Program, args: &[OsString]) -> Result<ExitCode> {
    let json = args.first().and_then(|a| a.to_str()).unwrap_or_default();
    let request: Serve = serde_json::from_str(json)
        .map_err(|e| anyhow::anyhow!("unreadable {SERVE_COMMAND} request: {e}"))?;
    use crate::serve::{codec_io, dataset};
    match request {
        Serve::Encode { config, value } => codec_io::encode(program, &config, value),
        Serve::Decode { config, file, json } => {
            codec_io::decode(program, &config, file.as_deref(), json)
        }
        Serve::Dataset { order, stats, json } => dataset::run(
            program,
            &crate::model::program::DatasetArgs { order, stats, json },
        ),
    }
}
