//! A fixed reference workload, for telling CPUs and processes apart: `formats/serde_json`'s
//! round trip of the Order dataset (a real engine: parsing, formatting, allocation), timed by
//! thread CPU time in short batches. `serprof run` uses it to choose a CPU, `serprof doctor` to
//! measure the machine.

use serprof_api::__private::Config;

use crate::model::Program;
use anyhow::{anyhow, Result};

use super::clock::timed_batch;
use serprof_api::__private::Workload;

/// The configuration the reference runs.
pub(crate) const REFERENCE: &str = "formats/serde_json";

/// The reference workload (`config`: the program's reference), built and verified.
pub(crate) fn build(config: &Config) -> Result<Box<dyn Workload>> {
    let mut w = config.workload().map_err(|e| anyhow!("{REFERENCE}: {e}"))?;
    w.verify().map_err(|e| anyhow!("{REFERENCE}: {e}"))?;
    Ok(w)
}

/// Operations in one reference batch: one pass over the 200 Orders (a few milliseconds).
pub(crate) const OPS: u64 = 200;

/// `batches` batches of [`OPS`] operations: thread CPU ns per operation of each.
pub(crate) fn batches(w: &mut dyn Workload, batches: usize) -> Result<Vec<f64>> {
    (0..batches)
        .map(|_| {
            timed_batch(w, OPS)
                .map(|(cpu, _)| cpu)
                .map_err(|e| anyhow!("{REFERENCE}: {e}"))
        })
        .collect()
}

/// The CPUs this process may run on.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills the one we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Pins the calling thread to `cpus`; false when `cpus` is empty or the kernel refuses.
pub(crate) fn pin_thread(cpus: &[usize]) -> bool {
    if cpus.is_empty() {
        return false;
    }
    // SAFETY: as above; sched_setaffinity reads the set we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Runs `f` with the calling thread pinned to `cpu`, then restores its affinity.
pub(crate) fn on_cpu<T>(cpu: usize, f: impl FnOnce() -> T) -> Option<T> {
    let before = allowed_cpus();
    if !pin_thread(&[cpu]) {
        return None;
    }
    let out = f();
    pin_thread(&before);
    Some(out)
}

/// One probe process (`serprof __reference-probe`): builds the reference, warms up, and prints
/// the median thread CPU ns per operation of `batches` batches as JSON on stdout.
pub(crate) fn probe_process(program: &Program, batches_n: usize) -> Result<()> {
    let mut w = build(&program.reference())?;
    serprof_api::__private::warm_up(w.as_mut(), std::time::Duration::from_millis(150))
        .map_err(|e| anyhow!("{REFERENCE}: {e}"))?;
    let b = batches(w.as_mut(), batches_n.max(1))?;
    let reply = crate::protocol::ProbeReply {
        median_ns: crate::model::stats::median(&b),
    };
    println!("{}", serde_json::to_string(&reply)?);
    Ok(())
}
