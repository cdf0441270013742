//! The recordings a configuration gets, each made by a child process of its own.

use serde::{Deserialize, Serialize};

/// One kind of recording of a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recording {
    /// The verification alone: the payload size, findings and whether it passed.
    Verify,
    /// Timing: thread CPU time per operation.
    Timing,
    /// CPU samples (pprof-rs): the CPU flame graph.
    Cpu,
    /// Allocation counts and sampled allocation stacks.
    Alloc,
    /// Under `valgrind --tool=callgrind`: one uncounted pass, then whole counted passes.
    Instructions,
    /// The corrupt study's decoding of damaged inputs.
    Corrupt,
}

impl Recording {
    /// Its name in file names and messages (`timing`, `cpu`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Recording::Verify => "verify",
            Recording::Timing => "timing",
            Recording::Cpu => "cpu",
            Recording::Alloc => "alloc",
            Recording::Instructions => "instructions",
            Recording::Corrupt => "corrupt",
        }
    }
}

impl std::fmt::Display for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
