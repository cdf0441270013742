//! The short CPU profiles a set of timing children records after its rounds
//! (`settings.functions_ms`): before-after's functions over layouts
//! ([`crate::analyze::moved`]).

use super::{ScheduleState, Set, Stop, UnitProfile};
use crate::analyze::moved::SetProfile;
use crate::process::pipes::Lost;
use crate::profile::folded::Folded;
use crate::protocol::{TimingCommand, TimingReply};
use crate::run::progress::Progress;

impl Set<'_> {
    /// Each live child's profile of each configuration it holds, `ms` of CPU time each (at
    /// `settings.functions_hz`), one
    /// child after the other, in the order they started. A profile the child could not make
    /// is left out.
    pub(super) fn profiles(
        &mut self,
        ms: u64,
        k: usize,
        state: &mut ScheduleState,
        progress: &Progress,
    ) -> Result<Vec<UnitProfile>, Stop> {
        let sets = self.job.settings.processes.max(1);
        let hz = self.job.settings.functions_hz.max(1);
        progress.recording(
            "lock-step timing",
            &format!("child {}/{sets}, profiles", k + 1),
        );
        let mut out = Vec::new();
        // In the order the children started, whose first lane takes turns by set: neither
        // build always profiles first, or waits while the other profiles.
        for lane in self.order.clone() {
            let mut made = false;
            for c in self.units[lane].clone() {
                let Some(unit) = self.holds(lane, c, state) else {
                    continue;
                };
                self.in_flight[lane] = Some(c);
                self.send(lane, TimingCommand::Profile { unit, ms, hz }, k, state)?;
                match self.receive(lane, k, state)? {
                    TimingReply::Profiled { .. } => made = true,
                    _ => return Err(self.lose(lane, Lost::Closed, k, state)),
                }
                self.in_flight[lane] = None;
            }
            if !made {
                continue;
            }
            // Folded once every profile of the child is made: symbolising allocates, and the
            // later profiles would see the heap it left.
            self.send(lane, TimingCommand::Fold, k, state)?;
            let folded = match self.receive(lane, k, state)? {
                TimingReply::Profiles { folded } => folded,
                _ => return Err(self.lose(lane, Lost::Closed, k, state)),
            };
            for (unit, text) in folded {
                let (Some(&c), Ok(folded)) = (self.units[lane].get(unit), Folded::parse(&text))
                else {
                    continue;
                };
                out.push(UnitProfile {
                    lane,
                    config: c,
                    profile: SetProfile { set: k, folded },
                });
            }
        }
        Ok(out)
    }
}
