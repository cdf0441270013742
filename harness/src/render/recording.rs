//! The pictures of one recording, drawn by the parent from the files its worker child wrote
//! (`cpu.folded` and `cpu.sources`, `alloc.folded` and `alloc.sources`): the flame graph and
//! the speedscope profile. A worker child measures and writes data only.

use std::path::Path;

use anyhow::Result;

use super::flame::{flame_svg, Kind};
use super::speedscope::{speedscope_json, WeightUnit};
use crate::layout::{self, write_atomic};
use crate::model::{AllocStats, CpuStats};
use crate::profile::folded::Folded;
use crate::profile::sources::Sources;

/// The folded stacks in `folded` (a file of `dir`), written as the speedscope profile
/// `speedscope` titled `title`, with the side table `sources`; returns the stacks' text.
fn speedscope(
    dir: &Path,
    [folded, sources, speedscope]: [&str; 3],
    title: &str,
    unit: WeightUnit,
) -> Result<(String, Folded)> {
    let text = std::fs::read_to_string(dir.join(folded))?;
    let stacks = Folded::parse(&text)?;
    let table = Sources::read(&dir.join(sources));
    write_atomic(
        &dir.join(speedscope),
        &speedscope_json(&stacks, &table, title, unit),
    )?;
    Ok((text, stacks))
}

/// `cpu.svg` and `cpu.speedscope.json` of the CPU recording in `dir`.
pub(crate) fn cpu_views(dir: &Path, name: &str, cpu: &CpuStats) -> Result<()> {
    let files = [
        layout::CPU_FOLDED,
        layout::CPU_SOURCES,
        layout::CPU_SPEEDSCOPE,
    ];
    let title = format!("{name} (CPU samples)");
    let (text, _) = speedscope(dir, files, &title, WeightUnit::None)?;
    let subtitle = format!(
        "{} samples at {:.0} Hz effective ({} Hz requested), serprof {}",
        cpu.samples,
        cpu.effective_hz,
        cpu.requested_hz,
        env!("CARGO_PKG_VERSION")
    );
    let svg = flame_svg(&text, Kind::Cpu, name, &subtitle)?;
    write_atomic(&dir.join(layout::CPU_SVG), &svg)
}

/// `alloc.svg` (when a stack was sampled) and `alloc.speedscope.json` of the allocation
/// recording in `dir`.
pub(crate) fn alloc_views(dir: &Path, name: &str, alloc: &AllocStats) -> Result<()> {
    let files = [
        layout::ALLOC_FOLDED,
        layout::ALLOC_SOURCES,
        layout::ALLOC_SPEEDSCOPE,
    ];
    let title = format!("{name} (allocated bytes)");
    let (text, stacks) = speedscope(dir, files, &title, WeightUnit::Bytes)?;
    if stacks.total() == 0 {
        let _ = std::fs::remove_file(dir.join(layout::ALLOC_SVG));
        return Ok(());
    }
    let subtitle = format!(
        "{} stacks sampled every {} allocated bytes over {} operations, serprof {}",
        alloc.stack_samples,
        alloc.sample_bytes,
        alloc.ops,
        env!("CARGO_PKG_VERSION")
    );
    let svg = flame_svg(&text, Kind::Alloc, &title, &subtitle)?;
    write_atomic(&dir.join(layout::ALLOC_SVG), &svg)
}
