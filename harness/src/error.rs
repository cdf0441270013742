//! Exit codes (docs/ARCHITECTURE.md, "Conventions"): 0 done; 1 the command ran but what
//! it checked failed; 2 misuse the user must fix (unknown names, bad flags, missing, unreadable
//! or corrupt input files and folders).

use std::fmt;

/// An error the user must fix: exit code 2.
#[derive(Debug)]
pub(crate) struct Misuse(pub String);

impl fmt::Display for Misuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Misuse {}

/// Returns early with a `Misuse` error built like `format!`.
#[macro_export]
macro_rules! misuse {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::error::Misuse(format!($($arg)*))))
    };
}

/// Wraps any error as a [`Misuse`] with context, for input the user gave us.
pub(crate) fn misuse_err(e: impl fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Misuse(e.to_string()))
}

/// The exit code for an error that ended a command.
pub(crate) fn exit_code_of(e: &anyhow::Error) -> u8 {
    if e.chain().any(|c| c.is::<Misuse>()) {
        2
    } else {
        1
    }
}

/// One line for a user: the error and its causes, joined.
pub(crate) fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ").replace('\n', " ")
}

/// An outcome as an exit code, an error as one line on stderr.
pub(crate) fn finish(outcome: anyhow::Result<std::process::ExitCode>) -> std::process::ExitCode {
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("serprof: error: {}", one_line(&e));
            std::process::ExitCode::from(exit_code_of(&e))
        }
    }
}
