//! The investigation views over folded stacks, as JProfiler has them: the call tree (top down,
//! total and self shares), hot-spot backtraces (the merged caller tree of the functions that
//! match), and aggregation of frames by module or crate ([`regroup`]).
//!
//! Every view keeps the profile's exact counts: a node's count is the sum of the stacks through
//! it, nothing is estimated.

use std::collections::BTreeMap;

use regex::Regex;
use serde::Serialize;

use crate::profile::folded::Folded;
use crate::profile::sources::{crate_of_name, By, Grouping, Sources};

/// The same stacks with every frame (but the root, the configuration's name) replaced by its
/// group; consecutive frames of one group become one (a crate calling itself is one frame).
pub(crate) fn regroup(folded: &Folded, by: By, sources: &Sources) -> Folded {
    match by {
        By::Function => return folded.clone(),
        By::Type => return super::types::by_type(folded, &super::types::TypeHints::default()),
        By::Module | By::Crate => {}
    }
    let mut g = Grouping::new(by, sources);
    let mut out = Folded::default();
    for (frames, count) in folded.iter() {
        let mut key = frames.first().copied().unwrap_or("").to_string();
        let mut last: Option<String> = None;
        for f in frames.iter().skip(1) {
            let name = g.group(f);
            if last.as_deref() != Some(name.as_str()) {
                key.push(';');
                key.push_str(&name.replace([';', ' '], "_"));
                last = Some(name);
            }
        }
        *out.stacks.entry(key).or_insert(0) += count;
    }
    out
}

/// Whether a frame is allocation plumbing rather than the code that wanted the memory: Rust's
/// `alloc` and `core` (`RawVec` growth, `Vec::push`, `String::push_str`, `ToOwned`, `Clone` of
/// a `Vec`, iterator `collect`) and the allocator's entry points.
fn is_plumbing(frame: &str) -> bool {
    frame.starts_with("__rust")
        || frame.starts_with("__rdl")
        || frame.starts_with("__rg")
        || matches!(crate_of_name(frame).as_deref(), Some("alloc" | "core"))
}

/// Allocation stacks cut at their allocating site: the first frame from the leaf that is not
/// allocation plumbing ([`is_plumbing`]); a stack of plumbing only keeps its outermost frame.
pub(crate) fn allocation_sites(folded: &Folded) -> Folded {
    let mut out = Folded::default();
    for (frames, count) in folded.iter() {
        let mut end = frames.len();
        while end > 2 && is_plumbing(frames[end - 1]) {
            end -= 1;
        }
        *out.stacks.entry(frames[..end].join(";")).or_insert(0) += count;
    }
    out
}

/// A node of a tree view. `frames` holds more than one frame when a single-child chain was
/// folded into this node (every frame of it has the same count).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Node {
    pub frames: Vec<String>,
    /// Samples (bytes, instructions) through this node.
    pub total: u64,
    /// Of them, those that end here: the node's self cost in a call tree; in a backtrace tree,
    /// the samples whose stack has no caller above this one.
    pub self_count: u64,
    /// `total` and `self_count` as a share of the view's base (the whole profile for a call
    /// tree, the matched samples for backtraces).
    pub total_percent: f64,
    pub self_percent: f64,
    pub children: Vec<Node>,
}

#[derive(Default)]
struct Trie {
    total: u64,
    self_count: u64,
    children: BTreeMap<String, Trie>,
}

impl Trie {
    fn add<'a>(&mut self, path: impl Iterator<Item = &'a str>, count: u64) {
        let mut node = self;
        node.total += count;
        for f in path {
            node = node.children.entry(f.to_string()).or_default();
            node.total += count;
        }
        node.self_count += count;
    }
}

fn percent(part: u64, base: u64) -> f64 {
    if base == 0 {
        0.0
    } else {
        100.0 * part as f64 / base as f64
    }
}

/// How much of a tree to keep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewLimits {
    /// Nodes below this share of the base are left out (their cost stays in their parent's
    /// total).
    pub min_percent: f64,
    /// Levels of nodes kept (a folded chain is one level).
    pub depth: usize,
}

impl ViewLimits {
    /// `--min` of `serprof tree` and `serprof hotspots --backtraces`.
    pub(crate) const DEFAULT_MIN_PERCENT: f64 = 0.5;
    /// `--depth` of `serprof tree` and `serprof hotspots --backtraces`.
    pub(crate) const DEFAULT_DEPTH: usize = 20;
}

