//! Test data shared by the tests of this module: callgrind's own example of its format, the
//! real files of `harness/tests/fixtures/callgrind/` (see its README.md), and helpers.

use super::profile::{Function, Profile};
use crate::profile::folded::Folded;

/// The example of the format's specification (extended names).
pub(super) const SPEC_EXTENDED: &str = "# callgrind format
events: Instructions
fl=file1.c
fn=main
16 20
cfn=func1
calls=1 50
16 400
cfi=file2.c
cfn=func2
calls=3 20
16 400
fn=func1
51 100
cfi=file2.c
cfn=func2
calls=2 20
51 300
fl=file2.c
fn=func2
20 700
";

/// The stacks of `f` in order, as `(stack, count)`.
pub(super) fn stack_rows(f: &Folded) -> Vec<(&str, u64)> {
    f.stacks.iter().map(|(s, &n)| (s.as_str(), n)).collect()
}

/// `(name, self cost, inclusive cost)` of event 0 of every function with cost, sorted.
pub(super) fn cost_rows(p: &Profile) -> Vec<(String, u64, u64)> {
    let mut v: Vec<(String, u64, u64)> = p
        .functions
        .iter()
        .map(|f| (f.name.clone(), f.self_cost[0], f.inclusive[0]))
        .filter(|x| x.1 + x.2 > 0)
        .collect();
    v.sort();
    v
}

/// The one function named `name`.
pub(super) fn by_name<'a>(p: &'a Profile, name: &str) -> &'a Function {
    let v: Vec<&Function> = p.functions.iter().filter(|f| f.name == name).collect();
    assert_eq!(v.len(), 1, "{name}: {v:?}");
    v[0]
}

// Real files from valgrind-3.19 callgrind.
pub(super) const LEGACY: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy.out"
));
pub(super) const LEGACY_NOCOMPRESS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-nocompress.out"
));
pub(super) const LEGACY_INSTR: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-instr.out"
));
pub(super) const LEGACY_INSTR_NOLINE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-instr-noline.out"
));
pub(super) const LEGACY_CALLERS2: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-callers2.out"
));
pub(super) const LEGACY_JUMPS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-jumps.out"
));
pub(super) const LEGACY_RECS1: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-recs1.out"
));
pub(super) const LEGACY_CREQ: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-creq.out"
));
pub(super) const V0: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/v0.out"
));
pub(super) const SERPROF: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/serprof-postcard.out"
));
pub(super) const LEGACY_COMBINED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/callgrind/legacy-combined.out"
));

/// The loop that the fixtures of the scratch program toggle collection on.
pub(super) const LOOP: &str = "scratch::workload::roundtrip_loop";

/// Every fixture but the combined dumps, by name.
pub(super) fn all_fixtures() -> Vec<(&'static str, &'static str)> {
    vec![
        ("legacy", LEGACY),
        ("legacy-nocompress", LEGACY_NOCOMPRESS),
        ("legacy-instr", LEGACY_INSTR),
        ("legacy-instr-noline", LEGACY_INSTR_NOLINE),
        ("legacy-callers2", LEGACY_CALLERS2),
        ("legacy-jumps", LEGACY_JUMPS),
        ("legacy-recs1", LEGACY_RECS1),
        ("legacy-creq", LEGACY_CREQ),
        ("v0", V0),
        ("serprof-postcard", SERPROF),
    ]
}
