//! A measured program without the driver (a binary that ends in `serprof::main!` on a serprof
//! built without the `driver` feature): its command line is handed to the installed driver
//! (`serprof --program THIS ARGS...`), once the driver is found and speaks this program's
//! protocol.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::model::Program;
use crate::protocol::{identity_of, PROTOCOL};

/// Without the driver, a worker child logs nothing of its own.
pub(super) fn worker_tracing() {}

/// The command line of a measured program without the driver: handed to the installed driver
/// (`serprof --program THIS ARGS...`, replacing this process), or one line saying how to
/// install it.
pub(super) fn command_line(program: &Program, args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let this = program.exe();
    let Some(driver) = find_driver(this) else {
        eprintln!(
            "serprof: error: {} is measured by the serprof driver, which is not installed: install it with `{}`, then run `serprof --help`",
            program.binary().bin,
            install_command()
        );
        return ExitCode::from(2);
    };
    if let Err(line) = check_driver(&driver) {
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

/// The command that installs the driver from the serprof this program was built with.
fn install_command() -> String {
    format!(
        "cargo install --locked --path {}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `SERPROF_DRIVER` (when set and not empty), else `serprof` on `PATH`, else
/// `$CARGO_HOME/bin/serprof` (cargo install's folder), never this program itself.
fn find_driver(this: &Path) -> Option<PathBuf> {
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
pub(crate) enum DriverMismatch {
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
fn check_driver(driver: &Path) -> Result<(), DriverMismatch> {
    let install = install_command();
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
