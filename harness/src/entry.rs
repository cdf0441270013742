//! Where every serprof binary starts (`serprof::main!` expands to [`main_with`]): the hidden
//! commands a driver sends to a measured program (worker children, identity, description,
//! served commands), then either the command line (with the `driver` feature) or the hand-off
//! of the command to the installed driver (without it).

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Result;

use crate::model::described::Description;
use crate::model::program::Builtins;
use crate::model::{Binary, Program};
use crate::protocol::{
    Identity, Serve, WorkerArgs, WorkerRequest, DESCRIBE_COMMAND, IDENTITY_COMMAND, PROTOCOL,
    SERVE_COMMAND, WORKER_COMMAND,
};

/// The command that installs the driver from the serprof this program was built with.
#[cfg(not(feature = "driver"))]
pub(crate) fn install_command() -> String {
    format!(
        "cargo install --locked --path {}",
        env!("CARGO_MANIFEST_DIR")
    )
}

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
    #[cfg(feature = "driver")]
    crate::cli::init_worker_tracing();
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
    use crate::commands::{codec_io, dataset};
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

/// The command line, in a binary with the driver.
#[cfg(feature = "driver")]
fn command_line(program: &Program, args: Vec<OsString>) -> ExitCode {
    crate::cli::main(program, args)
}

/// The command line of a measured program without the driver: handed to the installed driver
/// (`serprof --program THIS ARGS...`, replacing this process), or one line saying how to
/// install it.
#[cfg(not(feature = "driver"))]
fn command_line(program: &Program, args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let this = program.exe();
    let Some(driver) = handoff::find_driver(this) else {
        eprintln!(
            "serprof: error: {} is measured by the serprof driver, which is not installed: install it with `{}`, then run `serprof --help`",
            program.binary().bin,
            install_command()
        );
        return ExitCode::from(2);
    };
    if let Err(line) = handoff::check_driver(&driver) {
        eprintln!("serprof: error: {line}");
        return ExitCode::from(2);
    }
    let err = std::process::Command::new(&driver)
        .arg("--program")
        .arg(this)
        .args(&args[1..])
        .exec();
    eprintln!(
        "serprof: error: cannot run the serprof driver {}: {err}",
        driver.display()
    );
    ExitCode::from(2)
}

/// Finding the installed driver and checking that it speaks this program's protocol.
#[cfg(not(feature = "driver"))]
mod handoff {
    use std::path::{Path, PathBuf};

    use crate::protocol::{identity_of, PROTOCOL};

    /// `SERPROF_DRIVER` (when set and not empty), else `serprof` on `PATH`, else
    /// `$CARGO_HOME/bin/serprof` (cargo install's folder), never this program itself.
    pub(super) fn find_driver(this: &Path) -> Option<PathBuf> {
        if let Some(d) = std::env::var_os("SERPROF_DRIVER").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(d));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
        let this = this.canonicalize().ok();
        std::env::split_paths(&path)
            .chain(cargo_home.map(|h| h.join("bin")))
            .map(|dir| dir.join("serprof"))
            .find(|exe| exe.is_file() && exe.canonicalize().ok() != this)
    }

    /// Why `driver` cannot measure this program (its protocol is another, or it did not say).
    #[derive(Debug, thiserror::Error)]
    pub(super) enum DriverMismatch {
        /// It speaks another worker protocol.
        #[error("the installed serprof driver {} (serprof {version}) speaks worker protocol {protocol} and this program protocol {PROTOCOL}: install the driver of this program's serprof with `{install}`", driver.display())]
        Protocol {
            driver: PathBuf,
            version: String,
            protocol: u32,
            install: String,
        },
        /// It did not answer `__protocol` as a serprof binary does (`why`: what went wrong).
        #[error("{why}: install the driver of this program's serprof with `{install}`")]
        Unanswered { why: String, install: String },
    }

    /// Checks that `driver` speaks this program's protocol.
    pub(super) fn check_driver(driver: &Path) -> Result<(), DriverMismatch> {
        let install = super::install_command();
        match identity_of(driver) {
            Ok(id) if id.protocol == PROTOCOL => Ok(()),
            Ok(id) => Err(DriverMismatch::Protocol {
                driver: driver.to_path_buf(),
                version: id.serprof_version,
                protocol: id.protocol,
                install,
            }),
            Err(e) => Err(DriverMismatch::Unanswered {
                why: e.to_string(),
                install,
            }),
        }
    }
}
