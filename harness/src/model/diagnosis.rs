//! A configuration's findings that name a fix (`result.json` `diagnoses`): what costs the time,
//! bytes or values, the evidence (a share, and the functions, fields, types or allocation sites
//! behind it), the remedy a Rust user can apply and the most removing it can gain. Computed by
//! `analyze::findings` from the recordings a run makes; the guide's findings page
//! (docs/guide/findings.md) lists every kind.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A share from which the bound is not given: removing 99% of a whole could gain 100x, which
/// no remedy of the guide does; `explain` says the cost is nearly all of it.
pub(crate) const UNBOUNDED: f64 = 0.99;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosisKind {
    /// A byte array written one element at a time.
    ElementByElement,
    /// One field holds more of the payload than the rest of the value together.
    LargeField,
    /// One type's own code holds most of the CPU samples.
    LargeType,
    /// Decoding allocates a `String` or `Vec` per field where borrowing would do.
    OwnedStrings,
    /// Encoding grows its output by reallocation.
    BufferRegrowth,
    /// Formatting or parsing numbers as text.
    Numbers,
    /// Checking that decoded text is UTF-8.
    Utf8Validation,
    /// Hashing map keys with SipHash.
    MapHashing,
    /// Field and variant names written in a self-describing payload.
    FieldNames,
    /// The allocator's own code.
    Allocator,
    /// Work done per value that could be done once per type.
    RepeatedWork,
    /// Values that come back changed from a round trip.
    ValuesChanged,
}

impl DiagnosisKind {
    /// Every kind, in the order the guide lists them.
    pub const ALL: [DiagnosisKind; 12] = [
        DiagnosisKind::ElementByElement,
        DiagnosisKind::LargeField,
        DiagnosisKind::LargeType,
        DiagnosisKind::OwnedStrings,
        DiagnosisKind::BufferRegrowth,
        DiagnosisKind::Numbers,
        DiagnosisKind::Utf8Validation,
        DiagnosisKind::MapHashing,
        DiagnosisKind::FieldNames,
        DiagnosisKind::Allocator,
        DiagnosisKind::RepeatedWork,
        DiagnosisKind::ValuesChanged,
    ];

    /// Its name in `result.json` and on the command line (`owned_strings`).
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosisKind::ElementByElement => "element_by_element",
            DiagnosisKind::LargeField => "large_field",
            DiagnosisKind::LargeType => "large_type",
            DiagnosisKind::OwnedStrings => "owned_strings",
            DiagnosisKind::BufferRegrowth => "buffer_regrowth",
            DiagnosisKind::Numbers => "numbers",
            DiagnosisKind::Utf8Validation => "utf8_validation",
            DiagnosisKind::MapHashing => "map_hashing",
            DiagnosisKind::FieldNames => "field_names",
            DiagnosisKind::Allocator => "allocator",
            DiagnosisKind::RepeatedWork => "repeated_work",
            DiagnosisKind::ValuesChanged => "values_changed",
        }
    }

    /// What it says, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            DiagnosisKind::ElementByElement => "byte array written element by element",
            DiagnosisKind::LargeField => "one field is most of the payload",
            DiagnosisKind::LargeType => "one type's code is most of the time",
            DiagnosisKind::OwnedStrings => "a String or Vec allocated per field on decode",
            DiagnosisKind::BufferRegrowth => "output buffer grown by reallocation",
            DiagnosisKind::Numbers => "numbers formatted or parsed as text",
            DiagnosisKind::Utf8Validation => "UTF-8 validation",
            DiagnosisKind::MapHashing => "map keys hashed with SipHash",
            DiagnosisKind::FieldNames => "field and variant names in the payload",
            DiagnosisKind::Allocator => "the allocator",
            DiagnosisKind::RepeatedWork => "work repeated per value",
            DiagnosisKind::ValuesChanged => "values changed by the round trip",
        }
    }
}

impl DiagnosisKind {
    /// The remedy in a few words, for one-line listings (`explain` gives it whole).
    pub fn fix(self) -> &'static str {
        match self {
            DiagnosisKind::ElementByElement => "serde_bytes (base64 in JSON)",
            DiagnosisKind::LargeField => "a smaller representation, or send it apart",
            DiagnosisKind::LargeType => "`serprof explain` names its type's remedy",
            DiagnosisKind::OwnedStrings => "borrow: &'de str / Cow<'de, str> with #[serde(borrow)]",
            DiagnosisKind::BufferRegrowth => {
                "reserve once (with_capacity, a size hint) and reuse the buffer"
            }
            DiagnosisKind::Numbers => "itoa/ryu over core::fmt, or a binary format",
            DiagnosisKind::Utf8Validation => "simdutf8, or serde_bytes for bytes that are not text",
            DiagnosisKind::MapHashing => "a faster hasher (FxBuildHasher, foldhash) or a BTreeMap",
            DiagnosisKind::FieldNames => "short names (#[serde(rename)]) or a positional format",
            DiagnosisKind::Allocator => "allocate less, or mimalloc/jemalloc (--allocators)",
            DiagnosisKind::RepeatedWork => "once per type (LazyLock, a TypeId cache, a derive)",
            DiagnosisKind::ValuesChanged => {
                "a correctly rounding parser (serde_json's float_roundtrip)"
            }
        }
    }
}

