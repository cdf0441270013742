//! What one damaged input did, and the figures of one engine (`result.json`'s `corrupt` field).

use serprof_api::Damage;
use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::settings::Settings;

/// What decoding one damaged input did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CorruptOutcome {
    /// The engine returned an error: what a decoder should do.
    CleanError,
    /// Decode succeeded with a value different from the original: expected for formats without
    /// a checksum (a flipped bit inside a string is still a string), reported, not a bug.
    Altered,
    /// Decode succeeded with the original value: the mutation was benign (whitespace, a flipped
    /// bit the format ignores).
    Unchanged,
    /// The engine panicked (caught in the child).
    Panic,
    /// The child died of a signal (SIGABRT, SIGSEGV from a stack overflow, ...) or exited.
    Abort,
    /// The input took longer than the per-input cap.
    Hang,
    /// The child ran out of its memory cap.
    Oom,
}

impl CorruptOutcome {
    /// Every outcome, in the table's column order.
    pub const ALL: [CorruptOutcome; 7] = [
        CorruptOutcome::CleanError,
        CorruptOutcome::Altered,
        CorruptOutcome::Unchanged,
        CorruptOutcome::Panic,
        CorruptOutcome::Abort,
        CorruptOutcome::Hang,
        CorruptOutcome::Oom,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CorruptOutcome::CleanError => "clean-error",
            CorruptOutcome::Altered => "altered",
            CorruptOutcome::Unchanged => "unchanged",
            CorruptOutcome::Panic => "panic",
            CorruptOutcome::Abort => "abort",
            CorruptOutcome::Hang => "hang",
            CorruptOutcome::Oom => "oom",
        }
    }

    /// A decoder bug: the contract of `Codec::decode` is an error, never a panic, a crash, a
    /// hang or unbounded allocation.
    pub fn is_misbehaviour(self) -> bool {
        matches!(
            self,
            CorruptOutcome::Panic
                | CorruptOutcome::Abort
                | CorruptOutcome::Hang
                | CorruptOutcome::Oom
        )
    }
}

/// One finished input: a line of the progress file a child appends to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InputRecord {
    pub index: usize,
    pub outcome: CorruptOutcome,
    /// The error, the first difference, the panic message or how the child died.
    #[serde(default)]
    pub detail: String,
}

/// How many inputs ended in each outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    pub clean_error: usize,
    pub altered: usize,
    pub unchanged: usize,
    pub panic: usize,
    pub abort: usize,
    pub hang: usize,
    pub oom: usize,
}

impl OutcomeCounts {
    fn slot(&mut self, o: CorruptOutcome) -> &mut usize {
        match o {
            CorruptOutcome::CleanError => &mut self.clean_error,
            CorruptOutcome::Altered => &mut self.altered,
            CorruptOutcome::Unchanged => &mut self.unchanged,
            CorruptOutcome::Panic => &mut self.panic,
            CorruptOutcome::Abort => &mut self.abort,
            CorruptOutcome::Hang => &mut self.hang,
            CorruptOutcome::Oom => &mut self.oom,
        }
    }

    pub fn add(&mut self, o: CorruptOutcome) {
        *self.slot(o) += 1;
    }

    pub fn get(&self, o: CorruptOutcome) -> usize {
        let mut copy = *self;
        *copy.slot(o)
    }

    /// Inputs counted.
    pub fn total(&self) -> usize {
        CorruptOutcome::ALL.iter().map(|&o| self.get(o)).sum()
    }

    /// Panics, aborts, hangs and memory kills.
    pub fn misbehaviours(&self) -> usize {
        self.panic + self.abort + self.hang + self.oom
    }
}

/// One input worth showing: every misbehaviour (up to a cap) and the first altered values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorruptCase {
    pub index: usize,
    /// The Order whose payload was damaged.
    pub order: usize,
    pub mutation: String,
    /// What the mutation did, e.g. `truncated to 3 of 6983 bytes`.
    pub what: String,
    pub outcome: CorruptOutcome,
    pub detail: String,
    /// The input, relative to the configuration's folder (`repro/panic-12.bin`).
    pub repro: Option<String>,
}

/// The `corrupt` figures of one engine configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorruptStats {
    /// The inputs' seed, as hex (`serprof_engines::studies::corrupt::SEED`).
    pub seed: String,
    /// Inputs planned.
    pub inputs: usize,
    /// Inputs not decoded because the configuration's children died too often.
    pub skipped: usize,
    pub per_input_cap_ms: u64,
    pub memory_cap_mib: u64,
    /// Children started: one, plus one per abort, hang or memory kill.
    pub children: usize,
    pub counts: OutcomeCounts,
    /// The same counts per mutation kind (`truncate`, `length-inflate`, ...).
    pub by_mutation: BTreeMap<String, OutcomeCounts>,
    pub cases: Vec<CorruptCase>,
}

/// Longest time one input may take before its child is killed and the input counted as a hang.
pub(crate) const PER_INPUT_CAP: Duration = Duration::from_secs(2);

/// Address-space cap of a corrupt child, in MiB.
pub(crate) const MEMORY_CAP_MIB: u64 = 1024;

/// Hangs after which a configuration's remaining inputs are skipped (each costs the per-input cap).
pub(crate) const MAX_HANGS: usize = 15;

/// Aborts and memory kills after which a configuration's remaining inputs are skipped.
pub(crate) const MAX_CHILD_DEATHS: usize = 250;

/// Reproducer files written per outcome and configuration (every case is still counted).
pub(crate) const REPRO_PER_OUTCOME: usize = 20;

/// Altered-accepted values that also get a reproducer: a few examples, not a thousand files.
pub(crate) const REPRO_ALTERED: usize = 3;

/// Inputs per engine of a study that damages inputs with `damage`, under `settings`.
pub(crate) fn input_count(damage: &Damage, settings: &Settings) -> usize {
    if settings.quick {
        damage.quick_inputs
    } else {
        damage.inputs
    }
}

/// The per-input time cap under `settings`.
pub(crate) fn per_input_cap(settings: &Settings) -> Duration {
    PER_INPUT_CAP.min(Duration::from_secs(settings.child_time_cap_s.max(1)))
}

/// The memory cap of a corrupt child under `settings`, in MiB (see the module doc).
pub(crate) fn memory_cap_mib(settings: &Settings) -> u64 {
    match settings.memory_cap_mib {
        0 => MEMORY_CAP_MIB,
        m => m.min(MEMORY_CAP_MIB),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_serialize_in_kebab_case_and_count() {
        let r = InputRecord {
            index: 3,
            outcome: CorruptOutcome::CleanError,
            detail: "eof".into(),
        };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(
            line,
            r#"{"index":3,"outcome":"clean-error","detail":"eof"}"#
        );
        assert_eq!(serde_json::from_str::<InputRecord>(&line).unwrap(), r);
        let mut c = OutcomeCounts::default();
        for o in CorruptOutcome::ALL {
            c.add(o);
        }
        c.add(CorruptOutcome::Oom);
        assert_eq!(
            (c.total(), c.misbehaviours(), c.get(CorruptOutcome::Oom)),
            (8, 5, 2)
        );
    }

    #[test]
    fn caps_follow_the_settings_but_never_exceed_the_study_caps() {
        let mut s = Settings::quick();
        let damage = serprof_engines::studies::corrupt::DAMAGE;
        assert_eq!(input_count(&damage, &s), 100);
        assert_eq!(input_count(&damage, &Settings::defaults()), 1000);
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
