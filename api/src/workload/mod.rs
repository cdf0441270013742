//! The measured workload of one configuration: its codec on its dataset, its verification, and
//! the measured loops every recording (timing, CPU samples, allocations, instructions) runs.
//!
//! Every recording runs the same measured loop ([`Workload::run`]) over the same dataset; a loop
//! holds nothing but the engine's work (clear the one reused output buffer, encode, decode,
//! drop), so a profiler or a counting allocator sees the codec and not the harness. The loops
//! are functions of their own, never inlined, so that callgrind can count exactly one call of
//! one of them ([`Workload::loop_function`] names it).
//!
//! [`Workload`] is the type-erased face the harness drives; [`Values`] is the workload of a
//! [`Codec<T>`](crate::Codec) on a dataset of `T`s, which the study builder makes. A workload of another shape
//! (the corpus study's documents) implements the trait itself.

mod diff;
mod documents;
mod seam;
mod values;

use std::time::{Duration, Instant};

use crate::codec::CodecError;

pub use diff::{debug_difference, DebugDiff};
pub use documents::{documents_loop, DocumentCodec, Documents};
pub use seam::{
    Checks, Damaged, Digester, JsonView, Operation, PairCheck, Property, Value, Verified, Workload,
};
pub use values::{values_loop, Data, Values};

/// Runs operations until `min` has passed, doubling the count each time; returns the
/// operations run and the time they took (a warm-up that also calibrates batch sizes).
pub fn warm_up(w: &mut dyn Workload, min: Duration) -> Result<(u64, Duration), CodecError> {
    let start = Instant::now();
    let mut ops = 0u64;
    let mut n = 1u64;
    while start.elapsed() < min {
        w.run(n)?;
        ops += n;
        n = (n * 2).min(1 << 20);
    }
    Ok((ops.max(1), start.elapsed()))
}

/// Operations per batch so that a batch lasts about `batch` given `ns_per_op`.
pub fn ops_per_batch(ns_per_op: f64, batch: Duration) -> u64 {
    ((batch.as_nanos() as f64 / ns_per_op.max(1.0)).round() as u64).max(1)
}

/// The regular expression over frame names that matches every measured loop (`serprof flame
/// --from-loop`).
pub const LOOP_FRAMES: &str = r"serprof_api::workload::\w+::\w+_loop";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{Finding, VerifyError};

    /// A document engine that overwrites the first byte of what it parses.
    struct Rewriter {
        payload: Vec<u8>,
        says_in_place: bool,
    }

    impl DocumentCodec for Rewriter {
        fn payload(&self) -> &[u8] {
            &self.payload
        }
        fn parses_in_place(&self) -> bool {
            self.says_in_place
        }
        fn parse(&mut self, input: &mut [u8]) -> Result<(), CodecError> {
            input[0] = b'!';
            Ok(())
        }
        fn serialize(&mut self, out: &mut Vec<u8>) -> Result<(), CodecError> {
            out.extend_from_slice(&self.payload);
            Ok(())
        }
        fn verify(&mut self) -> Result<Vec<Finding>, VerifyError> {
            Ok(Vec::new())
        }
    }

    fn rewriter(says_in_place: bool) -> Box<Rewriter> {
        Box::new(Rewriter {
            payload: b"[1]".to_vec(),
            says_in_place,
        })
    }

    #[test]
    fn only_in_place_parsers_get_a_copy_and_an_engine_that_hides_one_fails_verification() {
        let mut hidden = Documents::new(rewriter(false), Operation::Parse);
        let err = hidden.verify().unwrap_err().to_string();
        assert!(err.contains("parses_in_place"), "{err}");
        assert!(!hidden.copies_input());
        // Without a copy, the timed parse reads (and here rewrites) the payload itself.
        hidden.run(1).unwrap();
        assert_eq!(hidden.payload, b"!1]");

        let mut honest = Documents::new(rewriter(true), Operation::Parse);
        honest.verify().unwrap();
        assert!(honest.copies_input());
        honest.run(3).unwrap();
        // Every timed parse read an intact copy.
        assert_eq!(honest.payload, b"[1]");

        // A serialize never copies, whatever the engine says.
        assert!(!Documents::new(rewriter(true), Operation::Serialize).copies_input());
    }
}