impl fmt::Display for DiagnosisKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a finding's share is a share of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// The CPU profile's samples (time).
    CpuSamples,
    /// The payload's bytes.
    PayloadBytes,
    /// The dataset's values.
    Values,
}

impl Measure {
    /// `of the CPU samples`.
    pub fn of(self) -> &'static str {
        match self {
            Measure::CpuSamples => "of the CPU samples",
            Measure::PayloadBytes => "of the payload",
            Measure::Values => "of the values",
        }
    }
}

/// What a piece of evidence names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// A function of the CPU profile.
    Function,
    /// A path of the payload's split by field.
    Field,
    /// A type of the profile by type.
    Type,
    /// Where allocations were made (the allocation profile's sites, by bytes).
    AllocationSite,
    /// A counted figure (allocations per operation, values changed).
    Figure,
    /// A row measured beside it (another allocator's): its time as a ratio to this row's.
    Row,
    /// A first instance, as text (a value before and after).
    Example,
}

/// One function, field, type, site or figure behind a finding, with its share of the
/// finding's measure (or, for a figure, its value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub what: EvidenceKind,
    pub name: String,
    /// Share 0 to 1 (of the finding's measure), or the figure's value.
    pub value: f64,
}

impl Evidence {
    pub fn new(what: EvidenceKind, name: impl Into<String>, value: f64) -> Evidence {
        Evidence {
            what,
            name: name.into(),
            value,
        }
    }
}

/// A finding that names its fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub kind: DiagnosisKind,
    /// The share of `measure` it holds, 0 to 1.
    pub share: f64,
    /// Its 95% interval (Wilson's, over the profile's samples; the share itself when exact).
    pub interval: [f64; 2],
    pub measure: Measure,
    /// The share at which it fires: the interval's low end must reach it.
    pub threshold: f64,
    /// What it rests on, largest first.
    pub evidence: Vec<Evidence>,
    /// The change that removes it, naming the attribute, crate or call.
    pub remedy: String,
    /// The most removing it can gain: `1 / (1 - share)` of the time (CPU samples, from the
    /// high end of the share's 99.9% interval) or of the payload (bytes, exact); none for a
    /// correctness finding, or when the share is nearly the whole ([`UNBOUNDED`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
}

/// A sampled finding whose share is too close to its threshold for one run to say: its 95%
/// interval's low end is under the threshold, and its 99.9% interval's high end reaches it
/// (`result.json` `near_threshold`). A share moves between runs by more than its sampling
/// interval (the machine's speed levels change compute-bound and memory-bound code unalike), so
/// a row whose share sits here fires in some runs and not in others; it is named as near, run
/// after run, instead of coming and going.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearThreshold {
    pub kind: DiagnosisKind,
    /// The share of the CPU samples it holds, 0 to 1.
    pub share: f64,
    /// Its 95% interval (Wilson's).
    pub interval: [f64; 2],
    /// The share at which it fires.
    pub threshold: f64,
}

impl Diagnosis {
    /// `1 / (1 - share)`, the most that removing a share of a whole can gain; none when the
    /// share is the whole, or so nearly that the bound says nothing ([`UNBOUNDED`]).
    pub fn bound_of(share: f64) -> Option<f64> {
        (share < UNBOUNDED).then(|| 1.0 / (1.0 - share.max(0.0)))
    }

    /// The first `n` pieces of evidence as `name 12.3%`.
    pub fn evidence_text(&self, n: usize) -> String {
        self.evidence
            .iter()
            .take(n)
            .map(|e| match e.what {
                EvidenceKind::Figure => format!("{} {}", e.name, figure(e.value)),
                EvidenceKind::Row => format!("{} {:.2}x", e.name, e.value),
                EvidenceKind::Example => format!("first: {}", e.name),
                _ => format!("{} {:.1}%", e.name, e.value * 100.0),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One short line: kind, share, bound, the first evidence, the fix in a few words.
    pub fn line(&self) -> String {
        if self.measure == Measure::Values {
            return format!(
                "{} ({}) -> {}",
                self.kind,
                self.evidence_text(2),
                self.kind.fix()
            );
        }
        let bound = self
            .bound
            .map(|b| format!(", at most {b:.2}x"))
            .unwrap_or_default();
        let evidence = self.evidence_text(1);
        let evidence = match evidence.is_empty() {
            true => String::new(),
            false => format!(" in {evidence}"),
        };
        format!(
            "{} {:.1}% {}{bound}{evidence} -> {}",
            self.kind,
            self.share * 100.0,
            self.measure.of(),
            self.kind.fix()
        )
    }
}

/// A figure as written: an integer without decimals.
fn figure(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_back_from_their_names() {
        for k in DiagnosisKind::ALL {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<DiagnosisKind>(&json).unwrap(), k);
        }
    }

    #[test]
    fn the_bound_is_what_is_left_once_the_share_is_gone() {
        assert!((Diagnosis::bound_of(0.3).unwrap() - 1.0 / 0.7).abs() < 1e-12);
        assert_eq!(Diagnosis::bound_of(0.0), Some(1.0));
        assert_eq!(Diagnosis::bound_of(1.0), None);
    }
}
