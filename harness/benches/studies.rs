//! Criterion benches over the same configurations `serprof run` measures, one benchmark per
//! `STUDY/CONFIG` (filter with a substring: `cargo bench -p serprof -- bytes`).
//!
//! Under `--profile-time N`, a small criterion `Profiler` of our own samples each benchmark
//! with pprof-rs (the same settings as the `cpu` recording) and writes
//! `target/criterion/<benchmark>/profile/{cpu.folded, flamegraph.svg}`. pprof's built-in
//! criterion profiler targets criterion 0.5 and is not used.

use std::path::Path;
use std::time::Duration;

use criterion::profiler::Profiler;
use criterion::{criterion_group, criterion_main, Criterion};
use serprof::testing::{flame_svg, fold_report, Kind, BLOCKLIST};
use serprof_api::__private::StudyKind;

/// Samples a benchmark with pprof-rs at 199 Hz and writes its flame graph.
struct FlameProfiler {
    guard: Option<pprof::ProfilerGuard<'static>>,
}

impl Profiler for FlameProfiler {
    fn start_profiling(&mut self, _id: &str, _dir: &Path) {
        self.guard = pprof::ProfilerGuardBuilder::default()
            .frequency(199)
            .blocklist(BLOCKLIST)
            .build()
            .map_err(|e| eprintln!("serprof bench: cannot start pprof: {e}"))
            .ok();
    }

    fn stop_profiling(&mut self, id: &str, dir: &Path) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        let report = match guard.report().build() {
            Ok(r) => r,
            Err(e) => return eprintln!("serprof bench: cannot build the pprof report: {e}"),
        };
        drop(guard);
        let folded = fold_report(&report, id);
        let text = folded.to_text();
        let subtitle = format!(
            "{} samples (criterion --profile-time), serprof {}",
            folded.total(),
            env!("CARGO_PKG_VERSION")
        );
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join("cpu.folded"), &text))
            .map_err(anyhow::Error::from)
            .and_then(|_| flame_svg(&text, Kind::Cpu, id, &subtitle))
            .and_then(|svg| std::fs::write(dir.join("flamegraph.svg"), svg).map_err(Into::into));
        match written {
            Ok(()) => eprintln!(
                "serprof bench: flame graph {}",
                dir.join("flamegraph.svg").display()
            ),
            Err(e) => eprintln!("serprof bench: cannot write the flame graph of {id}: {e}"),
        }
    }
}

fn benches(c: &mut Criterion) {
    // Timed studies only: not the hidden test doubles, not the corrupt study's decoders.
    let all = serprof::builtin_studies();
    let timed = all
        .iter()
        .filter(|s| !s.info().hidden && s.info().kind == StudyKind::Measured);
    for config in timed.flat_map(|s| s.configs()) {
        let name = config.info.name();
        let mut w = match config.workload() {
            Ok(w) => w,
            Err(e) => {
                eprintln!("serprof bench: {name}: {e}");
                continue;
            }
        };
        if let Err(e) = w.verify() {
            eprintln!("serprof bench: {name} fails verification, not benchmarked: {e}");
            continue;
        }
        c.bench_function(&name, |b| {
            b.iter(|| w.run(1).expect("verified configurations do not fail"));
        });
    }
}

criterion_group! {
    name = studies_benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .with_profiler(FlameProfiler { guard: None });
    targets = benches
}
criterion_main!(studies_benches);
