//! `serprof report RUN_DIR`: rewrites `RUN_DIR/report.html` from the run's files (after a
//! `serprof compare` added diff flame graphs, or to show the folder with this build's report)
//! and prints its path. Given a before-after folder, it rewrites `before-after.html` and
//! `before-after.txt` from `before-after.json`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::misuse;
use crate::model::Program;

/// Rewrites the report of `run_dir` (a run folder or a `latest` link to one). A missing folder
/// or a missing or corrupt `run.json` is a misuse error (exit 2).
pub(crate) fn run(program: &Program, run_dir: &Path) -> Result<ExitCode> {
    if !run_dir.is_dir() {
        misuse!(
            "{} is not a run folder (give a folder like snapshots/latest)",
            run_dir.display()
        );
    }
    // A before-after folder: its page and table again, from its record.
    let record_file = run_dir.join(crate::layout::BEFORE_AFTER_JSON);
    if record_file.is_file() {
        let record: crate::analyze::before_after::BeforeAfterRecord =
            crate::layout::read_json(&record_file)?;
        let dir = run_dir
            .canonicalize()
            .map_err(|e| crate::error::misuse_err(format!("{}: {e}", run_dir.display())))?;
        let page = crate::run::before_after::write_views(&record, &dir)?;
        println!("{}", page.display());
        return Ok(ExitCode::SUCCESS);
    }
    if !run_dir.join(crate::layout::RUN_JSON).is_file() {
        misuse!(
            "{} has no run.json: it is not a run folder (give a folder like snapshots/latest)",
            run_dir.display()
        );
    }
    let path = crate::render::report::write(program, run_dir)?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}
