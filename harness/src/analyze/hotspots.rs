//! Hot spots, as JProfiler shows them: per function, the share of samples where it is the leaf
//! (self) and where it is anywhere on the stack (total, inclusive); plus the inclusive share of
//! the samples whose stack matches a regex (`--match 'base64|byte_array'`), and the one-line
//! finding of a configuration.

use std::collections::{HashMap, HashSet};

use regex::Regex;
use serde::Serialize;

use crate::model::{ProfileSummary, Share};
use crate::profile::folded::Folded;

/// One function's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FunctionShare {
    pub function: String,
    pub self_samples: u64,
    pub total_samples: u64,
    pub self_percent: f64,
    pub total_percent: f64,
    /// Whether the function belongs to the engine (its `engine_frames` regex), as opposed to
    /// the harness loop, std or libc plumbing.
    pub engine: bool,
}

/// The hotspot table of a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Hotspots {
    pub total: u64,
    /// Rows sorted by self samples, then total samples, then name.
    pub rows: Vec<FunctionShare>,
    pub match_regex: Option<String>,
    pub match_samples: Option<u64>,
    pub match_percent: Option<f64>,
}

fn percent(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * part as f64 / total as f64
    }
}

/// Computes the table. The first frame of every stack is the configuration's name (the root)
/// and is not a function; recursion counts a function once per stack in `total`.
pub(crate) fn compute(
    folded: &Folded,
    engine: Option<&Regex>,
    matching: Option<&Regex>,
) -> Hotspots {
    let total = folded.total();
    let mut self_counts: HashMap<&str, u64> = HashMap::new();
    let mut total_counts: HashMap<&str, u64> = HashMap::new();
    let mut matched = 0u64;
    for (frames, count) in folded.iter() {
        let funcs = frames.get(1..).unwrap_or(&[]);
        if let Some(leaf) = funcs.last() {
            *self_counts.entry(leaf).or_insert(0) += count;
        }
        let mut seen = HashSet::new();
        for f in funcs {
            if seen.insert(*f) {
                *total_counts.entry(f).or_insert(0) += count;
            }
        }
        if matching.is_some_and(|re| funcs.iter().any(|f| re.is_match(f))) {
            matched += count;
        }
    }
    let mut rows: Vec<FunctionShare> = total_counts
        .iter()
        .map(|(&f, &t)| {
            let s = self_counts.get(f).copied().unwrap_or(0);
            FunctionShare {
                function: f.to_string(),
                self_samples: s,
                total_samples: t,
                self_percent: percent(s, total),
                total_percent: percent(t, total),
                engine: engine.is_some_and(|re| re.is_match(f)),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(b.total_samples.cmp(&a.total_samples))
            .then(a.function.cmp(&b.function))
    });
    Hotspots {
        total,
        rows,
        match_regex: matching.map(|r| r.as_str().to_string()),
        match_samples: matching.map(|_| matched),
        match_percent: matching.map(|_| percent(matched, total)),
    }
}

/// Samples attributed to engine functions: each sample counts for its innermost frame that
/// matches `engine` (so a memcpy called by the parser counts for the parser). Sorted, largest
/// first.
pub(crate) fn engine_attribution(folded: &Folded, engine: &Regex) -> Vec<(String, u64)> {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for (frames, count) in folded.iter() {
        if let Some(f) = frames.iter().skip(1).rev().find(|f| engine.is_match(f)) {
            *counts.entry(f).or_insert(0) += count;
        }
    }
    let mut v: Vec<(String, u64)> = counts
        .into_iter()
        .map(|(f, c)| (f.to_string(), c))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Shortens a Rust function path for one-line findings: generic arguments dropped
/// (`Foo<Bar>::baz` -> `Foo<..>::baz`), long paths cut to their last segments.
pub(crate) fn short_name(function: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in function.chars() {
        match c {
            '<' => {
                if depth == 0 {
                    out.push('<');
                }
                depth += 1;
                if depth == 1 {
                    out.push_str("..");
                }
            }
            '>' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push('>');
                }
            }
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = out
        .strip_prefix("<..>::")
        .unwrap_or(&out)
        .replace("<..>", "");
    // `impl_alloc::<impl Decode for Vec<T>>::decode` leaves an empty path segment behind.
    let parts: Vec<&str> = out.split("::").filter(|p| !p.is_empty()).collect();
    let out = parts.join("::");
    if parts.len() > 3 {
        parts[parts.len() - 3..].join("::")
    } else {
        out
    }
}

/// The profile summary of a configuration (kept in `result.json`): top self function, top
/// engine functions, the study's match share, a one-line finding, and the largest type shares
/// of `by_type` (the same profile regrouped by `analyze::types::by_type`).
pub(crate) fn summarize(
    folded: &Folded,
    engine_name: &str,
    engine: &Regex,
    matching: Option<&Regex>,
    by_type: &Folded,
) -> ProfileSummary {
    let table = compute(folded, Some(engine), matching);
    let total = table.total;
    let top_self = table.rows.first().map(|r| Share {
        function: r.function.clone(),
        percent: r.self_percent,
    });
    let attributed = engine_attribution(folded, engine);
    let engine_total = percent(attributed.iter().map(|(_, c)| c).sum(), total);
    let top_engine: Vec<Share> = attributed
        .into_iter()
        .take(5)
        .map(|(function, c)| Share {
            function,
            percent: percent(c, total),
        })
        .collect();
    let mut finding = format!("{engine_name}: {engine_total:.0}% of samples in engine code");
    if !top_engine.is_empty() {
        let parts: Vec<String> = top_engine
            .iter()
            .take(3)
            .map(|s| format!("{:.0}% in {}", s.percent, short_name(&s.function)))
            .collect();
        finding.push_str(&format!("; {}", parts.join(", ")));
    }
    if let (Some(re), Some(p)) = (&table.match_regex, table.match_percent) {
        finding.push_str(&format!("; /{re}/ {p:.0}% inclusive"));
    }
    let types = super::types::inclusive(by_type)
        .into_iter()
        .filter(|s| s.function != super::types::NO_TYPE)
        .take(8)
        .collect();
    ProfileSummary {
        top_self,
        top_engine,
        match_regex: table.match_regex,
        match_percent: table.match_percent,
        finding,
        types,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Folded {
        // 10 samples: main calls parse (which calls memcpy and base64_decode) and write.
        Folded::parse(
            "cfg;main;parse 2\n\
             cfg;main;parse;memcpy 3\n\
             cfg;main;parse;base64_decode 4\n\
             cfg;main;write 1\n",
        )
        .unwrap()
    }

    #[test]
    fn self_and_total_shares_are_exact() {
        let engine = Regex::new("parse|write|base64").unwrap();
        let m = Regex::new("base64").unwrap();
        let h = compute(&sample(), Some(&engine), Some(&m));
        assert_eq!(h.total, 10);
        let row = |f: &str| h.rows.iter().find(|r| r.function == f).unwrap().clone();
        assert_eq!(
            (row("main").self_percent, row("main").total_percent),
            (0.0, 100.0)
        );
        assert_eq!(
            (row("parse").self_samples, row("parse").total_samples),
            (2, 9)
        );
        assert_eq!(row("base64_decode").self_percent, 40.0);
        assert_eq!(row("memcpy").self_percent, 30.0);
        assert!(row("parse").engine && !row("memcpy").engine);
        assert_eq!(h.rows[0].function, "base64_decode");
        assert_eq!(h.match_percent, Some(40.0));
        assert!(
            !h.rows.iter().any(|r| r.function == "cfg"),
            "the root is not a function"
        );
    }

    #[test]
    fn recursion_counts_once_in_total() {
        let f = Folded::parse("cfg;a;b;a;b 4\ncfg;a 1\n").unwrap();
        let h = compute(&f, None, None);
        let a = h.rows.iter().find(|r| r.function == "a").unwrap();
        assert_eq!((a.total_samples, a.self_samples), (5, 1));
    }

    #[test]
    fn engine_attribution_takes_the_innermost_engine_frame() {
        let engine = Regex::new("parse|write|base64").unwrap();
        let got = engine_attribution(&sample(), &engine);
        assert_eq!(
            got,
            [
                ("parse".to_string(), 5),
                ("base64_decode".to_string(), 4),
                ("write".to_string(), 1)
            ]
        );
        let s = summarize(
            &sample(),
            "toy",
            &engine,
            Some(&Regex::new("base64").unwrap()),
            &Folded::default(),
        );
        assert_eq!(s.finding, "toy: 100% of samples in engine code; 50% in parse, 40% in base64_decode, 10% in write; /base64/ 40% inclusive");
        assert_eq!(s.top_self.unwrap().function, "base64_decode");
    }

    #[test]
    fn short_names_drop_generics_and_long_paths() {
        assert_eq!(
            short_name("serde_json::de::Deserializer<R>::parse_str"),
            "de::Deserializer::parse_str"
        );
        assert_eq!(short_name("<T as core::clone::Clone>::clone"), "clone");
        assert_eq!(short_name("a::b"), "a::b");
        assert_eq!(
            short_name("bincode::de::impl_alloc::<impl Decode for Vec<T>>::decode"),
            "de::impl_alloc::decode"
        );
    }
}
