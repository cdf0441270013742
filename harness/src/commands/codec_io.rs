//! `serprof encode` and `serprof decode`: what an engine writes, and what it accepts.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serprof_engines::casestudy::bytes_json::{write_order, Options};
use serprof_engines::dataset::{orders, sample_list};
use serprof_engines::studies::AnyCodec;

use crate::error::misuse_err;

/// Stack of the thread `serprof decode` decodes on (virtual memory, touched only as used).
const DECODE_STACK_BYTES: usize = 1 << 30;
use crate::misuse;
use crate::run::plan as select;

fn make(config: &str) -> Result<AnyCodec> {
    let c = select::one(config)?;
    c.codec().map_err(|e| anyhow::anyhow!("{config}: {e}"))
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
        AnyCodec::Document(_) => {
            misuse!("{config} runs on a document of the corpus study; encode takes Order or Sample configurations")
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
    // Third-party decoders may panic or recurse deeply on damaged input (sonic-rs 0.5.10
    // overflows an 8 MiB stack on 100,000 nested `[`; see the corrupt study): decode on a
    // thread with a large stack and turn a panic into the command's error.
    let decoded = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("decode".into())
            .stack_size(DECODE_STACK_BYTES)
            .spawn_scoped(scope, || {
                let mut out = Vec::new();
                let decoded = match codec {
                    AnyCodec::Orders(mut c) => c
                        .decode(&mut input)
                        .map(|o| write_order(&o, &Options::jackson(), &mut out)),
                    AnyCodec::Samples(mut c) => c.decode(&mut input).map(|s| {
                        out = serde_json::to_vec(&s).unwrap_or_default();
                    }),
                    AnyCodec::Document(_) => {
                        return Err(format!(
                            "{config} runs on a document of the corpus study; decode takes Order or Sample configurations"
                        ))
                    }
                };
                decoded.map(|()| out).map_err(|e| e.to_string())
            })
            .context("cannot start the decoding thread")?;
        Ok::<_, anyhow::Error>(worker.join().unwrap_or_else(|p| {
            let msg = crate::process::panic_text(p.as_ref());
            Err(format!("the decoder panicked: {msg}"))
        }))
    })?;
    match decoded {
        Ok(mut out) => {
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
