//! The timing recording: warm up, then batches cycling through the dataset; the median time per
//! operation with a 95% confidence interval and the MAD (see [`crate::stats`]).

use std::time::{Duration, Instant};

use serprof_engines::codec::CodecError;

use super::{ops_per_batch, warm_up, Measured};
use crate::settings::Settings;
use crate::stats::TimeStats;

/// Times `w` as `settings` say.
pub fn record(w: &mut dyn Measured, settings: &Settings) -> Result<TimeStats, CodecError> {
    let (ops, took) = warm_up(w, Duration::from_millis(settings.warmup_ms))?;
    let per_batch = ops_per_batch(
        took.as_nanos() as f64 / ops as f64,
        Duration::from_millis(settings.batch_ms),
    );
    let mut batches = Vec::with_capacity(settings.batches);
    for _ in 0..settings.batches.max(1) {
        let start = Instant::now();
        w.run(per_batch)?;
        batches.push(start.elapsed().as_nanos() as f64 / per_batch as f64);
    }
    Ok(TimeStats::from_batches(batches, per_batch).expect("at least one batch"))
}
