//! The hidden `testkit` study: test doubles for the harness's own tests, enabled only when the
//! environment variable [`super::TESTKIT_ENV`] is `1`. Each one misbehaves in one known way.

use std::hint::black_box;

use super::{AnyCodec, Config, ConfigInfo, DatasetKind, Format, Operation, StudyInfo};
use crate::codec::{Codec, CodecError};
use crate::dataset::orders;
use crate::external::postcard::Postcard;
use crate::model::{Order, SerdeBytes};

pub fn study() -> StudyInfo {
    StudyInfo {
        name: "testkit",
        title: "Test doubles for serprof's own tests",
        source: "serprof's test suite",
        hotspot_match: Some("testkit"),
        baseline: None,
        hidden: true,
    }
}

/// What a test double does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehaviour {
    /// Nothing: postcard with native bytes.
    None,
    /// Decode forgets `notes`: verification must fail.
    DropField,
    /// Decode panics.
    Panic,
    /// Encode aborts the process.
    Abort,
    /// Decode never returns.
    Hang,
    /// Decode allocates without bound.
    Oom,
}

/// postcard, with one misbehaviour.
pub struct Faulty(pub Misbehaviour);

impl Codec<Order> for Faulty {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if self.0 == Misbehaviour::Abort {
            std::process::abort();
        }
        Postcard {
            bytes: SerdeBytes::Native,
        }
        .encode(value, out)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        match self.0 {
            Misbehaviour::Panic => panic!("testkit engine panics on purpose"),
            Misbehaviour::Hang => loop {
                std::thread::sleep(std::time::Duration::from_millis(10));
            },
            Misbehaviour::Oom => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    let mut chunk = vec![1u8; 64 << 20];
                    chunk[0] = black_box(2);
                    hoard.push(black_box(chunk));
                }
            }
            _ => {}
        }
        let mut order: Order = Postcard {
            bytes: SerdeBytes::Native,
        }
        .decode(bytes)?;
        if self.0 == Misbehaviour::DropField {
            order.notes = None;
        }
        Ok(order)
    }
}

/// A serialize-only engine with a known allocation pattern per encode: `buffers` heap buffers of
/// `size` bytes each, dropped before returning. The payload is the Order's id; decode looks the
/// Order up in the dataset (verification only, never measured).
pub struct AllocPattern {
    pub buffers: usize,
    pub size: usize,
}

impl Codec<Order> for AllocPattern {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        for _ in 0..self.buffers {
            let v = black_box(vec![0u8; self.size]);
            drop(v);
        }
        out.extend_from_slice(value.id.as_bytes());
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        let id = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        orders()
            .iter()
            .find(|o| o.id == id)
            .cloned()
            .ok_or_else(|| CodecError::Decode(format!("no order with id {id:?}")))
    }
}

fn info(config: &'static str, operation: Operation) -> ConfigInfo {
    ConfigInfo {
        study: "testkit",
        config,
        engine: "testkit",
        engine_version: "serprof",
        format: Format::Binary,
        dataset: DatasetKind::Orders,
        operation,
        engine_frames: "testkit|postcard",
        notes: "a test double",
    }
}

pub fn configs() -> Vec<Config> {
    fn faulty(m: Misbehaviour) -> Result<AnyCodec, CodecError> {
        Ok(AnyCodec::Orders(Box::new(Faulty(m))))
    }
    vec![
        Config {
            info: info("ok", Operation::RoundTrip),
            make: || faulty(Misbehaviour::None),
        },
        Config {
            info: info("drop-field", Operation::RoundTrip),
            make: || faulty(Misbehaviour::DropField),
        },
        Config {
            info: info("panic", Operation::RoundTrip),
            make: || faulty(Misbehaviour::Panic),
        },
        Config {
            info: info("abort", Operation::RoundTrip),
            make: || faulty(Misbehaviour::Abort),
        },
        Config {
            info: info("hang", Operation::RoundTrip),
            make: || faulty(Misbehaviour::Hang),
        },
        Config {
            info: info("oom", Operation::RoundTrip),
            make: || faulty(Misbehaviour::Oom),
        },
        Config {
            info: info("alloc-3x1000", Operation::Serialize),
            make: || {
                Ok(AnyCodec::Orders(Box::new(AllocPattern {
                    buffers: 3,
                    size: 1000,
                })))
            },
        },
        Config {
            info: info("no-alloc", Operation::Serialize),
            make: || {
                Ok(AnyCodec::Orders(Box::new(AllocPattern {
                    buffers: 0,
                    size: 0,
                })))
            },
        },
    ]
}
