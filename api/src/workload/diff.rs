//! How two values differ, read from their `{:#?}` text.

use std::fmt::{self, Debug};

/// The first line where two values' `{:#?}` differ.
#[derive(Debug, Clone, PartialEq)]
pub struct DebugDiff {
    /// 1-based line of the `{:#?}` text.
    pub line: usize,
    /// The line as it was.
    pub original: String,
    /// The line after the round trip.
    pub decoded: String,
    /// Whether every differing line differs only in floating-point numbers, each within a
    /// few units in the last place.
    pub floats_only: bool,
}

impl fmt::Display for DebugDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} of its {{:#?}}: expected `{}`, got `{}`",
            self.line,
            self.original.trim(),
            self.decoded.trim()
        )
    }
}

/// How two values' `{:#?}` differ, or `None` when the texts are equal.
pub fn debug_difference<T: Debug>(a: &T, b: &T) -> Option<DebugDiff> {
    let (ta, tb) = (format!("{a:#?}"), format!("{b:#?}"));
    if ta == tb {
        return None;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (ta.lines().collect(), tb.lines().collect());
    let first = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i))?;
    let floats_only = la.len() == lb.len()
        && la
            .iter()
            .zip(&lb)
            .all(|(x, y)| x == y || floats_only_differ(x, y));
    Some(DebugDiff {
        line: first + 1,
        original: la.get(first).copied().unwrap_or("(nothing)").to_string(),
        decoded: lb.get(first).copied().unwrap_or("(nothing)").to_string(),
        floats_only,
    })
}

/// Units in the last place two floats may differ by and still count as a float's round trip
/// (serde_json without `float_roundtrip` is off by one).
const FLOAT_ULPS: u64 = 4;

/// Whether two lines are the same but for float literals that are a few ulps apart.
fn floats_only_differ(a: &str, b: &str) -> bool {
    let (ta, tb) = (tokens(a), tokens(b));
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || match (float_of(x), float_of(y)) {
                    (Some(p), Some(q)) => ulps_apart(p, q) <= FLOAT_ULPS,
                    _ => false,
                }
        })
}

/// A line cut into runs of number characters and runs of others.
fn tokens(line: &str) -> Vec<&str> {
    let numberish = |c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E');
    let mut out = Vec::new();
    let mut start = 0;
    let mut kind = None;
    for (i, c) in line.char_indices() {
        let k = numberish(c);
        if kind.is_some_and(|prev| prev != k) {
            out.push(&line[start..i]);
            start = i;
        }
        kind = Some(k);
    }
    out.push(&line[start..]);
    out
}

/// The token as a float, when it is a float literal (it has a fraction or an exponent).
fn float_of(token: &str) -> Option<f64> {
    (token.contains('.') || token.contains('e') || token.contains('E'))
        .then(|| token.parse().ok())
        .flatten()
}

/// How many representable doubles lie between `a` and `b` (for values of one sign).
fn ulps_apart(a: f64, b: f64) -> u64 {
    if a.is_sign_negative() != b.is_sign_negative() {
        return if a == b { 0 } else { u64::MAX };
    }
    a.to_bits().abs_diff(b.to_bits())
}