/// Turns a trie into nodes: children by descending total, single-child chains without self
/// cost folded into one node, small and deep nodes left out.
fn nodes(name: &str, t: &Trie, base: u64, limits: ViewLimits, level: usize) -> Option<Node> {
    if percent(t.total, base) < limits.min_percent || level >= limits.depth {
        return None;
    }
    let mut frames = vec![name.to_string()];
    let mut t = t;
    while t.self_count == 0 && t.children.len() == 1 {
        let (n, child) = t.children.iter().next()?;
        frames.push(n.clone());
        t = child;
    }
    let mut kids: Vec<(&String, &Trie)> = t.children.iter().collect();
    kids.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
    let children = kids
        .into_iter()
        .filter_map(|(n, c)| nodes(n, c, base, limits, level + 1))
        .collect();
    Some(Node {
        frames,
        total: t.total,
        self_count: t.self_count,
        total_percent: percent(t.total, base),
        self_percent: percent(t.self_count, base),
        children,
    })
}

/// The call tree of a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CallTree {
    pub total: u64,
    pub focus: Option<String>,
    /// Samples under the focus (all of them without one).
    pub focused: u64,
    pub roots: Vec<Node>,
}

/// The top-down call tree. With `focus`, only stacks through a matching frame, each started at
/// its outermost matching frame (so the tree shows what the focused functions call); shares are
/// of the whole profile either way.
pub(crate) fn call_tree(folded: &Folded, focus: Option<&Regex>, limits: ViewLimits) -> CallTree {
    let total = folded.total();
    let mut trie = Trie::default();
    let mut focused = 0;
    for (frames, count) in folded.iter() {
        // The first frame is the configuration's name, not a function.
        let start = match focus {
            None => 1,
            Some(re) => match frames.iter().skip(1).position(|f| re.is_match(f)) {
                Some(i) => i + 1,
                None => continue,
            },
        };
        focused += count;
        trie.add(frames[start..].iter().copied(), count);
    }
    let roots = roots_of(&trie, total, limits);
    CallTree {
        total,
        focus: focus.map(|r| r.as_str().to_string()),
        focused,
        roots,
    }
}

fn roots_of(trie: &Trie, base: u64, limits: ViewLimits) -> Vec<Node> {
    let mut kids: Vec<(&String, &Trie)> = trie.children.iter().collect();
    kids.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
    kids.into_iter()
        .filter_map(|(n, c)| nodes(n, c, base, limits, 0))
        .collect()
}

/// Hot-spot backtraces of the functions matching a regex.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Backtraces {
    pub regex: String,
    pub total: u64,
    /// Samples whose stack has a matching frame.
    pub matched: u64,
    pub matched_percent: f64,
    /// One root per matching function: the function, then its callers, outward.
    pub roots: Vec<Node>,
}

