//! A study's rows measured under several allocators (`run --allocators`): per configuration,
//! its fastest allocator and the others' ratios to it (paired by child set: an allocator's
//! children run in lock-step with the others'), per engine the allocator fastest over its
//! configurations, then whether the ranking of the configurations changes with the allocator.

use std::fmt::Write as _;

use crate::model::allocator::Allocator;
use crate::model::ConfigResult;

use super::numbers::{format_ns, format_ratio, paired_ratio};

/// A configuration's rows by allocator, fastest first (rows without a time left out).
struct Group<'a> {
    /// The configuration's name in its study, without the allocator.
    base: String,
    rows: Vec<(Allocator, &'a ConfigResult, f64)>,
}

/// `group`'s rows that name an allocator, by configuration in the order they first appear.
fn groups<'a>(group: &[&'a ConfigResult]) -> Vec<Group<'a>> {
    let mut out: Vec<Group> = Vec::new();
    for &r in group {
        let Some(a) = r.allocator else {
            continue;
        };
        let base = r.id().config;
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
    let keep = group.iter().filter_map(|r| r.allocator).min();
    group
        .iter()
        .copied()
        .filter(|r| r.allocator.is_none() || r.allocator == keep)
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
    let mut outright = Vec::new();
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
        if tied.is_empty() {
            outright.push((g.base.as_str(), fastest));
        }
        let verdict = match tied.is_empty() {
            true => format!("fastest {fastest} {time}"),
            false => format!("{fastest} {time}, within noise of {}", tied.join(", ")),
        };
        let _ = writeln!(out, "    {:<width$}  {verdict}{rest}", g.base);
    }
    by_engine(out, &groups, &outright);
    ranking(out, &groups);
}

/// Per engine, the allocator whose times over the engine's configurations have the smallest
/// geometric mean (over the configurations measured under every allocator the engine has), the
/// others' geometric-mean ratios to it, and in how many of those configurations it was called
/// fastest outright (`outright`: a configuration's fastest allocator whose paired intervals
/// against every other lie above 1).
fn by_engine(out: &mut String, groups: &[Group], outright: &[(&str, Allocator)]) {
    let mut engines: Vec<&str> = Vec::new();
    for g in groups {
        let e = g.rows[0].1.engine.as_str();
        if !engines.contains(&e) {
            engines.push(e);
        }
    }
    let width = engines.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut lines = String::new();
    for engine in engines {
        let of: Vec<&Group> = groups
            .iter()
            .filter(|g| g.rows[0].1.engine == engine)
            .collect();
        // The allocators every one of the engine's configurations was measured under.
        let mut common: Vec<Allocator> = of[0].rows.iter().map(|r| r.0).collect();
        common.retain(|a| of.iter().all(|g| g.rows.iter().any(|r| r.0 == *a)));
        if common.len() < 2 {
            continue;
        }
        let mut means: Vec<(Allocator, f64)> = common
            .iter()
            .map(|&a| {
                let logs: f64 = of
                    .iter()
                    .filter_map(|g| g.rows.iter().find(|r| r.0 == a))
                    .map(|r| r.2.ln())
                    .sum();
                (a, (logs / of.len() as f64).exp())
            })
            .collect();
        means.sort_by(|x, y| x.1.total_cmp(&y.1));
        let (fastest, gm) = means[0];
        let others: Vec<String> = means[1..]
            .iter()
            .map(|(a, m)| format!("{a} {:.2}x", m / gm))
            .collect();
        let wins = of
            .iter()
            .filter(|g| outright.contains(&(g.base.as_str(), fastest)))
            .count();
        let _ = writeln!(
            lines,
            "    {engine:<width$}  {fastest} ({}; fastest outright in {wins} of {} configuration{})",
            others.join(", "),
            of.len(),
            if of.len() == 1 { "" } else { "s" }
        );
    }
    if !lines.is_empty() {
        let _ = writeln!(
            out,
            "  by engine (the allocator with the smallest geometric mean of the engine's times; the others' to it):"
        );
        out.push_str(&lines);
    }
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
                .filter_map(|g| {
                    g.rows
                        .iter()
                        .find(|r| r.0 == a)
                        .map(|r| (g.base.as_str(), r.2))
                })
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
        let id: crate::model::ConfigId = format!("{}/{config}", r.study).parse().unwrap();
        r.allocator = id.allocator;
        r.time_ns = TimeStats::from_batches(vec![median; 3], 1);
        r
    }

    #[test]
    fn names_each_engines_fastest_allocator_over_its_configurations() {
        let mut rows = vec![
            row("e.serialize@system", 10.0),
            row("e.serialize@mimalloc", 12.0),
            row("e.deserialize@system", 40.0),
            row("e.deserialize@mimalloc", 30.0),
            row("f.serialize@system", 5.0),
            row("f.serialize@mimalloc", 4.0),
        ];
        for r in &mut rows {
            r.engine = r.config[..1].to_string();
        }
        let refs: Vec<&ConfigResult> = rows.iter().collect();
        let mut out = String::new();
        section(&mut out, &refs);
        // e: system 20.0 and mimalloc 18.97 by geometric mean.
        assert!(
            out.contains(
                "    e  mimalloc (system 1.05x; fastest outright in 1 of 2 configurations)"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "    f  mimalloc (system 1.25x; fastest outright in 1 of 1 configuration)"
            ),
            "{out}"
        );
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
