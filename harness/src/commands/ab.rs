//! `serprof ab`: placeholder until A/B timing lands (issue 7).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

pub fn run(a: &str, b: &str, _rounds: Option<usize>, _out: &Path, _json: bool) -> Result<ExitCode> {
    anyhow::bail!("serprof ab is not built yet ({a} vs {b})")
}
