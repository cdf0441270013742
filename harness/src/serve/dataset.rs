//! `serprof dataset`: the Order dataset as Jackson-mapping JSON, or its facts. The command is
//! serprof's own: it exists where the program's studies include the Order dataset, and the
//! engines crate writes it (the crate root hands it over as a value).

use std::process::ExitCode;

use anyhow::Result;

use crate::misuse;
use crate::model::program::DatasetArgs;
use crate::model::Program;

pub(crate) fn run(program: &Program, args: &DatasetArgs) -> Result<ExitCode> {
    let Some(dataset) = program.dataset_command() else {
        misuse!(
            "dataset: this program's studies have no Order dataset (the command is serprof's own)"
        );
    };
    dataset(args, &mut std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}
