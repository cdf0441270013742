//! The `corrupt` study (STUDIES.md): damaged payloads decoded in guarded children, one outcome
//! per input.
//!
//! The inputs are [`serprof_engines::studies::corrupt::corrupt_input`]: seeded mutations of the
//! engine's own valid payloads, 1,000 per engine (100 with `--quick`). For each configuration the
//! parent ([`measure_config`]) starts one guarded child (`serprof __corrupt-worker`, [`worker`])
//! that encodes and verifies the 200 Orders, then decodes the inputs in sequence and appends one
//! line per finished input to a progress file in the configuration's folder, flushed, so the
//! parent always knows which input a child was on when it died. A panic is caught in the child
//! (`catch_unwind`); an abort, a hang or the memory cap ends the child, and the parent records
//! that input's outcome and starts a new child from the next one (`--start`).
//!
//! Guards, and why they differ from the other recordings' ([`crate::child`]):
//! - time: [`PER_INPUT_CAP`] (2 s, or `--child-timeout` when smaller) between two finished
//!   inputs, not one cap for the whole child: a hang is a property of one input, and the decodes
//!   here take micro- to milliseconds. Setup (encode and verify) gets the whole child cap.
//! - memory: at most [`MEMORY_CAP_MIB`] (1 GiB) of address space, whatever `--memory-cap` says
//!   (a smaller `--memory-cap` wins). A length prefix inflated to 2^32 or 2^64 is exactly what the
//!   study probes, and an engine that believes it should fail fast, not swap the machine; so even
//!   `--memory-cap 0` (no cap for the other recordings) keeps this one.
//! - restarts: after [`MAX_HANGS`] hangs, or [`MAX_CHILD_DEATHS`] aborts and memory kills, of
//!   one configuration the remaining inputs are skipped (counted, with a warning), so an engine
//!   that hangs on every input costs half a minute, not half an hour. A restart after an abort
//!   costs tens of milliseconds, so that budget is large: sonic-rs dies on about 7% of the JSON
//!   inputs (deep nesting) and must still get through all 1,000.
//!
//! An engine's misbehaviour is the study's finding, not a failure: `ConfigResult.error` stays
//! `None` unless the harness itself failed (or the engine cannot round-trip its valid payloads),
//! and the outcomes go to `result.json`'s `corrupt` field, `outcomes.jsonl` (one line per
//! input) and `repro/<outcome>-<index>.bin` (the input itself, for every panic, abort, hang and
//! out-of-memory case up to [`REPRO_PER_OUTCOME`] of each, and the first few altered values).
//! [`render_table`] prints the study's table.

mod decode;
mod guard;
mod outcome;
mod parent;
mod table;

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::settings::Settings;

pub use outcome::{CorruptCase, CorruptStats, InputRecord, Outcome, OutcomeCounts};
pub use parent::measure_config;
pub use table::render_table;

/// Longest time one input may take before its child is killed and the input counted as a hang.
pub const PER_INPUT_CAP: Duration = Duration::from_secs(2);

/// Address-space cap of a corrupt child, in MiB.
pub const MEMORY_CAP_MIB: u64 = 1024;

/// Hangs after which a configuration's remaining inputs are skipped (each costs the per-input cap).
pub const MAX_HANGS: usize = 15;

/// Aborts and memory kills after which a configuration's remaining inputs are skipped.
pub const MAX_CHILD_DEATHS: usize = 250;

/// Reproducer files written per outcome and configuration (every case is still counted).
pub const REPRO_PER_OUTCOME: usize = 20;

/// Altered-accepted values that also get a reproducer: a few examples, not a thousand files.
pub const REPRO_ALTERED: usize = 3;

/// The progress file a child appends to, in the configuration's folder (removed at the end).
const PROGRESS_FILE: &str = ".corrupt-progress";
/// The valid payloads of the 200 Orders, written by the first child so that every later child
/// and the parent damage the very same bytes (removed at the end).
const PAYLOADS_FILE: &str = ".corrupt-payloads.bin";
/// One line per input: what was damaged and what the engine did.
const OUTCOMES_FILE: &str = "outcomes.jsonl";

/// Inputs per engine under `settings`.
pub fn input_count(settings: &Settings) -> usize {
    use serprof_engines::studies::corrupt::{INPUTS_FULL, INPUTS_QUICK};
    if settings.quick {
        INPUTS_QUICK
    } else {
        INPUTS_FULL
    }
}

/// The per-input time cap under `settings`.
pub fn per_input_cap(settings: &Settings) -> Duration {
    PER_INPUT_CAP.min(Duration::from_secs(settings.child_time_cap_s.max(1)))
}

/// The memory cap of a corrupt child under `settings`, in MiB (see the module doc).
pub fn memory_cap_mib(settings: &Settings) -> u64 {
    match settings.memory_cap_mib {
        0 => MEMORY_CAP_MIB,
        m => m.min(MEMORY_CAP_MIB),
    }
}

/// The child: decodes the corrupt inputs of `config` from index `start` on, appending one line
/// per input to the progress file in `dir`.
pub fn worker(config: &str, dir: &Path, settings: &Settings, start: usize) -> Result<()> {
    decode::run(config, dir, settings, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_follow_the_settings_but_never_exceed_the_study_caps() {
        let mut s = Settings::quick();
        assert_eq!(input_count(&s), 100);
        assert_eq!(input_count(&Settings::defaults()), 1000);
        assert_eq!(per_input_cap(&s), Duration::from_secs(2));
        s.child_time_cap_s = 1;
        assert_eq!(per_input_cap(&s), Duration::from_secs(1));
        assert_eq!(memory_cap_mib(&s), 1024);
        s.memory_cap_mib = 0;
        assert_eq!(memory_cap_mib(&s), 1024);
        s.memory_cap_mib = 300;
        assert_eq!(memory_cap_mib(&s), 300);
    }
}
