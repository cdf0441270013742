//! What `serprof before-after` concludes, as data: the two sides (how each was built), and per
//! configuration the time verdict, the exact instruction change and the functions that moved.
//! Written as `before-after.json`, drawn as `before-after.html` and the text table.
//!
//! Which functions "moved" comes from the exact instruction deltas (every change of a count is
//! real; see [`super::compare::instruction_moves`]). CPU-share moves are `compare`'s, by its
//! one rule ([`super::compare::MIN_DELTA_PP`], measured on A/A comparisons).

use serde::{Deserialize, Serialize};

use super::compare::{compact_name, ConfigComparison, MovedFunction, TimeComparison};
use super::moved::{percent_ci, FunctionMove, Functions, FunctionsSummary};
use crate::model::Settings;

/// The CPU-share rule, in words.
pub(crate) fn cpu_alarm_rule() -> String {
    format!(
        "CPU share moved by at least {} percentage points and |z| > {} (the A/A false-alarm threshold measured with scripts/aa-shares.py)",
        super::compare::MIN_DELTA_PP,
        super::compare::MIN_Z
    )
}

/// The instruction rule, in words.
pub(crate) const INSTRUCTION_MOVE_RULE: &str = "exact change of a function's inclusive instructions per operation (callgrind, both sides); callers that only pass a callee's change on, and the measured loop, are left out";

/// A dependency one side built from a local checkout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AppliedPatch {
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
pub(crate) enum Side {
    Before,
    After,
}

impl Side {
    /// Both, in order.
    pub(crate) const BOTH: [Side; 2] = [Side::Before, Side::After];

    /// `before` or `after`: also the name of the side's run folder.
    pub(crate) fn as_str(self) -> &'static str {
        crate::layout::BEFORE_AFTER_SIDES[self as usize]
    }
}

/// One value per side of a before-after, reached by its [`Side`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BySide<T> {
    pub before: T,
    pub after: T,
}

impl<T> BySide<T> {
    /// `f` of each side.
    pub(crate) fn new(mut f: impl FnMut(Side) -> T) -> BySide<T> {
        BySide {
            before: f(Side::Before),
            after: f(Side::After),
        }
    }

    /// The value of `side`.
    pub(crate) fn get(&self, side: Side) -> &T {
        match side {
            Side::Before => &self.before,
            Side::After => &self.after,
        }
    }

    /// Both values with their sides, before first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Side, &T)> {
        [(Side::Before, &self.before), (Side::After, &self.after)].into_iter()
    }

    /// Both values, mutable, with their sides, before first.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (Side, &mut T)> {
        [
            (Side::Before, &mut self.before),
            (Side::After, &mut self.after),
        ]
        .into_iter()
    }

    /// `f` of each side's value.
    pub(crate) fn map<U>(self, mut f: impl FnMut(Side, T) -> U) -> BySide<U> {
        BySide {
            before: f(Side::Before, self.before),
            after: f(Side::After, self.after),
        }
    }

    /// Each side's value, borrowed.
    pub(crate) fn as_ref(&self) -> BySide<&T> {
        BySide {
            before: &self.before,
            after: &self.after,
        }
    }

    /// Each side's value, borrowed mutably.
    pub(crate) fn as_mut(&mut self) -> BySide<&mut T> {
        BySide {
            before: &mut self.before,
            after: &mut self.after,
        }
    }
}

impl<T, E> BySide<Result<T, E>> {
    /// Both values, or the first error (before's).
    pub(crate) fn transpose(self) -> Result<BySide<T>, E> {
        Ok(BySide {
            before: self.before?,
            after: self.after?,
        })
    }
}

