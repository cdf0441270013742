//! Summary statistics over timing batches: median, a distribution-free 95% confidence interval
//! for the median, the median absolute deviation, and a bootstrap interval for ratios.

use serde::{Deserialize, Serialize};

/// Time per operation over a set of batches, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// Median over batches of (batch time / operations in the batch).
    pub median: f64,
    /// 95% confidence interval for the median, from order statistics (no normality assumed).
    pub ci95: [f64; 2],
    /// Median absolute deviation of the batch times around the median.
    pub mad: f64,
    /// Operations per batch.
    pub ops_per_batch: u64,
    /// Time per operation of every batch, in the order they ran.
    pub batches: Vec<f64>,
}

impl TimeStats {
    /// Summarises `batches` (ns per operation each). `None` when there are no batches.
    pub fn from_batches(batches: Vec<f64>, ops_per_batch: u64) -> Option<TimeStats> {
        let mut sorted = batches.clone();
        sorted.retain(|x| x.is_finite());
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let median = median_sorted(&sorted);
        let ci95 = median_ci95(&sorted);
        let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mad = median_sorted(&deviations);
        Some(TimeStats {
            median,
            ci95,
            mad,
            ops_per_batch,
            batches,
        })
    }
}

/// Median of a sorted, non-empty slice.
pub fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Median of any slice (sorts a copy). NaN for an empty slice.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

/// A 95% confidence interval for the median of a sorted sample: the order statistics at ranks
/// n/2 -+ 1.96 sqrt(n)/2 (normal approximation to the binomial). With fewer than 6 values the
/// interval is the whole range.
pub fn median_ci95(sorted: &[f64]) -> [f64; 2] {
    let n = sorted.len();
    if n < 6 {
        return [sorted[0], sorted[n - 1]];
    }
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let lo = ((n as f64 / 2.0) - half).floor().max(0.0) as usize;
    let hi = ((n as f64 / 2.0) + half).ceil().min((n - 1) as f64) as usize;
    [sorted[lo], sorted[hi]]
}

/// A small deterministic generator (SplitMix64) for bootstrap resampling: results are
/// reproducible run to run.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Ratio of medians `a / b` with a 95% percentile-bootstrap interval: both batch sets are
/// resampled with replacement, 2,000 times, with a fixed seed.
pub fn ratio_of_medians(a: &[f64], b: &[f64]) -> Option<(f64, [f64; 2])> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let point = median(a) / median(b);
    let mut rng = SplitMix64(0x5EED_CAFE);
    let mut ratios = Vec::with_capacity(2000);
    let (mut ra, mut rb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    for _ in 0..2000 {
        for x in ra.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in rb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        ratios.push(median(&ra) / median(&rb));
    }
    ratios.sort_by(f64::total_cmp);
    let lo = ratios[(0.025 * ratios.len() as f64) as usize];
    let hi = ratios[((0.975 * ratios.len() as f64) as usize).min(ratios.len() - 1)];
    Some((point, [lo, hi]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_mad_and_interval() {
        let s = TimeStats::from_batches(vec![5.0, 1.0, 3.0, 2.0, 4.0], 10).unwrap();
        assert_eq!(s.median, 3.0);
        assert_eq!(s.mad, 1.0);
        assert_eq!(s.ci95, [1.0, 5.0]);
        let even = TimeStats::from_batches(vec![1.0, 2.0, 3.0, 4.0], 1).unwrap();
        assert_eq!(even.median, 2.5);
        assert!(TimeStats::from_batches(vec![], 1).is_none());
    }

    #[test]
    fn interval_narrows_with_more_batches_and_contains_the_median() {
        let v: Vec<f64> = (0..100).map(f64::from).collect();
        let ci = median_ci95(&v);
        assert!(ci[0] < 49.5 && 49.5 < ci[1]);
        assert_eq!(ci, [40.0, 60.0]);
    }

    #[test]
    fn ratio_of_identical_samples_is_one_and_interval_contains_it() {
        let a: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 7)).collect();
        let (r, ci) = ratio_of_medians(&a, &a).unwrap();
        assert_eq!(r, 1.0);
        assert!(ci[0] <= 1.0 && 1.0 <= ci[1]);
        let b: Vec<f64> = a.iter().map(|x| x * 2.0).collect();
        let (r, ci) = ratio_of_medians(&b, &a).unwrap();
        assert_eq!(r, 2.0);
        assert!(ci[0] > 1.8 && ci[1] < 2.2);
    }
}
