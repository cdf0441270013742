//! Callgrind's function contexts. With `--separate-callers=N` and recursion levels
//! (`--separate-recs`, default 2), the name of a function is a context: `f'2` is f at
//! recursion depth 2 and more, `g'f'e` is g called from f called from e. This file takes the
//! suffixes off a name ([`base_name`], [`strip_callers`]) and merges the contexts of a profile
//! into plain functions ([`Profile::merge_contexts`], [`Profile::merge_callers`]).

use super::profile::Profile;
#[cfg(test)]
use super::tables::{add_to, Builder};

/// `name` without callgrind's context suffixes: everything from the first `'` that is outside
/// `<...>`, `(...)`, `[...]` and `{...}` (Rust lifetimes such as `&'a str` stay, being inside
/// brackets; the `>` of `->` is not a bracket).
pub(crate) fn base_name(name: &str) -> &str {
    let b = name.as_bytes();
    let mut depth: i32 = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b'\'' if depth <= 0 => return &name[..i],
            _ => {}
        }
    }
    name
}

/// `name` without the callers of a `--separate-callers` context, keeping a recursion level:
/// `g'f'e` gives `g`, `f'2'g` gives `f'2`, `f'2` stays.
#[cfg(test)]
pub(crate) fn strip_callers(name: &str) -> &str {
    let base = base_name(name);
    let rest = &name[base.len()..];
    if let Some(r) = rest.strip_prefix('\'') {
        let digits = r.bytes().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && (digits == r.len() || r.as_bytes()[digits] == b'\'') {
            return &name[..base.len() + 1 + digits];
        }
    }
    base
}

impl Profile {
    /// The same profile with contexts merged: `f`, `f'2` and `f'g'h` become one function `f`
    /// (per object and file), their self costs, calls and lines summed. Calls between contexts
    /// of one function become calls to itself, which inclusive costs leave out, so a
    /// recursive function's inclusive cost stays its outermost activations'.
    #[cfg(test)]
    pub(crate) fn merge_contexts(&self) -> Profile {
        self.merge_by(base_name)
    }

    /// The same profile with `--separate-callers` contexts merged but recursion levels kept
    /// (`g'f'e` and `g'h` become `g`; `f'2'g` becomes `f'2`): the graph callgrind writes
    /// without `--separate-callers`.
    #[cfg(test)]
    pub(crate) fn merge_callers(&self) -> Profile {
        self.merge_by(strip_callers)
    }

    #[cfg(test)]
    fn merge_by(&self, key: fn(&str) -> &str) -> Profile {
        let mut b = Builder::default();
        let map: Vec<usize> = self
            .functions
            .iter()
            .map(|f| b.function(&f.object, &f.file, key(&f.name)))
            .collect();
        for (i, f) in self.functions.iter().enumerate() {
            add_to(&mut b.functions[map[i]].self_cost, &f.self_cost);
        }
        for c in &self.calls {
            let e = b
                .calls
                .entry((map[c.caller], map[c.callee]))
                .or_insert((0, Vec::new()));
            e.0 += c.count;
            add_to(&mut e.1, &c.cost);
        }
        for l in &self.lines {
            add_to(
                b.lines
                    .entry((l.file.clone(), l.line, map[l.function]))
                    .or_default(),
                &l.cost,
            );
        }
        let mut p = self.clone();
        p.take_tables(b);
        p
    }
}

#[cfg(test)]
mod tests {

    use super::super::test_data::*;
    use super::*;
    use crate::analyze::callgrind::FoldOptions;

    #[test]
    fn base_names_strip_contexts_not_lifetimes() {
        assert_eq!(base_name("f'2"), "f");
        assert_eq!(base_name("g'f'main"), "g");
        assert_eq!(
            base_name("put_node'2'<a::B<S> as a::C>::encode"),
            "put_node"
        );
        assert_eq!(
            base_name("<&'a str as core::fmt::Display>::fmt"),
            "<&'a str as core::fmt::Display>::fmt"
        );
        assert_eq!(
            base_name("x::<for<'a> fn(&'a u8) -> u8>'caller"),
            "x::<for<'a> fn(&'a u8) -> u8>"
        );
        assert_eq!(base_name("(below main)"), "(below main)");
    }

    #[test]
    fn strip_callers_keeps_recursion_levels() {
        assert_eq!(strip_callers("g'f'e"), "g");
        assert_eq!(strip_callers("f'2'g'h"), "f'2");
        assert_eq!(strip_callers("f'12"), "f'12");
        assert_eq!(strip_callers("f'2x"), "f");
        assert_eq!(
            strip_callers("<&'a str as X>::fmt'caller"),
            "<&'a str as X>::fmt"
        );
        assert_eq!(strip_callers("plain"), "plain");
    }

    #[test]
    fn merge_contexts_sums_and_keeps_recursion_exact() {
        // Separate-recs style: p -> f (incl 50) -> f'2 (incl 30) -> f'2 (20).
        let text = "events: Ir
fn=p
1 0
cfn=f
calls=1 1
1 50
fn=f
1 20
cfn=f'2
calls=1 1
1 30
fn=f'2
1 30
cfn=f'2
calls=3 1
1 20
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(by_name(&p, "f").inclusive[0], 50);
        assert_eq!(by_name(&p, "f'2").inclusive[0], 30);
        let m = p.merge_contexts();
        assert_eq!(m.functions.len(), 2);
        let f = by_name(&m, "f");
        assert_eq!((f.self_cost[0], f.inclusive[0]), (50, 50));
        let fold = p.folded(&FoldOptions::default());
        assert_eq!(stack_rows(&fold), [("p;f", 20), ("p;f;f", 30)]);
    }

    #[test]
    fn separate_callers_and_recursion_levels_merge_to_the_plain_profile() {
        let base = Profile::parse(LEGACY).unwrap().merge_contexts();
        let recs1 = Profile::parse(LEGACY_RECS1).unwrap();
        assert!(
            recs1.functions.iter().all(|f| !f.name.contains('\'')),
            "--separate-recs=1: no f'2"
        );
        assert!(
            recs1.calls.iter().any(|c| c.caller == c.callee),
            "direct recursion as self-calls"
        );
        let callers = Profile::parse(LEGACY_CALLERS2).unwrap();
        assert!(callers
            .functions
            .iter()
            .any(|f| f.name.matches('\'').count() >= 2));
        assert_eq!(cost_rows(&recs1.merge_contexts()), cost_rows(&base));
        assert_eq!(cost_rows(&callers.merge_contexts()), cost_rows(&base));
        // Without the callers, a --separate-callers=2 file is the plain file, stacks and all.
        let plain = Profile::parse(LEGACY).unwrap();
        assert_eq!(cost_rows(&callers.merge_callers()), cost_rows(&plain));
        let opts = FoldOptions::default();
        assert_eq!(callers.merge_callers().folded(&opts), plain.folded(&opts));
        // With 2 callers of context the fold is closer to the truth, and never further off in
        // per-function totals: both equal the self costs.
        for p in [&base, &callers.merge_contexts(), &callers] {
            let f = p.folded(&FoldOptions::default());
            let per_leaf = f.self_counts();
            let put_node: u64 = per_leaf
                .get("scratch::workload::put_node")
                .copied()
                .unwrap_or(0);
            let want: u64 = base
                .functions
                .iter()
                .filter(|f| f.name == "scratch::workload::put_node")
                .map(|f| f.self_cost[0])
                .sum();
            let diff = put_node.abs_diff(want);
            assert!(diff <= 64, "put_node folded {put_node} vs self {want}");
        }
    }
}
