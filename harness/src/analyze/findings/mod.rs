//! Findings that name the fix (`result.json` `diagnoses`), computed from what a run records: the
//! CPU profile (`cpu.folded`: samples by function, and by type), the allocation figures
//! (allocations and reallocations per operation), the payload's split by field (bytes, names)
//! and verification's findings. Each has its evidence, a remedy, and the most removing it can
//! gain (`1 / (1 - share)`). A profile's finding fires when the low end of its share's 95%
//! interval (Wilson's, over the samples) reaches its threshold, so a share within a run's
//! sampling noise of the threshold does not fire; one whose 99.9% interval still reaches the
//! threshold is named as near it (`near_threshold`), so that a row whose share moves across the
//! threshold from run to run says so in every run. The thresholds and why are in
//! docs/guide/findings.md.

mod frames;
pub(crate) mod remedies;

use std::path::Path;

use serprof_api::__private::Finding;
use serprof_api::{Format, Operation};

use self::frames::{Direction, Hits};
use crate::analyze::types::{self, TypeHints};
use crate::layout;
use crate::model::diagnosis::{
    Diagnosis, DiagnosisKind, Evidence, EvidenceKind, Measure, NearThreshold,
};
use crate::model::ConfigResult;
use crate::profile::folded::Folded;

/// The thresholds, as shares 0 to 1 (docs/guide/findings.md gives the measurements behind
/// each).
pub(crate) mod threshold {
    /// Allocating and copying owned strings and vectors on decode.
    pub(crate) const OWNED_STRINGS: f64 = 0.10;
    /// Growing a buffer on encode.
    pub(crate) const BUFFER_REGROWTH: f64 = 0.05;
    /// Numbers as text.
    pub(crate) const NUMBERS: f64 = 0.10;
    /// UTF-8 validation on decode.
    pub(crate) const UTF8: f64 = 0.10;
    /// SipHash.
    pub(crate) const MAP_HASHING: f64 = 0.05;
    /// Names in the payload (exact: the split is counted, not sampled).
    pub(crate) const FIELD_NAMES: f64 = 0.25;
    /// The allocator.
    pub(crate) const ALLOCATOR: f64 = 0.30;
    /// Type-describing work per value.
    pub(crate) const REPEATED_WORK: f64 = 0.10;
}

/// How many functions, fields or sites a finding keeps as evidence.
const EVIDENCE: usize = 5;

/// A configuration's findings: those that fire, and the sampled ones near their threshold.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Largest bound first (correctness findings last).
    pub diagnoses: Vec<Diagnosis>,
    /// Largest share first.
    pub near: Vec<NearThreshold>,
}

impl Found {
    fn take(&mut self, reading: Reading) {
        match reading {
            Reading::Fires(d) => self.diagnoses.push(d),
            Reading::Near(n) => self.near.push(n),
            Reading::Below => {}
        }
    }
}

/// What a sampled share says against its threshold.
enum Reading {
    Fires(Diagnosis),
    Near(NearThreshold),
    Below,
}

impl Reading {
    /// The finding changed by `f` when it fires.
    fn map(self, f: impl FnOnce(Diagnosis) -> Diagnosis) -> Reading {
        match self {
            Reading::Fires(d) => Reading::Fires(f(d)),
            other => other,
        }
    }
}

/// A configuration's findings from its folder: its `result.json` as given and its `cpu.folded`,
/// when there is one.
pub(crate) fn diagnose_dir(dir: &Path, result: &ConfigResult) -> Found {
    let cpu = std::fs::read_to_string(dir.join(layout::CPU_FOLDED))
        .ok()
        .and_then(|t| Folded::parse(&t).ok());
    diagnose(result, cpu.as_ref())
}

/// A configuration's findings.
pub(crate) fn diagnose(r: &ConfigResult, cpu: Option<&Folded>) -> Found {
    let mut found = Found {
        diagnoses: from_verification(r),
        near: Vec::new(),
    };
    found.diagnoses.extend(field_names(r));
    if let Some(cpu) = cpu.filter(|c| c.total() > 0) {
        from_profile(r, cpu, &mut found);
    }
    found.diagnoses.sort_by(|a, b| {
        b.bound
            .unwrap_or(0.0)
            .total_cmp(&a.bound.unwrap_or(0.0))
            .then(a.kind.cmp(&b.kind))
    });
    found
        .near
        .sort_by(|a, b| b.share.total_cmp(&a.share).then(a.kind.cmp(&b.kind)));
    found
}

