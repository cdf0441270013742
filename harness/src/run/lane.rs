//! A lane of a lock-step schedule: one build taking part (this program, a before-after side, or
//! this program under one allocator), with the binaries its children are of.

use super::executor::Executor;
use crate::analyze::before_after::Side;
use crate::model::allocator::Allocator;

/// What a lane is: whose children it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneKind {
    /// The program measured (a run, `ab`).
    This,
    /// One side of a before-after: that build's binary.
    Side(Side),
    /// The program, its children allocating with this allocator (`run --allocators`).
    Allocator(Allocator),
}

impl LaneKind {
    /// Its name in the schedule (`this`, `before`, `after`, or the allocator's).
    pub(crate) fn name(self) -> &'static str {
        match self {
            LaneKind::This => "this",
            LaneKind::Side(side) => side.as_str(),
            LaneKind::Allocator(a) => a.name(),
        }
    }
}

/// One build taking part.
pub(crate) struct Lane<'a> {
    /// The binaries the lane's children are of: set `k` of children runs `execs[k % len]` (one
    /// binary, or one per layout of a before-after side).
    pub execs: Vec<&'a dyn Executor>,
    pub kind: LaneKind,
}

impl Lane<'_> {
    /// The binary of set `k`'s child.
    pub(crate) fn exec(&self, k: usize) -> &dyn Executor {
        self.execs[k % self.execs.len()]
    }
}
