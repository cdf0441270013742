//! The events of callgrind's simulation as serprof names them: instructions, and, with
//! `--cache-sim=yes --branch-sim=yes`, mispredicted branches and data cache misses. An event
//! that sums several of callgrind's columns (a conditional and an indirect branch's
//! mispredictions) is added to a parsed [`Profile`] as a column of its own
//! ([`Profile::derive_event`]), so every view of one column reads it.

use super::Profile;

/// An event a view can rank and fold by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Instructions executed (`Ir`).
    Instructions,
    /// Branches mispredicted by valgrind's predictor model: conditional (`Bcm`) and indirect
    /// (`Bim`).
    BranchMispredicts,
    /// First-level data cache misses, reads and writes (`D1mr + D1mw`).
    D1Misses,
    /// Last-level cache misses of data, reads and writes (`DLmr + DLmw`).
    LlMisses,
}

impl Event {
    pub(crate) const ALL: [Event; 4] = [
        Event::Instructions,
        Event::BranchMispredicts,
        Event::D1Misses,
        Event::LlMisses,
    ];

    /// The name on the command line (`--event NAME`) and in file names.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Event::Instructions => "instructions",
            Event::BranchMispredicts => "branch-mispredicts",
            Event::D1Misses => "d1-misses",
            Event::LlMisses => "ll-misses",
        }
    }

    /// The event from its name.
    pub(crate) fn named(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Callgrind's columns it sums.
    pub(crate) fn columns(self) -> &'static [&'static str] {
        match self {
            Event::Instructions => &["Ir"],
            Event::BranchMispredicts => &["Bcm", "Bim"],
            Event::D1Misses => &["D1mr", "D1mw"],
            Event::LlMisses => &["DLmr", "DLmw"],
        }
    }

    /// What one unit of it is, for headers.
    pub(crate) fn unit(self) -> &'static str {
        match self {
            Event::Instructions => "instructions",
            Event::BranchMispredicts => "mispredicted branches",
            Event::D1Misses => "L1 data misses",
            Event::LlMisses => "last-level data misses",
        }
    }

    /// The folded stacks of a configuration's instructions recording weighed by it.
    pub(crate) fn folded_file(self) -> &'static str {
        match self {
            Event::Instructions => crate::layout::INSTRUCTIONS_FOLDED,
            Event::BranchMispredicts => "branch-mispredicts.folded",
            Event::D1Misses => "d1-misses.folded",
            Event::LlMisses => "ll-misses.folded",
        }
    }

    /// Its column in `profile`: callgrind's own for one column, else one added as the sum of
    /// its columns. `None` when the file lacks one of them (recorded without the simulation).
    pub(crate) fn column(self, profile: &mut Profile) -> Option<usize> {
        profile.derive_event(self.name(), self.columns())
    }
}

impl Profile {
    /// The column of the sum of the events `of`: callgrind's own for one event, else one added
    /// as `name` to every cost (or found, when added before); `None` when one of `of` is not in
    /// the file.
    pub(crate) fn derive_event(&mut self, name: &str, of: &[&str]) -> Option<usize> {
        if let [one] = of {
            return self.event(one);
        }
        if let Some(i) = self.event(name) {
            return Some(i);
        }
        let sources: Vec<usize> = of.iter().map(|e| self.event(e)).collect::<Option<_>>()?;
        let sum = |cost: &mut Vec<u64>| {
            let total = sources
                .iter()
                .map(|&i| cost.get(i).copied().unwrap_or(0))
                .sum();
            cost.push(total);
        };
        for f in &mut self.functions {
            sum(&mut f.self_cost);
            sum(&mut f.inclusive);
        }
        self.calls.iter_mut().for_each(|c| sum(&mut c.cost));
        self.lines.iter_mut().for_each(|l| sum(&mut l.cost));
        if let Some(s) = &mut self.summary {
            sum(s);
        }
        if let Some(t) = &mut self.totals {
            sum(t);
        }
        self.events.push(name.to_string());
        Some(self.events.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::LEGACY;
    use super::*;

    /// A real counted dump with the cache and branch simulation (see the fixtures' README.md).
    const SIMULATED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/simulated-true.out"
    ));

    #[test]
    fn a_simulated_dump_has_every_column_and_derived_ones_sum_them_everywhere() {
        let mut p = Profile::parse(SIMULATED).unwrap();
        for e in [
            "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi",
            "Bim",
        ] {
            assert!(p.event(e).is_some(), "{e} in {:?}", p.events);
        }
        let (bcm, bim) = (p.event("Bcm").unwrap(), p.event("Bim").unwrap());
        let before = p.events.len();
        let col = Event::BranchMispredicts.column(&mut p).unwrap();
        assert_eq!(p.events.len(), before + 1);
        assert!(p.total(bcm) > 0, "a real loop mispredicts some branches");
        assert_eq!(p.total(col), p.total(bcm) + p.total(bim));
        for f in &p.functions {
            assert_eq!(f.self_cost[col], f.self_cost[bcm] + f.self_cost[bim]);
            assert_eq!(f.inclusive[col], f.inclusive[bcm] + f.inclusive[bim]);
        }
        for c in &p.calls {
            assert_eq!(c.cost[col], c.cost[bcm] + c.cost[bim]);
        }
        // The totals line grew with the cost lines: they still agree.
        p.check_totals().unwrap();
        // Asked again, the column is found, not added twice.
        assert_eq!(Event::BranchMispredicts.column(&mut p), Some(col));
        assert_eq!(p.events.len(), before + 1);
        // Instructions are callgrind's own column.
        assert_eq!(Event::Instructions.column(&mut p), p.event("Ir"));
        for e in [Event::D1Misses, Event::LlMisses] {
            assert!(e.column(&mut p).is_some(), "{e:?}");
        }
    }

    #[test]
    fn a_dump_without_the_simulation_has_no_simulated_column() {
        let mut p = Profile::parse(LEGACY).unwrap();
        let events = p.events.clone();
        for e in [Event::BranchMispredicts, Event::D1Misses, Event::LlMisses] {
            assert_eq!(e.column(&mut p), None, "{e:?}");
        }
        assert_eq!(p.events, events, "nothing added");
    }

    #[test]
    fn every_event_is_found_by_its_name_and_no_other_name_is() {
        for e in Event::ALL {
            assert_eq!(Event::named(e.name()), Some(e));
        }
        assert_eq!(Event::named("cycles"), None);
    }
}
