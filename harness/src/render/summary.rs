//! The paragraph under a run's tables (and in its report): how the run measured, where it
//! ran, and where its time went.

use crate::model::manifest::PhaseSeconds;
use crate::model::stats::median_interval;
use crate::model::RunManifest;
use crate::render::table::format_ns;

/// How a run measured, in one paragraph: the timing schedule and its interval, where it ran,
/// the machine's load, and how the run was pieced together.
pub(crate) fn measurement_summary(m: &RunManifest) -> String {
    let st = &m.settings;
    let mut s = match m.schedules.last() {
        Some(sch) => {
            let (_, coverage) = median_interval(&vec![0.0; sch.children.max(1)]);
            // A run under allocators has a lane per allocator: a set of children, one each.
            let allocators = sch.builds.len() > 1
                && sch
                    .builds
                    .iter()
                    .all(|b| crate::model::allocator::Allocator::parse(b).is_some());
            let children = match allocators {
                false => format!(
                    "{} child process{} one after another, each holding every configuration",
                    sch.children,
                    if sch.children == 1 { "" } else { "es" }
                ),
                true => format!(
                    "{} sets of child processes one after another, a child per allocator in each ({}), each child holding every configuration under its allocator",
                    sch.children,
                    sch.builds.join(", ")
                ),
            };
            format!(
                "Timing: lock-step, {children} and running {} rounds of one sample (~{} ms, thread CPU time) of each, in an order shuffled from seed {}, {}. A child's figure of a configuration is the median of its samples with the machine's state (estimated from the {} neighbours on each side) taken out; times are the median across children ({:.1}% coverage), and a ratio of two rows is the median of the per-child ratios: lock-step ratios, measured moments apart.",
                sch.rounds,
                sch.sample_ms,
                sch.seed,
                sch.placement.describe(),
                sch.window,
                100.0 * coverage
            )
        }
        None => {
            let (_, coverage) = median_interval(&vec![0.0; st.processes.max(1)]);
            format!(
                "Timing: {} process{} per configuration, in interleaved rounds (order shuffled from seed {}). Time intervals are across processes ({:.1}% coverage); ratios pair the processes of a round.",
                st.processes,
                if st.processes == 1 { "" } else { "es" },
                st.seed,
                100.0 * coverage
            )
        }
    };
    if let Some(p) = &m.placement {
        let probe: Vec<String> = p
            .probe_ns
            .iter()
            .map(|(c, ns)| format!("CPU {c} {}", format_ns(*ns)))
            .collect();
        s.push_str(&format!(
            " Placement: {}{}.",
            p.how,
            if probe.is_empty() {
                String::new()
            } else {
                format!(" ({})", probe.join(", "))
            }
        ));
    }
    if let Some(h) = &m.health {
        s.push_str(&format!(
            " Load at start {:.2} {:.2} {:.2}.",
            h.loadavg[0], h.loadavg[1], h.loadavg[2]
        ));
    }
    if m.sessions.len() > 1 {
        s.push_str(&format!(
            " Pieced together from {} sessions (resumed): figures of different sessions were not interleaved with each other.",
            m.sessions.len()
        ));
    }
    if let Some(session) = m.sessions.last() {
        s.push_str(&format!(" {}", where_the_time_went(&session.seconds)));
    }
    s
}

/// A session's wall-clock seconds by phase, in one sentence: what each flag costs.
pub(crate) fn where_the_time_went(t: &PhaseSeconds) -> String {
    let mut parts = Vec::new();
    if t.layouts > 0.0 {
        parts.push(format!("layouts {:.0} s", t.layouts));
    }
    parts.push(format!("verification {:.0} s", t.verify));
    parts.push(format!("timing {:.0} s", t.timing));
    let summed: Vec<String> = [
        ("CPU", t.cpu),
        ("allocation", t.alloc),
        ("instructions", t.instructions),
    ]
    .into_iter()
    .filter(|(_, s)| *s > 0.0)
    .map(|(name, s)| format!("{name} {s:.0} s"))
    .collect();
    if t.recordings > 0.0 {
        parts.push(match summed.is_empty() {
            true => format!("recordings {:.0} s", t.recordings),
            false => format!(
                "recordings {:.0} s ({}, summed over the slots side by side)",
                t.recordings,
                summed.join(", ")
            ),
        });
    }
    if t.corrupt > 0.0 {
        parts.push(format!("corrupt study {:.0} s", t.corrupt));
    }
    format!("Where the time went: {}.", parts.join(", "))
}