/// The merged caller tree of the frames that match `re`. Each stack with a match counts once,
/// for its innermost matching frame (the one nearest to the running code), and is followed from
/// there to the outermost caller; the configuration's name (the root) is left out. Shares are
/// of the matched samples.
pub(crate) fn backtraces(folded: &Folded, re: &Regex, limits: ViewLimits) -> Backtraces {
    let total = folded.total();
    let mut trie = Trie::default();
    for (frames, count) in folded.iter() {
        let funcs = frames.get(1..).unwrap_or(&[]);
        if let Some(i) = funcs.iter().rposition(|f| re.is_match(f)) {
            trie.add(funcs[..=i].iter().rev().copied(), count);
        }
    }
    let matched = trie.total;
    let roots = roots_of(&trie, matched, limits);
    Backtraces {
        regex: re.as_str().to_string(),
        total,
        matched,
        matched_percent: percent(matched, total),
        roots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Folded {
        Folded::parse(
            "cfg;main;run;decode;parse_i64;scan 6\n\
             cfg;main;run;decode;read_decimal;parse_i64;scan 3\n\
             cfg;main;run;decode;read_decimal;parse_i64 1\n\
             cfg;main;run;encode 4\n\
             cfg;main 1\n",
        )
        .unwrap()
    }

    const ALL: ViewLimits = ViewLimits {
        min_percent: 0.0,
        depth: usize::MAX,
    };

    #[test]
    fn the_call_tree_folds_chains_and_keeps_counts() {
        let t = call_tree(&profile(), None, ALL);
        assert_eq!(t.total, 15);
        assert_eq!(t.roots.len(), 1);
        let main = &t.roots[0];
        assert_eq!(main.frames, ["main"]);
        assert_eq!((main.total, main.self_count), (15, 1));
        let run = &main.children[0];
        assert_eq!(run.frames, ["run"], "run has two children: not folded");
        let decode = &run.children[0];
        assert_eq!((decode.frames.len(), decode.total), (1, 10));
        let chain = &decode.children[0];
        assert_eq!(chain.frames, ["parse_i64", "scan"]);
        assert_eq!((chain.total, chain.self_count), (6, 6));
        assert_eq!(run.children[1].frames, ["encode"]);
        let sums: u64 = run.children.iter().map(|c| c.total).sum();
        assert_eq!(sums + run.self_count, run.total);
    }

    #[test]
    fn limits_cut_small_and_deep_nodes() {
        let t = call_tree(
            &profile(),
            None,
            ViewLimits {
                min_percent: 30.0,
                depth: 3,
            },
        );
        let run = &t.roots[0].children[0];
        assert_eq!(run.children.len(), 1, "encode (27%) is left out");
        assert!(run.children[0].children.is_empty(), "depth 3");
    }

    #[test]
    fn focus_starts_at_the_outermost_match() {
        let re = Regex::new("parse_i64").unwrap();
        let t = call_tree(&profile(), Some(&re), ALL);
        assert_eq!(t.focused, 10);
        assert_eq!(t.roots.len(), 1);
        assert_eq!(t.roots[0].frames[0], "parse_i64");
        assert_eq!(t.roots[0].total, 10);
        assert_eq!(t.roots[0].self_count, 1);
    }

    #[test]
    fn backtraces_merge_the_callers_of_the_innermost_match() {
        let re = Regex::new("scan|parse_i64").unwrap();
        let b = backtraces(&profile(), &re, ALL);
        assert_eq!((b.total, b.matched), (15, 10));
        // scan (9) and parse_i64 as the innermost match (1).
        assert_eq!(b.roots.len(), 2);
        let scan = &b.roots[0];
        assert_eq!((scan.frames[0].as_str(), scan.total), ("scan", 9));
        assert_eq!(
            scan.frames[1], "parse_i64",
            "single caller: folded into the root"
        );
        let callers: Vec<(&str, u64)> = scan
            .children
            .iter()
            .map(|c| (c.frames[0].as_str(), c.total))
            .collect();
        assert_eq!(callers, [("decode", 6), ("read_decimal", 3)]);
        assert_eq!(b.roots[1].frames[0], "parse_i64");
        assert!((scan.total_percent - 90.0).abs() < 1e-9);
    }

    #[test]
    fn allocation_sites_skip_vec_and_string_growth() {
        let f = Folded::parse(
            "cfg;main;serde_json::de::Deserializer<R>::parse_str;alloc::vec::Vec<T,A>::extend_from_slice;alloc::raw_vec::RawVec<T,A>::grow_one 7\n\
             cfg;main;mine::build;<T as alloc::borrow::ToOwned>::to_owned 3\n\
             cfg;main;mine::build 2\n\
             cfg;alloc::raw_vec::finish_grow 1\n",
        )
        .unwrap();
        let s = allocation_sites(&f);
        assert_eq!(
            s.to_text(),
            "cfg;alloc::raw_vec::finish_grow 1\ncfg;main;mine::build 5\ncfg;main;serde_json::de::Deserializer<R>::parse_str 7\n"
        );
        assert_eq!(s.total(), f.total());
    }

    #[test]
    fn regrouping_merges_consecutive_frames_of_a_group() {
        let f = Folded::parse(
            "cfg;std::rt::lang_start;serde_json::de::from_slice;serde_json::de::Deserializer<R>::parse_str;core::str::from_utf8 5\n",
        )
        .unwrap();
        let g = regroup(&f, By::Crate, &Sources::default());
        assert_eq!(g.to_text(), "cfg;std;serde_json;core 5\n");
        assert_eq!(regroup(&f, By::Function, &Sources::default()), f);
    }
}
