//! A study's rows measured under several allocators (`run --allocators`): per configuration,
//! its fastest allocator and the others' ratios to it (paired by child set: an allocator's
//! children run in lock-step with the others'), then whether the ranking of the configurations
//! changes with the allocator.

use std::fmt::Write as _;

use crate::model::allocator::{self, Allocator};
use crate::model::ConfigResult;

use super::numbers::{format_ns, format_ratio, paired_ratio};

/// A configuration's rows by allocator, fastest first (rows without a time left out).
struct Group<'a> {
    base: &'a str,
    rows: Vec<(Allocator, &'a ConfigResult, f64)>,
}

/// `group`'s rows that name an allocator, by configuration in the order they first appear.
fn groups<'a>(group: &[&'a ConfigResult]) -> Vec<Group<'a>> {
    let mut out: Vec<Group> = Vec::new();
    for &r in group {
        let (base, Some(a)) = allocator::split(&r.config) else {
            continue;
        };
        let Some(t) = r.time_ns.as_ref() else {
            continue;
        };
        match out.iter_mut().find(|g| g.base == base) {
            Some(g) => g.rows.push((a, r, t.median)),
            None => out.push(Group {
                base,
                rows: vec![(a, r, t.median)],
            }),
        }
    }
    for g in &mut out {
        g.rows.sort_by(|x, y| x.2.total_cmp(&y.2));
    }
    out
}

/// `group` without the rows of every allocator but the first of [`Allocator::ALL`] it has: for
/// what does not depend on the allocator (a payload's bytes by field).
pub(crate) fn one_allocator<'a>(group: &[&'a ConfigResult]) -> Vec<&'a ConfigResult> {
    let of = |r: &ConfigResult| allocator::split(&r.config).1;
    let keep = group.iter().filter_map(|r| of(r)).min();
    group
        .iter()
        .copied()
        .filter(|r| of(r).is_none() || of(r) == keep)
        .collect()
}

/// The section, or nothing when no row names an allocator.
pub(crate) fn section(out: &mut String, group: &[&ConfigResult]) {
    let groups = groups(group);
    if groups.is_empty() {
        return;
    }
    let width = groups.iter().map(|g| g.base.len()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "  allocators (per configuration its fastest, and the others' time to it, paired child set by child set):"
    );
    for g in &groups {
        let (fastest, first, ns) = g.rows[0];
        let mut tied = Vec::new();
        let mut rest = String::new();
        for &(a, r, m) in &g.rows[1..] {
            let ratio = paired_ratio(r, first);
            if ratio.as_ref().is_some_and(|q| q.ci95[0] <= 1.0) {
                tied.push(a.name());
            }
            let text = match ratio {
                Some(q) => format_ratio(&q),
                None => format!("{:.2}x", m / ns),
            };
            let _ = write!(rest, "; {a} {text}");
        }
        let time = format_ns(ns);
        let verdict = match tied.is_empty() {
            true => format!("fastest {fastest} {time}"),
            false => format!("{fastest} {time}, within noise of {}", tied.join(", ")),
        };
        let _ = writeln!(out, "    {:<width$}  {verdict}{rest}", g.base);
    }
    ranking(out, &groups);
}

/// Per operation, whether the configurations rank the same under every allocator (by median
/// time) as under the first one listed, and the largest moves where they do not.
fn ranking(out: &mut String, groups: &[Group]) {
    let mut allocators: Vec<Allocator> = groups
        .iter()
        .flat_map(|g| g.rows.iter().map(|r| r.0))
        .collect();
    allocators.sort();
    allocators.dedup();
    let mut operations: Vec<&str> = groups
        .iter()
        .map(|g| g.rows[0].1.operation.as_str())
        .collect();
    operations.sort();
    operations.dedup();
    let Some((&first, others)) = allocators.split_first() else {
        return;
    };
    for op in operations {
        let of_op: Vec<&Group> = groups
            .iter()
            .filter(|g| g.rows[0].1.operation.as_str() == op)
            .collect();
        if of_op.len() < 2 {
            continue;
        }
        // Each configuration's place (1 = fastest) under allocator `a`.
        let places = |a: Allocator| -> Vec<(&str, usize)> {
            let mut v: Vec<(&str, f64)> = of_op
                .iter()
                .filter_map(|g| g.rows.iter().find(|r| r.0 == a).map(|r| (g.base, r.2)))
                .collect();
            v.sort_by(|x, y| x.1.total_cmp(&y.1));
            v.into_iter()
                .enumerate()
                .map(|(i, (b, _))| (b, i + 1))
                .collect()
        };
        let base = places(first);
        let mut line = String::new();
        for &a in others {
            let mut moves: Vec<(&str, usize, usize)> = places(a)
                .into_iter()
                .filter_map(|(b, p)| {
                    let q = base.iter().find(|x| x.0 == b)?.1;
                    (p != q).then_some((b, q, p))
                })
                .collect();
            moves.sort_by_key(|m| std::cmp::Reverse(m.1.abs_diff(m.2)));
            let shown: Vec<String> = moves
                .iter()
                .take(3)
                .map(|(b, q, p)| format!("{b} {q} -> {p}"))
                .collect();
            let _ = write!(
                line,
                "; under {a} {} of {} change place{}",
                moves.len(),
                base.len(),
                match shown.is_empty() {
                    true => String::new(),
                    false => format!(" (most: {})", shown.join(", ")),
                }
            );
        }
        let _ = writeln!(
            out,
            "  {op} ranking against {first}'s (place by median time, 1 = fastest){line}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TimeStats;

    fn row(config: &str, median: f64) -> ConfigResult {
        let mut r = crate::render::fields::tests::row(config);
        r.time_ns = TimeStats::from_batches(vec![median; 3], 1);
        r
    }

    #[test]
    fn names_each_configurations_fastest_allocator_and_a_changed_ranking() {
        let rows = [
            row("a@system", 12.0),
            row("a@mimalloc", 10.0),
            row("b@system", 11.0),
            row("b@mimalloc", 13.0),
            row("plain", 1.0),
        ];
        let refs: Vec<&ConfigResult> = rows.iter().collect();
        let mut out = String::new();
        section(&mut out, &refs);
        assert!(
            out.contains("a  fastest mimalloc 10 ns; system 1.20x"),
            "{out}"
        );
        assert!(
            out.contains("b  fastest system 11 ns; mimalloc 1.18x"),
            "{out}"
        );
        assert!(
            out.contains("under mimalloc 2 of 2 change place (most: a 2 -> 1, b 1 -> 2)"),
            "{out}"
        );
        assert!(!out.contains("plain"), "{out}");
        let one: Vec<&str> = one_allocator(&refs)
            .iter()
            .map(|r| r.config.as_str())
            .collect();
        assert_eq!(one, ["a@system", "b@system", "plain"]);
        let mut none = String::new();
        section(&mut none, &refs[4..]);
        assert!(none.is_empty());
    }
}
