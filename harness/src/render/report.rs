//! `report.html`: placeholder until the report lands (issue 8).

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Writes `run_dir/report.html` from the run's files and returns its path.
pub fn write(run_dir: &Path) -> Result<PathBuf> {
    Ok(run_dir.join("report.html"))
}
