//! The hidden `testkit` study: test doubles for the harness's own tests, compiled only with the
//! `testkit` cargo feature (the tests turn it on). Each one misbehaves in one known way.

use std::hint::black_box;

use super::{Engine, Operation, Study};
use crate::dataset::orders;
use crate::external::postcard::Postcard;
use crate::model::{Order, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The study: the doubles that round-trip, then the serialize-only ones.
pub fn study() -> Study {
    let base = || {
        Study::new("testkit", "Test doubles for serprof's own tests")
            .source("serprof's test suite")
            .question("testkit", "testkit code")
            .hidden()
            .dataset_static(crate::dataset::ORDERS, crate::dataset::orders)
            .shared_references(Order::shares_references)
            .describe_difference(Order::first_difference)
    };
    let round_trips: Study = round_trip_doubles()
        .into_iter()
        .fold(base(), |s, e| s.engine(e))
        .into();
    let serialize_only: Study = serialize_doubles()
        .into_iter()
        .fold(base(), |s, e| s.engine(e))
        .operations([Operation::Serialize])
        .into();
    serialize_only
        .into_parts()
        .1
        .into_iter()
        .fold(round_trips, Study::config)
}

/// A double as an engine of the study.
fn double<C: Codec<Order> + 'static>(
    name: &str,
    make: impl Fn() -> C + Send + Sync + 'static,
) -> Engine<Order> {
    Engine::new(name, move || Ok(make()))
        .library("testkit", "serprof")
        .frames("testkit|postcard")
        .feature("testkit")
        .notes("a test double")
}

fn round_trip_doubles() -> Vec<Engine<Order>> {
    [
        ("ok", Misbehaviour::None),
        ("drop-field", Misbehaviour::DropField),
        ("panic", Misbehaviour::Panic),
        ("abort", Misbehaviour::Abort),
        ("hang", Misbehaviour::Hang),
        ("extra-work", Misbehaviour::ExtraWork),
        ("stack-overflow", Misbehaviour::StackOverflow),
        ("oom", Misbehaviour::Oom),
    ]
    .into_iter()
    .map(|(name, m)| double(name, move || Faulty(m)))
    .collect()
}

fn serialize_doubles() -> Vec<Engine<Order>> {
    vec![
        double("alloc-3x1000", || AllocPattern {
            buffers: 3,
            size: 1000,
        }),
        double("no-alloc", || AllocPattern {
            buffers: 0,
            size: 0,
        }),
    ]
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
            call: Default::default(),
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
            call: Default::default(),
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
    /// Heap buffers per encode.
    pub buffers: usize,
    /// Bytes in each buffer.
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

/// A test double for the `corrupt` study's tests: postcard with native byte arrays, except that
/// an input of exactly 1, 2, 3 or 4 bytes makes it panic, abort, hang or allocate without bound.
/// Valid payloads are far longer, so verification passes, and the first truncations of the
/// corrupt study's inputs hit each misbehaviour once, at inputs 4, 8, 12 and 16 (binary formats
/// cycle through four mutation kinds).
pub struct Trap;

impl Codec<Order> for Trap {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Postcard {
            call: Default::default(),
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
                call: Default::default(),
                bytes: SerdeBytes::Native,
            }
            .decode(bytes),
        }
    }
}

/// The trap as an engine (of the corrupt study).
pub fn trap() -> Engine<Order> {
    double("testkit-trap", || Trap).notes(
        "a test double: postcard, except that inputs truncated to 1, 2, 3 or 4 bytes make it \
         panic, abort, hang or allocate without bound",
    )
}
