//! Folded stacks from the caller -> callee graph ([`Profile::folded`]): a profile keeps costs
//! per function and per call, and this file splits them into costs per stack (how, and how
//! exact that is: see [`Profile::folded`]). [`apportion`] is the whole-number split it uses.

use std::collections::HashMap;

use super::context::base_name;
use super::profile::Profile;
use crate::profile::folded::Folded;

/// Options of [`Profile::folded`].
#[derive(Debug, Clone)]
pub(crate) struct FoldOptions {
    /// Event index (see [`Profile::event`]).
    pub event: usize,
    /// Start at these functions (indices); `None`: at every function with cost that no other
    /// function calls (for a `--toggle-collect` profile: the program's entry point, with the
    /// uncollected callers of the toggled function above it).
    pub roots: Option<Vec<usize>>,
    /// A frame whose share is below this is not split further: its whole share is written as
    /// the frame's own (so totals stay exact, detail below it is lost). 0 or 1: split down to
    /// single instructions.
    pub min_count: u64,
    /// Frames deeper than this are not split further, likewise.
    pub max_depth: usize,
    /// Write frames as [`base_name`]s (without `'2`, `'caller` context suffixes).
    pub base_names: bool,
}

impl Default for FoldOptions {
    fn default() -> Self {
        FoldOptions {
            event: 0,
            roots: None,
            min_count: 0,
            max_depth: 400,
            base_names: true,
        }
    }
}

impl Profile {
    /// Folded stacks of `opts.event`, rebuilt from the caller -> callee graph. A stack starts
    /// at its root function (no frame is put above it) and `;` inside a name is written `:`.
    ///
    /// Callgrind keeps costs per function and per caller -> callee pair, not per stack. From
    /// each root, a frame's share of cost (the root's: its inclusive cost) is split among the
    /// frame's own self cost and its calls to other functions, in proportion to the function's
    /// self cost and the costs of those calls summed over *all* its callers; each call's part
    /// is split again in the callee's frame, and so on. Shares are whole numbers (largest
    /// remainder), so each split adds up exactly.
    ///
    /// How exact that is:
    /// * the counts add up exactly to the roots' inclusive cost;
    /// * where every function below the root has a single caller (a call tree), every stack
    ///   is exact;
    /// * without cycles, and with every caller of a function below the root, each function's
    ///   counts summed over stacks equal its self cost, and each caller -> callee pair's flow
    ///   equals that call cost, exactly but for rounding (at most one unit per split);
    /// * what is assumed: a function called from several places splits its cost among self
    ///   and callees the same way for every caller. With `--separate-callers=N` the graph is
    ///   of contexts (g called from f, from e), so the assumption only applies beyond N
    ///   callers: the deeper N, the more stacks are exact. On serprof's postcard round trip
    ///   (serde: generic functions shared by many callers), against `--separate-callers=32`,
    ///   the stacks without contexts are off by 42% of the instructions (sum of absolute
    ///   differences per stack), with 4 callers by 0.8%, with 8 by 0.002%;
    /// * recursion: calls of a function to itself are inside its own frame (their cost is in
    ///   its self cost and other calls); callgrind's recursion levels (`f'2`) are frames of
    ///   their own, written `f` with `base_names`; a call that would close a cycle through
    ///   other functions (b calling back into a already on the stack) ends the stack there,
    ///   with the call's whole share as that last frame's count. Cycles make inclusive costs
    ///   count inner activations twice (see
    ///   [`Function::in_cycle`](super::Function::in_cycle)), and the shares in a cycle are
    ///   proportional to those.
    pub(crate) fn folded(&self, opts: &FoldOptions) -> Folded {
        let e = opts.event;
        let roots: Vec<usize> = match &opts.roots {
            Some(r) => r.clone(),
            None => {
                let mut called = vec![false; self.functions.len()];
                for c in &self.calls {
                    if c.caller != c.callee && c.cost[e] > 0 {
                        called[c.callee] = true;
                    }
                }
                (0..self.functions.len())
                    .filter(|&i| !called[i] && self.functions[i].inclusive[e] > 0)
                    .collect()
            }
        };
        let mut fold = Fold {
            profile: self,
            opts,
            callees: self.callee_lists(),
            on_path: vec![false; self.functions.len()],
            path: String::new(),
            out: HashMap::new(),
        };
        for r in roots {
            let flow = self.functions[r].inclusive[e];
            if flow > 0 {
                fold.frame(r, flow, 1);
            }
        }
        Folded {
            stacks: fold.out.into_iter().filter(|(_, n)| *n > 0).collect(),
        }
    }
}

