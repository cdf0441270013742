//! `serprof report RUN_DIR`: placeholder until the report lands (issue 8).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

pub fn run(run_dir: &Path) -> Result<ExitCode> {
    anyhow::bail!("serprof report is not built yet ({})", run_dir.display())
}
