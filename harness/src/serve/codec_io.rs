//! `serprof encode` and `serprof decode`: what an engine writes, and what it accepts.
//!
//! `encode` writes the payload of one value of a configuration's dataset; `decode` reads a
//! payload and prints the value's `{:#?}`. Both work on any study's values, a user's own
//! included; a configuration of a document (the corpus study) holds one parsed value and takes
//! neither.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serprof_api::__private::Workload;

use crate::error::misuse_err;
use crate::misuse;
use crate::model::Program;

/// Stack of the thread `serprof decode` decodes on (virtual memory, touched only as used).
const DECODE_STACK_BYTES: usize = 1 << 30;

/// The workload of `config`: its codec on its dataset.
fn make(program: &Program, config: &str) -> Result<Box<dyn Workload>> {
    let c = program.one(config)?;
    c.config
        .workload()
        .map_err(|e| misuse_err(format!("{config}: {e}")))
}

/// Writes the payload of value `value` of `config`'s dataset (the only one when it has one).
pub(crate) fn encode(program: &Program, config: &str, value: Option<usize>) -> Result<ExitCode> {
    let mut w = make(program, config)?;
    let len = w.dataset_len();
    let index = match (value, len) {
        (Some(n), _) if n >= len => misuse!(
            "--value {n} is out of range: {config}'s dataset has values 0 to {}",
            len.saturating_sub(1)
        ),
        (Some(n), _) => n,
        (None, 1) => 0,
        (None, _) => misuse!(
            "{config}'s dataset has {len} values: give --value N (0 to {})",
            len - 1
        ),
    };
    let mut out = Vec::new();
    w.encode_value(index, &mut out)
        .map_err(|e| misuse_err(format!("{config}: {e}")))?;
    std::io::stdout()
        .lock()
        .write_all(&out)
        .context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Decodes a payload (file or stdin) with `config` and prints the value's `{:#?}`, or with
/// `json` its JSON where the study's type has a JSON view (a type that derives serde's traits,
/// measured with serprof's serde engines); a payload the engine refuses prints its error and
/// exits 1.
pub(crate) fn decode(
    program: &Program,
    config: &str,
    file: Option<&Path>,
    json: bool,
) -> Result<ExitCode> {
    let mut w = make(program, config)?;
    let mut input = Vec::new();
    match file {
        Some(p) if p != Path::new("-") => {
            input = std::fs::read(p)
                .map_err(|e| misuse_err(format!("cannot read {}: {e}", p.display())))?;
        }
        _ => {
            std::io::stdin()
                .lock()
                .read_to_end(&mut input)
                .context("cannot read stdin")?;
        }
    }
    // Third-party decoders may panic or recurse deeply on damaged input (sonic-rs 0.5.10
    // overflows an 8 MiB stack on 100,000 nested `[`; see the corrupt study): decode on a
    // thread with a large stack and turn a panic into the command's error.
    let decoded = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("decode".into())
            .stack_size(DECODE_STACK_BYTES)
            .spawn_scoped(scope, || {
                let text = if json {
                    w.decode_to_json(&mut input).map_err(Refused::Engine)?
                } else {
                    None
                };
                match text {
                    Some(text) => Ok(text),
                    None => {
                        if json {
                            eprintln!(
                                "serprof: {config}: its study's values have no JSON view (no serde engine of serprof's measures them): printed as {{:#?}}"
                            );
                        }
                        w.decode_to_text(&mut input).map_err(Refused::Engine)
                    }
                }
            })
            .context("cannot start the decoding thread")?;
        Ok::<_, anyhow::Error>(
            worker
                .join()
                .unwrap_or_else(|p| Err(Refused::Panicked(crate::process::panic_text(p.as_ref())))),
        )
    })?;
    match decoded {
        Ok(text) => {
            writeln!(std::io::stdout().lock(), "{text}").context("cannot write to stdout")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("serprof: {config} could not decode the payload: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Why a payload was not decoded.
#[derive(Debug, thiserror::Error)]
enum Refused {
    #[error("{0}")]
    Engine(serprof_api::CodecError),
    #[error("the decoder panicked: {0}")]
    Panicked(String),
}
