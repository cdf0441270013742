//! Building a [`Profile`]'s tables: a [`Builder`] collects functions, calls and line costs while
//! a file is read or contexts are merged; [`Profile::take_tables`] makes them the profile's
//! tables and derives the inclusive costs, the call counts and the cycle flags.

use std::collections::{BTreeMap, HashMap};

use super::profile::{Call, Function, LineCost, Profile};

/// Adds `src` to `dst` event by event (`dst` grows to `src`'s length).
pub(super) fn add_to(dst: &mut Vec<u64>, src: &[u64]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// The tables of a profile while they are collected: functions by (object, file, name), calls
/// and line costs summed per (caller, callee) and per (file, line, function).
#[derive(Default)]
pub(super) struct Builder {
    pub(super) functions: Vec<Function>,
    index: HashMap<(String, String, String), usize>,
    pub(super) calls: BTreeMap<(usize, usize), (u64, Vec<u64>)>,
    pub(super) lines: HashMap<(String, u64, usize), Vec<u64>>,
}

impl Builder {
    /// The index of the function (object, file, name), added with no cost if it is new.
    pub(super) fn function(&mut self, object: &str, file: &str, name: &str) -> usize {
        let key = (object.to_string(), file.to_string(), name.to_string());
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.functions.len();
        self.functions.push(Function {
            name: name.to_string(),
            file: file.to_string(),
            object: object.to_string(),
            self_cost: Vec::new(),
            inclusive: Vec::new(),
            calls_in: 0,
            in_cycle: false,
        });
        self.index.insert(key, i);
        i
    }
}

impl Profile {
    /// Fills the function, call and line tables from `b` (costs padded to every event, lines
    /// sorted), then the derived figures.
    pub(super) fn take_tables(&mut self, b: Builder) {
        let n = self.events.len();
        self.functions = b.functions;
        for f in &mut self.functions {
            f.self_cost.resize(n, 0);
        }
        self.calls = b
            .calls
            .into_iter()
            .map(|((caller, callee), (count, mut cost))| {
                cost.resize(n, 0);
                Call {
                    caller,
                    callee,
                    count,
                    cost,
                }
            })
            .collect();
        let mut lines: Vec<LineCost> = b
            .lines
            .into_iter()
            .map(|((file, line, function), mut cost)| {
                cost.resize(n, 0);
                LineCost {
                    file,
                    line,
                    function,
                    cost,
                }
            })
            .collect();
        lines.sort_by(|a, b| (&a.file, a.line, a.function).cmp(&(&b.file, b.line, b.function)));
        self.lines = lines;
        self.derive();
    }

    /// Recomputes inclusive costs, call counts and cycle flags from self costs and calls.
    fn derive(&mut self) {
        let n = self.events.len();
        for f in &mut self.functions {
            f.inclusive = f.self_cost.clone();
            f.inclusive.resize(n, 0);
            f.calls_in = 0;
            f.in_cycle = false;
        }
        for c in &self.calls {
            if c.caller != c.callee {
                let cost = c.cost.clone();
                add_to(&mut self.functions[c.caller].inclusive, &cost);
            }
            self.functions[c.callee].calls_in += c.count;
        }
        for (i, in_cycle) in self.cycle_members().into_iter().enumerate() {
            self.functions[i].in_cycle = in_cycle;
        }
    }

    /// Functions on a cycle of two or more distinct functions (Tarjan's SCCs, iteratively).
    fn cycle_members(&self) -> Vec<bool> {
        let n = self.functions.len();
        let adj = self.callee_lists();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = vec![false; n];
        let mut next = 0usize;
        for s in 0..n {
            if index[s] != usize::MAX {
                continue;
            }
            let mut work: Vec<(usize, usize)> = vec![(s, 0)];
            index[s] = next;
            low[s] = next;
            next += 1;
            stack.push(s);
            on_stack[s] = true;
            while let Some(&mut (v, ref mut k)) = work.last_mut() {
                if *k < adj[v].len() {
                    let w = self.calls[adj[v][*k]].callee;
                    *k += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    work.pop();
                    if let Some(&(u, _)) = work.last() {
                        low[u] = low[u].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut comp = Vec::new();
                        loop {
                            let w = stack.pop().expect("tarjan stack");
                            on_stack[w] = false;
                            comp.push(w);
                            if w == v {
                                break;
                            }
                        }
                        if comp.len() > 1 {
                            for w in comp {
                                out[w] = true;
                            }
                        }
                    }
                }
            }
        }
        out
    }
}
