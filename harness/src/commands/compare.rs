//! `serprof compare`: placeholder until compare lands (issue 7).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

pub fn run(before: &Path, after: &Path, _out: Option<&Path>, _json: bool) -> Result<ExitCode> {
    anyhow::bail!(
        "serprof compare is not built yet ({} vs {})",
        before.display(),
        after.display()
    )
}