impl<T> BySide<Option<T>> {
    /// Both values, or `None` when a side has none.
    pub(crate) fn transpose_option(self) -> Option<BySide<T>> {
        Some(BySide {
            before: self.before?,
            after: self.after?,
        })
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One side as it was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SideRecord {
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
    /// The folder of the kept link its layouts are linked from (`link/<key>/` in the cache);
    /// null when the side cannot be linked again (`layouts_note` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Why the side was timed as cargo linked it, in one layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layouts_note: Option<String>,
    /// The layouts it was timed in: set `k` of timing children ran `layouts[k % len]`.
    /// Empty: the binary as cargo linked it. Their binaries are removed once timed (each is a
    /// link of the kept inputs with its seed).
    #[serde(default)]
    pub layouts: Vec<Layout>,
}

pub(crate) use crate::model::binary::Layout;

/// A time verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// The whole interval of after/before is below 1.
    Faster,
    /// The whole interval is above 1.
    Slower,
    /// The interval holds 1, across processes of one layout per side.
    WithinNoise,
    /// The interval holds 1, and it spans layouts: the time moved less than where the linker
    /// puts functions and data moves it.
    Layout,
    /// A side has no timing (it failed).
    NotTimed,
}

impl Verdict {
    /// The verdict of a ratio's interval; `layouts`: its sets of children ran different
    /// layouts of each side, so the interval spans them.
    pub(crate) fn of(time: Option<&TimeComparison>, layouts: bool) -> Verdict {
        match time {
            None => Verdict::NotTimed,
            Some(t) if t.ci95[1] < 1.0 => Verdict::Faster,
            Some(t) if t.ci95[0] > 1.0 => Verdict::Slower,
            Some(_) if layouts => Verdict::Layout,
            Some(_) => Verdict::WithinNoise,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::Layout => "layout",
            Verdict::NotTimed => "not timed",
        }
    }
}

/// One configuration's conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Row {
    /// `STUDY/CONFIG`.
    pub config: String,
    pub verdict: Verdict,
    /// Both sides ran exactly as many instructions per operation (null without both counts):
    /// with a `faster` or `slower` time, the code's work did not change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_equal: Option<bool>,
    /// The CPU-share moves (`comparison.moved`, by `compare`'s rule).
    pub cpu_alarms: Vec<MovedFunction>,
    /// Everything `compare` says (ratio, deltas, instruction moves, flame graph paths).
    pub comparison: ConfigComparison,
    /// The functions whose self time per operation moved, over layouts
    /// ([`super::moved`]): called ones first, each part by |contribution|. Empty without
    /// per-layout profiles (`--no-functions`, or too few layouts).
    #[serde(default)]
    pub functions: Vec<FunctionMove>,
    /// What the function table rests on (sets, functions examined, the rest's contribution).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions_summary: Option<FunctionsSummary>,
    /// The flame graph coloured where a function's change is called, when drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions_diff_svg: Option<String>,
    /// The verdict with its evidence, in one line: the change with its interval, and the
    /// function called first with its share of the change and its exact counts.
    #[serde(default)]
    pub evidence: String,
}

impl Row {
    /// `layouts`: the timing sampled layouts on both sides.
    pub(crate) fn new(comparison: ConfigComparison, layouts: bool) -> Row {
        Row {
            config: comparison.after.clone(),
            verdict: Verdict::of(comparison.time.as_ref(), layouts),
            instructions_equal: comparison
                .instructions
                .as_ref()
                .map(|i| i.delta_per_op == 0.0),
            cpu_alarms: comparison.moved.clone().unwrap_or_default(),
            comparison,
            functions: Vec::new(),
            functions_summary: None,
            functions_diff_svg: None,
            evidence: String::new(),
        }
        .with_functions(None)
    }

    /// The row with its function table (none: not profiled), and its evidence to match.
    pub(crate) fn with_functions(mut self, functions: Option<Functions>) -> Row {
        if let Some(f) = functions {
            self.functions = f.list;
            self.functions_summary = Some(f.summary);
        }
        self.evidence = self.evidence_text();
        self
    }

