//! Recording slots: work on several items side by side, each slot's children pinned to a CPU
//! of its own, for the phases that may use every CPU (verification, the recordings after
//! timing); nothing runs in slots while timing children run.

use anyhow::Result;

use crate::model::manifest::PhaseSeconds;
use crate::model::Settings;

/// Runs `work` over `items` in `settings.jobs` slots side by side, each slot's children pinned to
/// its own CPU ([`Settings::recording_cpus`]: the settings `work` is given); a slot takes the next
/// item when it finishes one and stops when `work` returns `Ok(None)` (the run was interrupted)
/// or an error. Returns the slots' recording seconds summed, what they finished and the first
/// error.
pub(crate) fn in_slots<T: Send, R: Send>(
    settings: &Settings,
    items: impl Iterator<Item = T> + Send,
    work: impl Fn(&Settings, T, &mut PhaseSeconds) -> Result<Option<R>> + Sync,
) -> (PhaseSeconds, Vec<R>, Result<()>) {
    let cpus = settings.recording_cpus(&crate::measure::reference::allowed_cpus());
    let queue = std::sync::Mutex::new(items);
    let (queue, work) = (&queue, &work);
    let slots: Vec<(PhaseSeconds, Vec<R>, Result<()>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                scope.spawn(move || {
                    let settings = Settings {
                        pin_cpu: cpu,
                        ..settings.clone()
                    };
                    let mut clock = PhaseSeconds::default();
                    let mut done = Vec::new();
                    loop {
                        let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                        let Some(item) = next else { break };
                        match work(&settings, item, &mut clock) {
                            Ok(Some(r)) => done.push(r),
                            Ok(None) => break,
                            Err(e) => return (clock, done, Err(e)),
                        }
                    }
                    (clock, done, Ok(()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(slot) => slot,
                Err(_) => (
                    PhaseSeconds::default(),
                    Vec::new(),
                    Err(anyhow::anyhow!("a recording slot panicked")),
                ),
            })
            .collect()
    });
    let mut total = PhaseSeconds::default();
    let mut finished = Vec::new();
    let mut first_error = None;
    for (clock, done, outcome) in slots {
        total.add_recordings(&clock);
        finished.extend(done);
        if let Err(e) = outcome {
            first_error.get_or_insert(e);
        }
    }
    (total, finished, first_error.map_or(Ok(()), Err))
}