/// A fold under way: the profile and options it folds, the stack it is in, and the counts of
/// the stacks it has left.
struct Fold<'a> {
    profile: &'a Profile,
    opts: &'a FoldOptions,
    /// Per function, its calls to other functions (indices into [`Profile::calls`]).
    callees: Vec<Vec<usize>>,
    /// Per function, whether it is on the current stack.
    on_path: Vec<bool>,
    /// The current stack: frame names, root first, joined by `;`.
    path: String,
    /// Count per stack.
    out: HashMap<String, u64>,
}

impl Fold<'_> {
    /// The frame name of function `f`: its name ([`base_name`] with `opts.base_names`), `;`
    /// written as `:` so that `;` only separates frames.
    fn frame_name(&self, f: usize) -> String {
        let n = &self.profile.functions[f].name;
        let n = if self.opts.base_names {
            base_name(n)
        } else {
            n
        };
        n.replace(';', ":")
    }

    /// Adds `n` to the count of the current stack.
    fn count(&mut self, n: u64) {
        *self.out.entry(self.path.clone()).or_default() += n;
    }

    /// Puts the frame of `f`, `depth` frames deep, on the current stack with `flow` of cost and
    /// splits that among its self cost and its calls.
    fn frame(&mut self, f: usize, flow: u64, depth: usize) {
        let p = self.profile;
        let e = self.opts.event;
        let keep = self.path.len();
        if !self.path.is_empty() {
            self.path.push(';');
        }
        let name = self.frame_name(f);
        self.path.push_str(&name);
        let calls: Vec<usize> = self.callees[f]
            .iter()
            .copied()
            .filter(|&c| p.calls[c].cost[e] > 0)
            .collect();
        let stop =
            flow < self.opts.min_count.max(1) || depth >= self.opts.max_depth || calls.is_empty();
        if stop {
            self.count(flow);
            self.path.truncate(keep);
            return;
        }
        self.on_path[f] = true;
        let mut weights = Vec::with_capacity(calls.len() + 1);
        weights.push(p.functions[f].self_cost[e]);
        weights.extend(calls.iter().map(|&c| p.calls[c].cost[e]));
        let shares = apportion(flow, &weights);
        if shares[0] > 0 {
            self.count(shares[0]);
        }
        for (k, &c) in calls.iter().enumerate() {
            let s = shares[k + 1];
            if s == 0 {
                continue;
            }
            let g = p.calls[c].callee;
            if self.on_path[g] {
                // A call back into a frame already on the stack: end the stack here.
                let keep_caller = self.path.len();
                self.path.push(';');
                let name = self.frame_name(g);
                self.path.push_str(&name);
                self.count(s);
                self.path.truncate(keep_caller);
            } else {
                self.frame(g, s, depth + 1);
            }
        }
        self.on_path[f] = false;
        self.path.truncate(keep);
    }
}

