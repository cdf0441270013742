//! The tables of a parsed callgrind file ([`Profile`]: its functions, the calls between them,
//! the self cost of each source line) and the queries on them: totals, rankings, callers and
//! callees. The other files of this module add to `Profile` what reads, merges and folds it.

/// One subposition kind of the `positions:` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    /// An instruction address (`--dump-instr=yes`), relative to the object's load offset.
    Instr,
    /// A source line number (`--dump-line=yes`, the default); 0 when there is no debug info.
    Line,
    /// A basic block address (`--dump-bb=yes`).
    Bb,
}

/// A function (or, with separate callers or recursion levels, a function context),
/// identified by its object, the file of its `fl=` and its name, as callgrind identifies it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Function {
    /// The demangled name as callgrind wrote it, contexts included (`f'2`, `g'f'e`).
    pub name: String,
    /// The source file of the function (`fl=`); `???` without debug info.
    pub file: String,
    /// The ELF object (`ob=`).
    pub object: String,
    /// Self cost per event.
    pub self_cost: Vec<u64>,
    /// Self cost plus the cost of the calls it makes to *other* functions. Calls to itself
    /// are left out: their cost is already in this function's self cost and other calls.
    /// Exact without recursion through other functions; see [`Function::in_cycle`].
    pub inclusive: Vec<u64>,
    /// Calls to it, summed over its callers (0 for calls made while collection was off).
    pub calls_in: u64,
    /// Whether it is on a call cycle through another function (a -> b -> a). Then its
    /// inclusive cost counts the inner activations twice, as callgrind_annotate's does.
    pub in_cycle: bool,
}

/// Calls from one function to another, summed over call sites.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    /// Index into [`Profile::functions`].
    pub caller: usize,
    /// Index into [`Profile::functions`].
    pub callee: usize,
    /// Number of calls (0 when the calls started before collection was switched on, as for
    /// the callers of a `--toggle-collect` function).
    pub count: u64,
    /// Inclusive cost spent in those calls, per event.
    pub cost: Vec<u64>,
}

/// Self cost at one source line, inside one function.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineCost {
    pub file: String,
    /// 0 when callgrind had no line information.
    pub line: u64,
    /// Index into [`Profile::functions`].
    pub function: usize,
    pub cost: Vec<u64>,
}

/// A parsed callgrind file.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Profile {
    /// Event names of `events:`, e.g. `["Ir"]`.
    pub events: Vec<String>,
    /// Subpositions of `positions:` (default `[Line]`).
    pub positions: Vec<Position>,
    /// `cmd:` of the first part.
    pub cmd: Option<String>,
    /// `pid:` of the first part.
    pub pid: Option<u64>,
    /// `desc: Trigger:` of each part (e.g. `Program termination`).
    pub triggers: Vec<String>,
    /// Number of parts read (1 unless `--combine-dumps=yes`).
    pub parts: usize,
    /// `summary:` as written (summed over parts). Callgrind writes 0 here with
    /// `--instr-atstart=no`: prefer [`Profile::total`].
    pub summary: Option<Vec<u64>>,
    /// `totals:` as written (summed over parts).
    pub totals: Option<Vec<u64>>,
    pub functions: Vec<Function>,
    pub calls: Vec<Call>,
    /// Self cost per (file, line, function), sorted by them. Empty with `--dump-line=no`.
    pub lines: Vec<LineCost>,
}

impl Profile {
    /// Index of the event `name` (e.g. `"Ir"`).
    pub(crate) fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// Total cost of `event`: the sum of all self costs (what `totals:` should say).
    pub(crate) fn total(&self, event: usize) -> u64 {
        self.functions
            .iter()
            .map(|f| f.self_cost.get(event).copied().unwrap_or(0))
            .sum()
    }

    /// Total instructions executed (event `Ir`), or `None` if the file has no `Ir` event.
    #[cfg(test)]
    pub(crate) fn total_ir(&self) -> Option<u64> {
        self.event("Ir").map(|e| self.total(e))
    }

    /// Checks the sums against the `totals:` line (when there is one).
    #[cfg(test)]
    pub(crate) fn check_totals(&self) -> Result<(), TotalsMismatch> {
        if let Some(t) = &self.totals {
            for (e, name) in self.events.iter().enumerate() {
                let declared = t.get(e).copied().unwrap_or(0);
                let sum = self.total(e);
                if declared != sum {
                    return Err(TotalsMismatch {
                        event: name.clone(),
                        declared,
                        sum,
                    });
                }
            }
        }
        Ok(())
    }

    /// Calls made to function `f` (indices into `calls`), by descending cost of `event`.
    #[cfg(test)]
    pub(crate) fn callers(&self, f: usize, event: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.calls.len())
            .filter(|&i| self.calls[i].callee == f)
            .collect();
        v.sort_by(|&a, &b| self.calls[b].cost[event].cmp(&self.calls[a].cost[event]));
        v
    }

    /// For each function, the indices into `calls` of its calls to other functions.
    pub(super) fn callee_lists(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.functions.len()];
        for (i, c) in self.calls.iter().enumerate() {
            if c.caller != c.callee {
                adj[c.caller].push(i);
            }
        }
        adj
    }
}

/// A `totals:` line that is not the sum of the cost lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{event}: totals: says {declared}, cost lines sum to {sum}")]
#[cfg(test)]
pub(crate) struct TotalsMismatch {
    pub event: String,
    pub declared: u64,
    pub sum: u64,
}