/// Whether an operation encodes, and whether it decodes.
fn halves(op: Operation) -> (bool, bool) {
    match op {
        Operation::RoundTrip => (true, true),
        Operation::Serialize | Operation::EncodeMessage => (true, false),
        _ => (false, true),
    }
}

/// Wilson's 95% interval of `k` of `n`.
pub(crate) fn wilson(k: u64, n: u64) -> [f64; 2] {
    wilson_at(k, n, 1.96)
}

/// The normal quantile of the interval a sampled share's bound is read from: 99.9%, two-sided.
/// A bound is the most a remedy can gain, read against many rows; at 95% one row in forty would
/// gain more than its bound by sampling alone.
const BOUND_Z: f64 = 3.29;

/// The most removing `k` of `n` samples can gain: [`Diagnosis::bound_of`] the high end of their
/// share's 99.9% interval.
fn sampled_bound(k: u64, n: u64) -> Option<f64> {
    Diagnosis::bound_of(wilson_at(k, n, BOUND_Z)[1])
}

/// Wilson's interval of `k` of `n` at the normal quantile `z`.
fn wilson_at(k: u64, n: u64, z: f64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (n, p) = (n as f64, k as f64 / n as f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let d = 1.0 + z * z / n;
    [
        ((centre - spread) / d).max(0.0),
        ((centre + spread) / d).min(1.0),
    ]
}

/// A profile's finding from its hits: it fires when the 95% interval's low end reaches
/// `threshold`, and is near it when the 99.9% interval's high end does.
fn sampled(
    kind: DiagnosisKind,
    hits: &Hits,
    threshold: f64,
    mut evidence: Vec<Evidence>,
    remedy: String,
) -> Reading {
    let interval = wilson(hits.samples, hits.total);
    if hits.samples == 0 {
        return Reading::Below;
    }
    if interval[0] < threshold {
        return match wilson_at(hits.samples, hits.total, BOUND_Z)[1] >= threshold {
            true => Reading::Near(NearThreshold {
                kind,
                share: hits.share(),
                interval,
                threshold,
            }),
            false => Reading::Below,
        };
    }
    let total = hits.total.max(1) as f64;
    let mut functions: Vec<Evidence> = hits
        .functions
        .iter()
        .take(EVIDENCE)
        .map(|(f, n)| Evidence::new(EvidenceKind::Function, f, *n as f64 / total))
        .collect();
    functions.append(&mut evidence);
    Reading::Fires(Diagnosis {
        kind,
        share: hits.share(),
        interval,
        measure: Measure::CpuSamples,
        threshold,
        evidence: functions,
        remedy,
        // The most it can gain: from a high end, since near the whole of the samples the
        // bound moves fast with the share; of the profile as timed.
        bound: {
            let (samples, total) = hits.as_timed();
            sampled_bound(samples, total)
        },
    })
}

/// The remedy of `r`'s large field at `path`, from its type and whether the split saw it
/// written element by element.
pub(crate) fn large_field_remedy(r: &ConfigResult, path: &str) -> String {
    let ty = r.fields.iter().find(|f| f.path == path);
    let elementwise = r
        .findings
        .iter()
        .any(|f| matches!(f, Finding::ElementByElement { path: p, .. } if p == path));
    remedies::large_field(ty.map_or("", |f| f.rust_type.as_str()), !elementwise)
}

/// Whether `rust_type`'s samples are a byte array's written element by element, which that
/// finding already names with its remedy: the array's type, or its element `u8`.
fn byte_array_timed(r: &ConfigResult, rust_type: &str) -> bool {
    r.findings.iter().any(|f| match f {
        Finding::ElementByElement {
            rust_type: array,
            profile_share: Some(_),
            ..
        } => rust_type == array || rust_type == "u8",
        _ => false,
    })
}

/// The findings of the CPU profile.
fn from_profile(r: &ConfigResult, cpu: &Folded, out: &mut Found) {
    use frames::{
        hits, ALLOCATOR, GROWTH, HASHING, MAP_OPS, NUMBERS, OWNED, REPEATED, SIPHASH, UTF8,
    };
    // serprof's counting of allocations is not the program's cost: a finding fires on the
    // program's profile. The timed loop runs through it, so a bound is read from the profile as
    // timed (`Hits::timed`).
    let timed = cpu;
    let cpu = &frames::without_instrumentation(cpu);
    let both = |read: &dyn Fn(&Folded) -> Hits| frames::read_both(cpu, timed, read);
    let (encodes, decodes) = halves(r.operation);
    if decodes {
        // The code that builds the owned strings and vectors (their allocation and copy
        // among it), and its share of the frees.
        let h = both(&|p| {
            let h = hits(p, &[&*OWNED], None, Direction::Decode);
            frames::with_frees(p, h, &[&*OWNED], Direction::Decode)
        });
        let mut evidence = owned_fields(r);
        evidence.extend(alloc_figure(r, false));
        let enough = r.alloc.as_ref().is_none_or(|a| a.allocs_per_op >= 1.0);
        if enough {
            out.take(sampled(
                DiagnosisKind::OwnedStrings,
                &h,
                threshold::OWNED_STRINGS,
                evidence,
                remedies::owned_strings(&r.engine, &h.functions),
            ));
        }
        let h = both(&|p| hits(p, &[&*UTF8], None, Direction::Decode));
        out.take(sampled(
            DiagnosisKind::Utf8Validation,
            &h,
            threshold::UTF8,
            text_fields(r),
            remedies::UTF8.into(),
        ));
    }
    if encodes {
        let h = both(&|p| hits(p, &[&*GROWTH], None, Direction::Encode));
        let regrows = r.alloc.as_ref().is_none_or(|a| a.reallocs_per_op > 0.0);
        if regrows {
            out.take(sampled(
                DiagnosisKind::BufferRegrowth,
                &h,
                threshold::BUFFER_REGROWTH,
                alloc_figure(r, true),
                remedies::BUFFER_REGROWTH.into(),
            ));
        }
    }
    if r.format == Format::Json {
        let h = both(&|p| hits(p, &[&*NUMBERS], None, Direction::Any));
        let remedy = remedies::numbers(&h.functions);
        out.take(sampled(
            DiagnosisKind::Numbers,
            &h,
            threshold::NUMBERS,
            Vec::new(),
            remedy,
        ));
    }
    // SipHash's rounds are inlined into `hash_one` and into the map's inserts and lookups. The
    // finding fires on the hashing frames (SipHash's and `hash_one`, where SipHash shows); its
    // share then counts the map's operations with them, the probing that cannot be told from
    // the inlined rounds included, so that its bound holds for what a faster hasher can gain
    // (SipHash's and `hash_one`'s frames alone undercount it: the testkit twin gained more).
    let sip = hits(cpu, &[&*SIPHASH], None, Direction::Any);
    let hashing = hits(cpu, &[&*SIPHASH, &*HASHING], None, Direction::Any);
    let fires = sip.samples > 0
        && hashing.samples > 0
        && wilson(hashing.samples, hashing.total)[0] >= threshold::MAP_HASHING;
    let h = match fires {
        // Under the threshold's low end: near it or below, by the hashing frames.
        false if sip.samples > 0 => hashing,
        false => Hits::default(),
        // Named by the innermost of those frames: SipHash's own functions where a sample is
        // in them, the map's operation where the rounds are inlined into it.
        true => {
            both(&|p| frames::hits_innermost(p, &[&*SIPHASH, &*HASHING, &*MAP_OPS], Direction::Any))
        }
    };
    out.take(sampled(
        DiagnosisKind::MapHashing,
        &h,
        threshold::MAP_HASHING,
        typed_fields(r, |t| t.starts_with("HashMap") || t.starts_with("HashSet")),
        remedies::MAP_HASHING.into(),
    ));
    let h = both(&|p| hits(p, &[&*ALLOCATOR], None, Direction::Any));
    let mut evidence: Vec<Evidence> = frames::allocating_callers(cpu)
        .into_iter()
        .take(EVIDENCE)
        .map(|(f, n)| {
            Evidence::new(
                EvidenceKind::AllocationSite,
                f,
                n as f64 / cpu.total() as f64,
            )
        })
        .collect();
    evidence.extend(alloc_figure(r, false));
    out.take(
        sampled(
            DiagnosisKind::Allocator,
            &h,
            threshold::ALLOCATOR,
            evidence,
            remedies::ALLOCATOR.into(),
        )
        .map(|mut d| {
            // The callers say more than the allocator's own functions.
            d.evidence.retain(|e| e.what != EvidenceKind::Function);
            d
        }),
    );
    let h = both(&|p| {
        let h = hits(p, &[&*REPEATED], None, Direction::Any);
        frames::with_frees(p, h, &[&*REPEATED], Direction::Any)
    });
    out.take(sampled(
        DiagnosisKind::RepeatedWork,
        &h,
        threshold::REPEATED_WORK,
        Vec::new(),
        remedies::REPEATED_WORK.into(),
    ));
    // A type's own code near the `large_type` threshold. One that fires is verification's
    // finding (`from_verification`), from the same regrouping of the profile as timed.
    let by_type = types::by_type(timed, &TypeHints::of(&r.fields));
    let (total, threshold) = (by_type.total(), types::LARGE_TYPE_PERCENT / 100.0);
    for (rust_type, samples) in types::own_samples(&by_type) {
        if byte_array_timed(r, &rust_type) {
            continue;
        }
        let h = Hits {
            samples,
            total,
            ..Hits::default()
        };
        let reading = sampled(
            DiagnosisKind::LargeType,
            &h,
            threshold,
            Vec::new(),
            String::new(),
        );
        if let Reading::Near(near) = reading {
            out.near.push(near);
        }
    }
}

/// The allocation figures as evidence: allocations per operation, and reallocations when
/// `reallocs`.
fn alloc_figure(r: &ConfigResult, reallocs: bool) -> Vec<Evidence> {
    let Some(a) = &r.alloc else { return Vec::new() };
    let mut v = vec![Evidence::new(
        EvidenceKind::Figure,
        "allocations/op",
        a.allocs_per_op,
    )];
    if reallocs {
        v.push(Evidence::new(
            EvidenceKind::Figure,
            "reallocations/op",
            a.reallocs_per_op,
        ));
    }
    v
}

/// The split's fields whose type passes `keep`, largest first, as evidence (share of bytes).
fn typed_fields(r: &ConfigResult, keep: impl Fn(&str) -> bool) -> Vec<Evidence> {
    let mut fields: Vec<_> = r
        .fields
        .iter()
        .skip(1)
        .filter(|f| keep(&f.rust_type))
        .collect();
    fields.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
    fields
        .into_iter()
        .take(EVIDENCE)
        .map(|f| Evidence::new(EvidenceKind::Field, &f.path, f.share))
        .collect()
}

/// The fields decoded into owned strings or vectors.
fn owned_fields(r: &ConfigResult) -> Vec<Evidence> {
    typed_fields(r, |t| {
        t == "String" || t.starts_with("Vec<") || t.starts_with("Option<String")
    })
}

/// The fields of text.
fn text_fields(r: &ConfigResult) -> Vec<Evidence> {
    typed_fields(r, |t| t.contains("String") || t.contains("str"))
}

/// The field and variant names' share of a payload.
fn field_names(r: &ConfigResult) -> Option<Diagnosis> {
    let payload = r.payload_bytes.filter(|p| *p > 0.0)?;
    let names: f64 = r.fields.iter().map(|f| f.names).sum();
    let share = names / payload;
    if share < threshold::FIELD_NAMES {
        return None;
    }
    let mut named: Vec<_> = r.fields.iter().filter(|f| f.names > 0.0).collect();
    named.sort_by(|a, b| b.names.total_cmp(&a.names));
    Some(Diagnosis {
        kind: DiagnosisKind::FieldNames,
        share,
        interval: [share, share],
        measure: Measure::PayloadBytes,
        threshold: threshold::FIELD_NAMES,
        evidence: named
            .into_iter()
            .take(EVIDENCE)
            .map(|f| Evidence::new(EvidenceKind::Field, &f.path, f.names / payload))
            .collect(),
        remedy: remedies::FIELD_NAMES.into(),
        bound: Diagnosis::bound_of(share),
    })
}

/// The findings verification and the split made, with their remedies.
fn from_verification(r: &ConfigResult) -> Vec<Diagnosis> {
    let samples = r.cpu.as_ref().map(|c| c.samples);
    let mut out = Vec::new();
    let mut changed: Option<(usize, String, bool)> = None;
    for f in &r.findings {
        match f {
            Finding::ElementByElement {
                path,
                rust_type,
                share,
                remedy,
                profile_share,
                ..
            } => {
                let threshold = serprof_api::__private::ELEMENTS_THRESHOLD;
                let field = Evidence::new(EvidenceKind::Field, path, *share);
                // The type's share of the profile, when it reaches the threshold as a sampled
                // share must; else (its code inlined into a caller's, or no profile) the
                // payload says the bytes go element by element, and no bound of time is given.
                let timed = profile_share
                    .map(|p| {
                        let evidence = vec![
                            field.clone(),
                            Evidence::new(EvidenceKind::Type, rust_type, p),
                        ];
                        let s = (p, Measure::CpuSamples, samples);
                        from_share(
                            DiagnosisKind::ElementByElement,
                            s,
                            evidence,
                            remedy.clone(),
                            threshold,
                        )
                    })
                    .filter(|d| d.interval[0] >= d.threshold);
                out.push(timed.unwrap_or_else(|| Diagnosis {
                    bound: None,
                    ..from_share(
                        DiagnosisKind::ElementByElement,
                        (*share, Measure::PayloadBytes, None),
                        vec![field],
                        remedy.clone(),
                        threshold,
                    )
                }));
            }
            Finding::LargeField { path, share } => {
                out.push(from_share(
                    DiagnosisKind::LargeField,
                    (*share, Measure::PayloadBytes, None),
                    vec![Evidence::new(EvidenceKind::Field, path, *share)],
                    large_field_remedy(r, path),
                    serprof_api::__private::LARGE_FIELD_THRESHOLD,
                ));
            }
            Finding::LargeType { rust_type, share } if !byte_array_timed(r, rust_type) => {
                let d = from_share(
                    DiagnosisKind::LargeType,
                    (*share, Measure::CpuSamples, samples),
                    vec![Evidence::new(EvidenceKind::Type, rust_type, *share)],
                    remedies::large_type(rust_type),
                    super::types::LARGE_TYPE_PERCENT / 100.0,
                );
                // A sampled share fires when its interval's low end reaches the threshold,
                // as the profile's findings do.
                if d.interval[0] >= d.threshold {
                    out.push(d);
                }
            }
            Finding::FloatsChanged {
                values,
                original,
                decoded,
                ..
            } => {
                let first = format!("{} became {}", original.trim(), decoded.trim());
                changed = Some((*values, first, true));
            }
            Finding::NumbersChanged { count, first, .. } if changed.is_none() => {
                let text = format!("{} became {}", first.expected, first.got);
                let floats = first.text.contains(['.', 'e', 'E']);
                changed = Some((*count, text, floats));
            }
            _ => {}
        }
    }
    if let Some((count, first, floats)) = changed {
        out.push(Diagnosis {
            kind: DiagnosisKind::ValuesChanged,
            share: 0.0,
            interval: [0.0, 0.0],
            measure: Measure::Values,
            threshold: 0.0,
            evidence: vec![
                Evidence::new(EvidenceKind::Figure, "values changed", count as f64),
                Evidence::new(EvidenceKind::Example, first, 0.0),
            ],
            remedy: remedies::values_changed(&r.engine, floats),
            bound: None,
        });
    }
    out
}

/// A finding of a share the verification or the profile split gave. A share of CPU samples is
/// sampled: out of `samples`, its interval is Wilson's and its bound is from the interval's
/// high end, as for [`sampled`]; a share of the payload is counted, and exact.
fn from_share(
    kind: DiagnosisKind,
    (share, measure, samples): (f64, Measure, Option<u64>),
    evidence: Vec<Evidence>,
    remedy: String,
    threshold: f64,
) -> Diagnosis {
    let (interval, bound) = match (measure, samples) {
        (Measure::CpuSamples, Some(n)) if n > 0 => {
            let k = (share * n as f64).round() as u64;
            (wilson(k, n), sampled_bound(k, n))
        }
        _ => ([share, share], Diagnosis::bound_of(share)),
    };
    Diagnosis {
        kind,
        share,
        interval,
        measure,
        threshold,
        evidence,
        remedy,
        bound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(samples: u64, total: u64) -> Reading {
        let hits = Hits {
            samples,
            total,
            ..Hits::default()
        };
        sampled(
            DiagnosisKind::Allocator,
            &hits,
            threshold::ALLOCATOR,
            Vec::new(),
            String::new(),
        )
    }

    #[test]
    fn a_share_fires_from_its_low_end_and_is_near_up_to_its_99_9_high_end() {
        // 300 samples: 35% has a 95% low end above 30%, 30% and 25% do not; the 99.9% high
        // end of 23% (69 samples) reaches 30%, that of 20% does not.
        assert!(matches!(reading(120, 300), Reading::Fires(_)));
        for k in [90, 75, 69] {
            match reading(k, 300) {
                Reading::Near(n) => {
                    assert_eq!(n.kind, DiagnosisKind::Allocator);
                    assert!(n.interval[0] < n.threshold && n.share == k as f64 / 300.0);
                }
                _ => panic!("{k} of 300 is near 30%"),
            }
        }
        assert!(matches!(reading(60, 300), Reading::Below));
        assert!(matches!(reading(0, 300), Reading::Below));
    }
}
