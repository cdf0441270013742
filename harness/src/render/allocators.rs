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
        let mut line = format!(
            "    {:<width$}  fastest {fastest} {}",
            g.base,
            format_ns(ns)
        );
        for &(a, r, m) in &g.rows[1..] {
            let ratio = match paired_ratio(r, first) {
                Some(q) => format_ratio(&q),
                None => format!("{:.2}x", m / ns),
            };
            let _ = write!(line, "; {a} {ratio}");
        }
        let _ = writeln!(out, "{line}");
    }
    ranking(out, &groups);
}

/// Whether the configurations rank the same under every allocator (by median time), and the
/// orders where they do not.
fn ranking(out: &mut String, groups: &[Group]) {
    if groups.len() < 2 {
        return;
    }
    let mut allocators: Vec<Allocator> = groups
        .iter()
        .flat_map(|g| g.rows.iter().map(|r| r.0))
        .collect();
    allocators.sort();
    allocators.dedup();
    let order = |a: Allocator| -> Vec<&str> {
        let mut v: Vec<(&str, f64)> = groups
            .iter()
            .filter_map(|g| g.rows.iter().find(|r| r.0 == a).map(|r| (g.base, r.2)))
            .collect();
        v.sort_by(|x, y| x.1.total_cmp(&y.1));
        v.into_iter().map(|x| x.0).collect()
    };
    let orders: Vec<(Allocator, Vec<&str>)> = allocators.iter().map(|&a| (a, order(a))).collect();
    if orders.windows(2).all(|w| w[0].1 == w[1].1) {
        let _ = writeln!(
            out,
            "  the configurations rank the same under every allocator (by median time)"
        );
        return;
    }
    let _ = writeln!(
        out,
        "  the ranking changes with the allocator (by median time, fastest first):"
    );
    for (a, o) in orders {
        let _ = writeln!(out, "    {a}: {}", o.join(", "));
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
        assert!(out.contains("a  fastest mimalloc"), "{out}");
        assert!(out.contains("; system 1.20x"), "{out}");
        assert!(out.contains("b  fastest system"), "{out}");
        assert!(out.contains("system: b, a"), "{out}");
        assert!(out.contains("mimalloc: a, b"), "{out}");
        assert!(!out.contains("plain"), "{out}");
        let mut none = String::new();
        section(&mut none, &refs[4..]);
        assert!(none.is_empty());
    }
}
