//! The hidden `testkit` study: test doubles for the harness's own tests, compiled only with the
//! `testkit` cargo feature (the tests turn it on). Each one misbehaves in one known way.

use std::hint::black_box;

use std::sync::Arc;

use super::{
    AnyCodec, Config, ConfigInfo, DatasetKind, Format, FramePattern, Operation, Question, Study,
    StudyInfo, StudyKind,
};
use crate::codec::{Codec, CodecError};
use crate::dataset::orders;
use crate::external::postcard::Postcard;
use crate::model::{Order, SerdeBytes};

pub fn study() -> Study {
    Study {
        info: StudyInfo {
            name: "testkit".into(),
            title: "Test doubles for serprof's own tests".into(),
            source: "serprof's test suite".into(),
            kind: StudyKind::Measured,
            question: Some(Question {
                frames: FramePattern::builtin("testkit"),
                label: "testkit share",
                caption: "Share of CPU samples in testkit code",
            }),
            baseline: None,
            steps: Vec::new(),
            hidden: true,
            budget: None,
        },
        configs: configs(),
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
    /// Decode recurses without bound: the thread overflows its stack.
    StackOverflow,
    /// Nothing wrong: `ok` plus exactly [`EXTRA_INSTRUCTIONS`] more instructions per encode
    /// (the instruction counts' known delta).
    ExtraWork,
}

/// Instructions [`extra_work`] executes beyond its call and return: that many `nop`s.
pub const EXTRA_INSTRUCTIONS: u64 = 10_000;

/// Executes exactly [`EXTRA_INSTRUCTIONS`] `nop`s (x86_64; elsewhere nothing, and the test that
/// counts them is x86_64 only).
#[inline(never)]
pub fn extra_work() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `nop`s touch no register, flag, memory or stack.
    unsafe {
        core::arch::asm!(
            ".rept 10000",
            "nop",
            ".endr",
            options(nomem, nostack, preserves_flags)
        );
    }
}

/// Never returns (a hang the guards must catch).
pub fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Allocates and touches 64 MiB chunks until the allocator fails.
pub fn hoard() -> ! {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut chunk = vec![1u8; 64 << 20];
        chunk[0] = black_box(2);
        hoard.push(black_box(chunk));
    }
}

/// Recurses until the stack overflows (each frame keeps a live 1 KiB array).
#[inline(never)]
#[allow(unconditional_recursion)]
pub fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth as u8; 1024]);
    recurse(depth + 1).wrapping_add(u64::from(frame[0]))
}

/// postcard, with one misbehaviour.
pub struct Faulty(pub Misbehaviour);

impl Codec<Order> for Faulty {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if self.0 == Misbehaviour::Abort {
            std::process::abort();
        }
        if self.0 == Misbehaviour::ExtraWork {
            extra_work();
        }
        Postcard {
            bytes: SerdeBytes::Native,
        }
        .encode(value, out)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        match self.0 {
            Misbehaviour::Panic => panic!("testkit engine panics on purpose"),
            Misbehaviour::Hang => hang(),
            Misbehaviour::Oom => hoard(),
            Misbehaviour::StackOverflow => {
                black_box(recurse(0));
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
            .ok_or_else(|| CodecError::decode(format_args!("no order with id {id:?}")))
    }
}

fn info(config: &'static str, operation: Operation) -> ConfigInfo {
    ConfigInfo {
        study: "testkit".into(),
        config: config.into(),
        engine: "testkit".into(),
        engine_version: "serprof".into(),
        format: Format::Binary,
        dataset: DatasetKind::Orders,
        operation,
        engine_frames: FramePattern::builtin("testkit|postcard"),
        notes: "a test double".into(),
        document: None,
    }
}

pub fn configs() -> Vec<Config> {
    fn faulty(m: Misbehaviour) -> Result<AnyCodec, CodecError> {
        Ok(AnyCodec::Orders(Box::new(Faulty(m))))
    }
    vec![
        Config {
            info: info("ok", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::None)),
        },
        Config {
            info: info("drop-field", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::DropField)),
        },
        Config {
            info: info("panic", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::Panic)),
        },
        Config {
            info: info("abort", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::Abort)),
        },
        Config {
            info: info("hang", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::Hang)),
        },
        Config {
            info: info("extra-work", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::ExtraWork)),
        },
        Config {
            info: info("stack-overflow", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::StackOverflow)),
        },
        Config {
            info: info("oom", Operation::RoundTrip),
            make: Arc::new(|| faulty(Misbehaviour::Oom)),
        },
        Config {
            info: info("alloc-3x1000", Operation::Serialize),
            make: Arc::new(|| {
                Ok(AnyCodec::Orders(Box::new(AllocPattern {
                    buffers: 3,
                    size: 1000,
                })))
            }),
        },
        Config {
            info: info("no-alloc", Operation::Serialize),
            make: Arc::new(|| {
                Ok(AnyCodec::Orders(Box::new(AllocPattern {
                    buffers: 0,
                    size: 0,
                })))
            }),
        },
    ]
}

/// A test double for the `corrupt` study's tests: postcard with native byte arrays, except that
/// an input of exactly 1, 2, 3 or 4 bytes makes it panic, abort, hang or allocate without bound.
/// Valid payloads are far longer, so verification passes, and the first truncations of the
/// corrupt study's inputs hit each misbehaviour once, at inputs 4, 8, 12 and 16 (binary formats
/// cycle through four mutation kinds).
pub struct Trap;

impl Codec<Order> for Trap {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Postcard {
            bytes: SerdeBytes::Native,
        }
        .encode(value, out)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        match bytes.len() {
            1 => panic!("testkit trap panics on a 1-byte input"),
            2 => std::process::abort(),
            3 => hang(),
            4 => hoard(),
            _ => Postcard {
                bytes: SerdeBytes::Native,
            }
            .decode(bytes),
        }
    }
}

/// The trap as a configuration (the corrupt study renames it into itself).
pub fn trap() -> Config {
    let mut info = info("testkit-trap", Operation::RoundTrip);
    info.notes = "a test double: postcard, except that inputs truncated to 1, 2, 3 or 4 bytes \
                  make it panic, abort, hang or allocate without bound"
        .into();
    Config::new(info, || Ok(AnyCodec::Orders(Box::new(Trap))))
}
