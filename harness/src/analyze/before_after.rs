//! What `serprof before-after` concludes, as data: the two sides (how each was built), and per
//! configuration the time verdict, the exact instruction change and the functions that moved.
//! Written as `before-after.json`, drawn as `before-after.html` and the text table.
//!
//! Which functions "moved" comes from the exact instruction deltas (every change of a count is
//! real; see [`super::compare::instruction_moves`]). CPU-share moves are `compare`'s, by its
//! one rule ([`super::compare::MIN_DELTA_PP`], measured on A/A comparisons).

use serde::{Deserialize, Serialize};

use super::compare::{ConfigComparison, MovedFunction, TimeComparison};
use crate::model::Settings;

/// The CPU-share rule, in words.
pub fn cpu_alarm_rule() -> String {
    format!(
        "CPU share moved by at least {} percentage points and |z| > {} (the A/A false-alarm threshold measured with scripts/aa-shares.py)",
        super::compare::MIN_DELTA_PP,
        super::compare::MIN_Z
    )
}

/// The instruction rule, in words.
pub const INSTRUCTION_MOVE_RULE: &str = "exact change of a function's inclusive instructions per operation (callgrind, both sides); callers that only pass a callee's change on, and the measured loop, are left out";

/// A dependency one side built from a local checkout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppliedPatch {
    #[serde(rename = "crate")]
    pub krate: String,
    pub path: String,
    /// The checkout's version.
    pub version: String,
    /// Pins changed in the side's copy of the source: `engines/Cargo.toml: "=0.23.1" -> "=0.23.2"`.
    pub relaxed: Vec<String>,
}

/// Which side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Before,
    After,
}

impl Side {
    /// Both, in order.
    pub const BOTH: [Side; 2] = [Side::Before, Side::After];

    /// `before` or `after`: also the name of the side's run folder.
    pub fn as_str(self) -> &'static str {
        crate::layout::BEFORE_AFTER_SIDES[self as usize]
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One side as it was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideRecord {
    /// Which side it is.
    pub label: Side,
    /// In words: `HEAD~1 (5a2705b)`, `working tree (5a2705b + changes)`, with its patches.
    pub describe: String,
    /// The commit (for the working tree: the commit it started from).
    pub commit: String,
    /// The cache key of its source and binary.
    pub key: String,
    pub source_dir: String,
    pub exe: String,
    /// What the binary reports of itself (`serprof __protocol`).
    pub git_rev: String,
    pub patches: Vec<AppliedPatch>,
    /// Seconds its `cargo build` took.
    pub build_seconds: f64,
    /// What the user should know (relaxed pins, a patched crate serprof itself uses).
    pub notes: Vec<String>,
}

/// A time verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The whole interval of after/before is below 1.
    Faster,
    /// The whole interval is above 1.
    Slower,
    /// The interval holds 1.
    WithinNoise,
    /// A side has no timing (it failed).
    NotTimed,
}

impl Verdict {
    pub fn of(time: Option<&TimeComparison>) -> Verdict {
        match time {
            None => Verdict::NotTimed,
            Some(t) if t.ci95[1] < 1.0 => Verdict::Faster,
            Some(t) if t.ci95[0] > 1.0 => Verdict::Slower,
            Some(_) => Verdict::WithinNoise,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::NotTimed => "not timed",
        }
    }
}

/// One configuration's conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `STUDY/CONFIG`.
    pub config: String,
    pub verdict: Verdict,
    /// The CPU-share moves (`comparison.moved`, by `compare`'s rule).
    pub cpu_alarms: Vec<MovedFunction>,
    /// Everything `compare` says (ratio, deltas, instruction moves, flame graph paths).
    pub comparison: ConfigComparison,
}

impl Row {
    pub fn new(comparison: ConfigComparison) -> Row {
        Row {
            config: comparison.after.clone(),
            verdict: Verdict::of(comparison.time.as_ref()),
            cpu_alarms: comparison.moved.clone().unwrap_or_default(),
            comparison,
        }
    }
}

impl Row {
    /// The exact instruction moves (empty without both sides' instruction profiles).
    pub fn instruction_moves(&self) -> &[super::compare::InstructionMove] {
        self.comparison
            .instructions
            .as_ref()
            .map(|i| i.moved.as_slice())
            .unwrap_or_default()
    }
}

/// The whole before/after (`before-after.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeforeAfterRecord {
    pub before: SideRecord,
    pub after: SideRecord,
    /// The folder of this record, and the two sides' run folders in it.
    pub out_dir: String,
    pub before_run: String,
    pub after_run: String,
    pub settings: Settings,
    pub rows: Vec<Row>,
    /// Configurations of the selection that a side could not run at all.
    pub not_compared: Vec<String>,
    pub cpu_alarm_rule: String,
    pub instruction_move_rule: String,
    /// Whole seconds spent measuring (after the builds).
    pub measure_seconds: f64,
    /// Where they went.
    #[serde(default)]
    pub seconds: crate::model::manifest::PhaseSeconds,
    /// The lock-step timing schedule of both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<crate::model::lockstep::Schedule>,
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(lo: f64, hi: f64) -> TimeComparison {
        TimeComparison {
            before_ns: 1.0,
            after_ns: 1.0,
            ratio: (lo + hi) / 2.0,
            ci95: [lo, hi],
            method: Default::default(),
            samples: 12,
        }
    }

    #[test]
    fn verdicts_follow_the_interval() {
        assert_eq!(Verdict::of(Some(&time(0.8, 0.95))), Verdict::Faster);
        assert_eq!(Verdict::of(Some(&time(1.01, 1.2))), Verdict::Slower);
        assert_eq!(Verdict::of(Some(&time(0.98, 1.02))), Verdict::WithinNoise);
        assert_eq!(Verdict::of(Some(&time(1.0, 1.1))), Verdict::WithinNoise);
        assert_eq!(Verdict::of(None), Verdict::NotTimed);
        assert_eq!(
            serde_json::to_string(&Verdict::WithinNoise).unwrap(),
            "\"within-noise\""
        );
    }
}
