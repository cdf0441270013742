//! The pictures of one recording, drawn by the parent from the files its worker child wrote
//! (`cpu.folded` and `cpu.sources`, `alloc.folded` and `alloc.sources`): the flame graph and
//! the speedscope profile. A worker child measures and writes data only.

use std::path::Path;

use anyhow::Result;

use super::flame::{flame_svg, Kind};
use super::speedscope::{speedscope_json, Unit};
use crate::analyze::folded::Folded;
use crate::analyze::sources::Sources;
use crate::layout::{self, write_atomic};
use crate::model::{AllocStats, CpuStats};

/// `cpu.svg` and `cpu.speedscope.json` of the CPU recording in `dir`.
pub(crate) fn cpu_views(dir: &Path, name: &str, cpu: &CpuStats) -> Result<()> {
    let text = std::fs::read_to_string(dir.join(layout::CPU_FOLDED))?;
    let folded = Folded::parse(&text)?;
    let sources = Sources::read(&dir.join(layout::CPU_SOURCES));
    write_atomic(
        &dir.join(layout::CPU_SPEEDSCOPE),
        &speedscope_json(
            &folded,
            &sources,
            &format!("{name} (CPU samples)"),
            Unit::None,
        ),
    )?;
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
    let text = std::fs::read_to_string(dir.join(layout::ALLOC_FOLDED))?;
    let folded = Folded::parse(&text)?;
    let sources = Sources::read(&dir.join(layout::ALLOC_SOURCES));
    write_atomic(
        &dir.join(layout::ALLOC_SPEEDSCOPE),
        &speedscope_json(
            &folded,
            &sources,
            &format!("{name} (allocated bytes)"),
            Unit::Bytes,
        ),
    )?;
    if folded.total() == 0 {
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
    let svg = flame_svg(
        &text,
        Kind::Alloc,
        &format!("{name} (allocated bytes)"),
        &subtitle,
    )?;
    write_atomic(&dir.join(layout::ALLOC_SVG), &svg)
}