    /// The verdict and what it rests on: "slower, +2.1% [1.0, 3.2]; `slow_u16` +1.9% [0.9, 2.8]
    /// of it, +410 instructions per operation".
    fn evidence_text(&self) -> String {
        let mut s = self.verdict.as_str().to_string();
        if let Some(t) = &self.comparison.time {
            s.push_str(", ");
            s.push_str(&percent_ci(t.ratio - 1.0, t.ci95.map(|x| x - 1.0)));
        }
        let called: Vec<&FunctionMove> = self.functions.iter().filter(|m| m.called).collect();
        match (called.first(), &self.functions_summary) {
            (Some(m), _) => {
                s.push_str(&format!(
                    "; `{}` {} of it",
                    compact_name(&m.name),
                    percent_ci(m.contribution, m.contribution_ci95)
                ));
                s.push_str(&exact_text(m));
                if called.len() > 1 {
                    s.push_str(&format!(" (and {} more called)", called.len() - 1));
                }
            }
            (None, Some(sum)) => s.push_str(&format!(
                "; no function called ({} examined over {} layouts)",
                sum.examined, sum.sets
            )),
            (None, None) => {}
        }
        s
    }
}

/// A function's exact counts per operation, as a tail of its evidence: ", +410 instructions
/// per operation, +1.2 mispredicted branches" (the misses only where they moved by at least a
/// tenth of one per operation).
pub(crate) fn exact_text(m: &FunctionMove) -> String {
    let mut s = String::new();
    if let Some(i) = m.instructions_delta {
        s.push_str(&format!(", {i:+.0} instructions per operation"));
    }
    for (delta, what) in [
        (m.branch_mispredicts_delta, "mispredicted branches"),
        (m.d1_misses_delta, "L1 data misses"),
        (m.ll_misses_delta, "last-level data misses"),
    ] {
        if let Some(d) = delta.filter(|d| d.abs() >= 0.1) {
            s.push_str(&format!(", {d:+.1} {what}"));
        }
    }
    s
}

impl Row {
    /// The exact instruction moves (empty without both sides' instruction profiles).
    pub(crate) fn instruction_moves(&self) -> &[super::compare::InstructionMove] {
        self.comparison
            .instructions
            .as_ref()
            .map(|i| i.moved.as_slice())
            .unwrap_or_default()
    }
}

/// The whole before/after (`before-after.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct BeforeAfterRecord {
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
    /// How the functions over layouts are measured and called ([`super::moved::rule`]).
    #[serde(default)]
    pub functions_rule: String,
    /// Whole seconds spent measuring (after the builds).
    pub measure_seconds: f64,
    /// Where they went.
    #[serde(default)]
    pub seconds: crate::model::manifest::PhaseSeconds,
    /// Which sections of the two binaries cargo linked differ (null when both sides are one
    /// build, or a binary could not be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_diff: Option<super::sections::BinaryDiff>,
    /// The lock-step timing schedule of both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<crate::model::lockstep::Schedule>,
    /// The machine's measuring lock as this before-after held it (absent in folders written
    /// before the lock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_lock: Option<crate::model::manifest::MachineLock>,
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
            before_layout_spread: None,
            after_layout_spread: None,
        }
    }

    #[test]
    fn verdicts_follow_the_interval() {
        for layouts in [false, true] {
            assert_eq!(
                Verdict::of(Some(&time(0.8, 0.95)), layouts),
                Verdict::Faster
            );
            assert_eq!(
                Verdict::of(Some(&time(1.01, 1.2)), layouts),
                Verdict::Slower
            );
            assert_eq!(Verdict::of(None, layouts), Verdict::NotTimed);
        }
        assert_eq!(
            Verdict::of(Some(&time(0.98, 1.02)), false),
            Verdict::WithinNoise
        );
        assert_eq!(
            Verdict::of(Some(&time(1.0, 1.1)), false),
            Verdict::WithinNoise
        );
        // An interval across layouts that holds 1 is labelled a layout effect.
        assert_eq!(Verdict::of(Some(&time(0.97, 1.02)), true), Verdict::Layout);
        assert_eq!(
            serde_json::to_string(&Verdict::Layout).unwrap(),
            "\"layout\""
        );
        assert_eq!(
            serde_json::to_string(&Verdict::WithinNoise).unwrap(),
            "\"within-noise\""
        );
    }
}
