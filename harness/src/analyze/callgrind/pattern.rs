//! Valgrind's patterns of function names (`*`, `?`), as callgrind matches them in
//! `--toggle-collect`, and [`Profile::find`], which selects a profile's functions by one.

use super::profile::Profile;

/// Whether `pattern` matches the whole of `name` by the rules callgrind applies to function
/// names in `--toggle-collect`, `--dump-after` and its other per-function options: `*` is any
/// run of characters (the empty run included), `?` is one character, and every other
/// character stands for itself. [`Profile::find`] uses it, so it selects the functions the
/// toggle pattern of the instrumented child selected.
///
/// These are not the rules of the `glob` crate (which selects `--config` names in `run::plan`):
/// - there, `[...]` is a character class and an unclosed `[` an error; Rust names are full of
///   brackets (`<[u8] as Debug>::fmt`, `[u8; 32]`), which valgrind reads as themselves;
/// - there, `**` is a recursive wildcard that must be a whole `/`-separated component (`a**b`
///   is an error); valgrind reads any run of `*` as one `*`;
/// - here, as in valgrind, no character separates anything: `*` crosses `::` and `/`
///   (`serprof::*::roundtrip_loop` matches `serprof::a::b::roundtrip_loop`), and there is no
///   escape character.
///
/// Callgrind's `?` is one byte of the name, this one a character: the same on ASCII names.
#[cfg(test)]
pub(crate) fn valgrind_pattern_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

impl Profile {
    /// Indices of the functions whose whole name matches `pattern` by valgrind's rules (see
    /// [`valgrind_pattern_matches`]).
    #[cfg(test)]
    pub(crate) fn find(&self, pattern: &str) -> Vec<usize> {
        (0..self.functions.len())
            .filter(|&i| valgrind_pattern_matches(pattern, &self.functions[i].name))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valgrind_patterns() {
        assert!(valgrind_pattern_matches(
            "*roundtrip_loop*",
            "serprof::record::roundtrip_loop"
        ));
        assert!(valgrind_pattern_matches(
            "serprof::*::roundtrip_loop",
            "serprof::a::b::roundtrip_loop"
        ));
        assert!(valgrind_pattern_matches("a?c", "abc"));
        assert!(!valgrind_pattern_matches("a?c", "ac"));
        assert!(!valgrind_pattern_matches(
            "roundtrip_loop",
            "serprof::roundtrip_loop"
        ));
        assert!(valgrind_pattern_matches("*", ""));
        // No classes and no escapes: brackets and backslashes are themselves.
        assert!(valgrind_pattern_matches(
            "<[u8] as *>::fmt",
            "<[u8] as Debug>::fmt"
        ));
        assert!(!valgrind_pattern_matches("[ab]", "a"));
        assert!(valgrind_pattern_matches("a**b", "a::x::b"));
    }
}
