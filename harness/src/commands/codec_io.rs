//! `serprof encode` and `serprof decode`: what an engine writes, and what it accepts.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serprof_engines::casestudy::bytes_json::{write_order, Options};
use serprof_engines::dataset::{orders, sample_list};
use serprof_engines::studies::AnyCodec;

use crate::error::misuse_err;
use crate::{misuse, select};

fn make(config: &str) -> Result<AnyCodec> {
    let c = select::one(config)?;
    (c.make)().map_err(|e| anyhow::anyhow!("{config}: {e}"))
}

/// Writes the payload of Order `order` (or of the Sample list) as `config` encodes it.
pub fn encode(config: &str, order: Option<usize>) -> Result<ExitCode> {
    let mut out = Vec::new();
    match make(config)? {
        AnyCodec::Orders(mut c) => {
            let Some(n) = order else {
                misuse!(
                    "{config} encodes one Order: give --order N (0 to {})",
                    orders().len() - 1
                )
            };
            let Some(o) = orders().get(n) else {
                misuse!(
                    "--order {n} is out of range: the dataset has orders 0 to {}",
                    orders().len() - 1
                )
            };
            c.encode(o, &mut out)
                .map_err(|e| anyhow::anyhow!("{config}: {e}"))?;
        }
        AnyCodec::Samples(mut c) => {
            if order.is_some() {
                misuse!("{config} serializes the whole Sample list; it takes no --order");
            }
            c.encode(sample_list(), &mut out)
                .map_err(|e| anyhow::anyhow!("{config}: {e}"))?;
        }
    }
    std::io::stdout()
        .lock()
        .write_all(&out)
        .context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Decodes a payload (file or stdin) with `config` and prints it as Jackson-mapping JSON; a
/// malformed payload prints the decoder's error and exits 1.
pub fn decode(config: &str, file: Option<&Path>) -> Result<ExitCode> {
    let codec = make(config)?;
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
    let mut out = Vec::new();
    let decoded = match codec {
        AnyCodec::Orders(mut c) => c
            .decode(&mut input)
            .map(|o| write_order(&o, &Options::jackson(), &mut out)),
        AnyCodec::Samples(mut c) => c.decode(&mut input).map(|s| {
            out = serde_json::to_vec(&s).unwrap_or_default();
        }),
    };
    match decoded {
        Ok(()) => {
            out.push(b'\n');
            std::io::stdout()
                .lock()
                .write_all(&out)
                .context("cannot write to stdout")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("serprof: {config} could not decode the payload: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
