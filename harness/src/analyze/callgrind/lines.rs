//! Per-line costs over a whole profile: [`Profile::hottest_lines`] sums the self cost of each
//! source line ([`Profile::lines`], per line and function) over the functions that have code
//! there.

use std::collections::HashMap;

use super::profile::Profile;

/// One line of [`Profile::hottest_lines`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HotLine {
    pub file: String,
    pub line: u64,
    /// Self cost of the event asked for, summed over the functions that have code there.
    pub cost: u64,
    /// The function with most of that cost (index into [`Profile::functions`]).
    pub function: usize,
}

impl Profile {
    /// Self cost per `(file, line)` over all functions, by descending cost of `event`; each
    /// with the function that has most of it. Empty with `--dump-line=no`.
    pub(crate) fn hottest_lines(&self, event: usize) -> Vec<HotLine> {
        let mut m: HashMap<(&str, u64), (u64, usize, u64)> = HashMap::new();
        for l in &self.lines {
            let c = l.cost[event];
            let e = m.entry((&l.file, l.line)).or_insert((0, l.function, 0));
            e.0 += c;
            if c > e.2 {
                e.1 = l.function;
                e.2 = c;
            }
        }
        let mut v: Vec<HotLine> = m
            .into_iter()
            .filter(|(_, (c, _, _))| *c > 0)
            .map(|((file, line), (cost, function, _))| HotLine {
                file: file.to_string(),
                line,
                cost,
                function,
            })
            .collect();
        v.sort_by(|a, b| {
            b.cost
                .cmp(&a.cost)
                .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
        });
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::*;
    use super::*;

    #[test]
    fn hottest_lines_of_a_real_file() {
        let p = Profile::parse(LEGACY).unwrap();
        let hot = p.hottest_lines(0);
        assert!(!hot.is_empty());
        let sum: u64 = hot.iter().map(|h| h.cost).sum();
        assert_eq!(sum, p.total_ir().unwrap(), "line costs add up to the total");
        assert!(hot.windows(2).all(|w| w[0].cost >= w[1].cost));
    }
}