/// Splits `total` in proportion to `weights` into whole numbers that add up to `total`
/// (largest remainder; ties to the earlier weight). All zero weights: all to the first.
pub(crate) fn apportion(total: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u128 = weights.iter().map(|&w| w as u128).sum();
    let mut out = vec![0u64; weights.len()];
    if weights.is_empty() {
        return out;
    }
    if sum == 0 {
        out[0] = total;
        return out;
    }
    let mut rems: Vec<(u128, usize)> = Vec::with_capacity(weights.len());
    let mut given: u64 = 0;
    for (i, &w) in weights.iter().enumerate() {
        let num = total as u128 * w as u128;
        out[i] = (num / sum) as u64;
        given += out[i];
        rems.push((num % sum, i));
    }
    rems.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in rems.iter().take((total - given) as usize) {
        out[i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::test_data::*;
    use super::*;

    #[test]
    fn apportion_adds_up() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(apportion(7, &[0, 0]), vec![7, 0]);
        assert_eq!(apportion(0, &[5, 5]), vec![0, 0]);
        assert_eq!(apportion(100, &[20, 80]), vec![20, 80]);
        let s = apportion(u64::MAX / 3, &[u64::MAX / 2, 3, u64::MAX / 5]);
        assert_eq!(
            s.iter().map(|&x| x as u128).sum::<u128>(),
            (u64::MAX / 3) as u128
        );
    }

    #[test]
    fn folded_tree_is_exact() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        let f = p.folded(&FoldOptions::default());
        // func2 has two callers: 400 via main and 300 via func1 -- each call's cost is all
        // func2 self cost, so even the shared callee's stacks are exact here.
        assert_eq!(
            stack_rows(&f),
            [
                ("main", 20),
                ("main;func1", 100),
                ("main;func1;func2", 300),
                ("main;func2", 400),
            ]
        );
        assert_eq!(
            f.to_text(),
            "main 20\nmain;func1 100\nmain;func1;func2 300\nmain;func2 400\n"
        );
    }

    /// A shared callee whose split differs per caller: the fold assumes the average split.
    #[test]
    fn folded_shared_callee_is_approximated_but_adds_up() {
        // a -> s (cost 100, all in s's callee x); b -> s (cost 100, all s self).
        let text = "events: Ir
fn=root
1 0
cfn=a
calls=1 1
1 100
cfn=b
calls=1 1
1 100
fn=a
1 0
cfn=s
calls=1 1
1 100
fn=b
1 0
cfn=s
calls=1 1
1 100
fn=s
1 100
cfn=x
calls=1 1
1 100
fn=x
1 100
";
        let p = Profile::parse(text).unwrap();
        let f = p.folded(&FoldOptions::default());
        let m: HashMap<&str, u64> = f.stacks.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        // Truth: root;a;s;x 100 and root;b;s 100. Proportional: half and half under each.
        assert_eq!(m["root;a;s"], 50);
        assert_eq!(m["root;a;s;x"], 50);
        assert_eq!(m["root;b;s"], 50);
        assert_eq!(m["root;b;s;x"], 50);
        assert_eq!(f.total(), 200);
        // Per function, exact: s self 100, x self 100.
        let s_self: u64 = f
            .stacks
            .iter()
            .filter(|(k, _)| k.ends_with(";s"))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(s_self, 100);
    }

    #[test]
    fn folded_direct_recursion_and_cycles_terminate() {
        // f calls itself (cost inside f) and a <-> b mutual recursion.
        let text = "events: Ir
fn=main
1 1
cfn=f
calls=1 1
1 30
cfn=a
calls=1 1
1 60
fn=f
1 30
cfn=f
calls=5 1
1 25
fn=a
1 20
cfn=b
calls=2 1
1 40
fn=b
1 20
cfn=a
calls=1 1
1 20
";
        let p = Profile::parse(text).unwrap();
        let f = by_name(&p, "f");
        assert_eq!(f.inclusive[0], 30, "self-calls are not added again");
        assert!(!f.in_cycle);
        assert!(by_name(&p, "a").in_cycle && by_name(&p, "b").in_cycle);
        let fold = p.folded(&FoldOptions::default());
        assert_eq!(fold.total(), 91);
        let m: HashMap<&str, u64> = fold.stacks.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        assert_eq!(m["main;f"], 30);
        assert!(m.contains_key("main;a;b;a"), "{:?}", fold.stacks);
    }

    #[test]
    fn folded_min_count_and_depth_keep_totals() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        let f = p.folded(&FoldOptions {
            min_count: 500,
            ..FoldOptions::default()
        });
        assert_eq!(f.total(), 820);
        assert!(
            f.stacks.iter().any(|(s, n)| s == "main;func1" && *n == 400),
            "{:?}",
            f.stacks
        );
        let d = p.folded(&FoldOptions {
            max_depth: 1,
            ..FoldOptions::default()
        });
        assert_eq!(stack_rows(&d), [("main", 820)]);
        let r = p.folded(&FoldOptions {
            roots: Some(p.find("func1")),
            ..FoldOptions::default()
        });
        assert_eq!(stack_rows(&r), [("func1", 100), ("func1;func2", 300)]);
    }

    #[test]
    fn toggled_loop_is_the_whole_profile() {
        for (name, text, pattern) in [
            ("legacy", LEGACY, LOOP),
            ("v0", V0, "scratch::workload::roundtrip_loop::<*>"),
            ("serprof", SERPROF, "serprof::record::roundtrip_loop"),
        ] {
            let p = Profile::parse(text).unwrap();
            let found = p.find(pattern);
            assert_eq!(found.len(), 1, "{name}");
            let f = &p.functions[found[0]];
            assert_eq!(
                f.inclusive[0],
                p.total_ir().unwrap(),
                "{name}: loop inclusive = total"
            );
            // Its callers ran outside collection: no self cost, the one counted call (the
            // callers above them show calls=0).
            let callers = p.callers(found[0], 0);
            assert_eq!(callers.len(), 1, "{name}");
            let c = &p.calls[callers[0]];
            assert!(c.count <= 1, "{name}: {}", c.count);
            assert_eq!(c.cost[0], p.total_ir().unwrap(), "{name}");
            assert_eq!(p.functions[c.caller].self_cost[0], 0, "{name}");
            // Folding from the loop gives the same stacks as from the entry point, below it.
            let all = p.folded(&FoldOptions::default());
            let from_loop = p.folded(&FoldOptions {
                roots: Some(found.clone()),
                ..FoldOptions::default()
            });
            assert_eq!(from_loop.total(), all.total());
            let loop_frame = base_name(&f.name).to_string();
            for (s, n) in &from_loop.stacks {
                let hit = all.stacks.iter().find(|(a, _)| {
                    a.ends_with(&format!(";{s}")) && a.contains(&format!(";{loop_frame}"))
                });
                assert_eq!(hit.map(|h| h.1), Some(n), "{name}: {s}");
            }
        }
    }
}
