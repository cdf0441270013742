//! Folded stacks (`root;caller;callee count`, one line per distinct stack): the record every
//! flame graph and hotspot table is derived from.
//!
//! Lines are merged and sorted, so the same samples always give the same file. Frame names are
//! normalised: the hash suffix of Rust symbols is dropped, and `;` inside names (`[u8; 32]`) is
//! replaced by `,` so that `;` only ever separates frames.

use std::collections::BTreeMap;

use super::parse_error::{FileKind, ParseError};

/// A set of folded stacks with their counts (samples or bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folded {
    /// Stack (frames root first, joined by `;`) -> count.
    pub stacks: BTreeMap<String, u64>,
}

/// Normalises one frame name: drops a trailing `::h<16 hex>` hash, replaces `;` by `,`, and
/// collapses whitespace (folded files are line- and space-delimited).
pub(crate) fn sanitize_frame(name: &str) -> String {
    let mut s = name.trim();
    if let Some(pos) = s.rfind("::h") {
        let hash = &s[pos + 3..];
        if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            s = &s[..pos];
        }
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ';' => out.push(','),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    if out.is_empty() {
        out.push_str("[unknown]");
    }
    out
}

impl Folded {
    /// Adds a stack (frames root first) with `count`; frames are sanitised and `root` is put in
    /// front (the configuration name, in place of pprof's thread name).
    pub fn add<S: AsRef<str>>(&mut self, root: &str, frames: &[S], count: u64) {
        if count == 0 {
            return;
        }
        let mut key = sanitize_frame(root);
        for f in frames {
            key.push(';');
            key.push_str(&sanitize_frame(f.as_ref()));
        }
        *self.stacks.entry(key).or_insert(0) += count;
    }

    /// Total count over all stacks.
    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// Each leaf frame's count: the functions' self counts.
    pub fn self_counts(&self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for (stack, &count) in &self.stacks {
            let leaf = stack.rsplit(';').next().unwrap_or(stack);
            *out.entry(leaf.to_string()).or_insert(0) += count;
        }
        out
    }

    /// The folded text: one `stack count` line per stack, sorted.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (stack, count) in &self.stacks {
            s.push_str(stack);
            s.push(' ');
            s.push_str(&count.to_string());
            s.push('\n');
        }
        s
    }

    /// Parses folded text. Empty lines are skipped; equal stacks are merged.
    pub fn parse(text: &str) -> Result<Folded, ParseError> {
        let mut folded = Folded::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            let err = |message: &str| ParseError::new(FileKind::Folded, i + 1, message);
            let (stack, count) = line
                .rsplit_once(' ')
                .ok_or_else(|| err("expected `frames count`"))?;
            let count: u64 = count
                .parse()
                .map_err(|_| err("the count is not a whole number"))?;
            if stack.is_empty() || stack.split(';').any(str::is_empty) {
                return Err(err("empty frame name"));
            }
            *folded.stacks.entry(stack.to_string()).or_insert(0) += count;
        }
        Ok(folded)
    }

    /// The profile with each stack started at its first frame (below the root) matching
    /// `from`: the root, then that frame and what it called. Stacks without such a frame are
    /// kept whole, so the total is the same.
    pub fn starting_at(&self, from: impl Fn(&str) -> bool) -> Folded {
        let mut out = Folded::default();
        for (frames, count) in self.iter() {
            let Some((root, rest)) = frames.split_first() else {
                continue;
            };
            let cut = rest.iter().position(|f| from(f)).unwrap_or(0);
            let stack = std::iter::once(*root)
                .chain(rest[cut..].iter().copied())
                .collect::<Vec<_>>()
                .join(";");
            *out.stacks.entry(stack).or_insert(0) += count;
        }
        out
    }

    /// Iterates over stacks as frame lists (root first) with counts.
    pub fn iter(&self) -> impl Iterator<Item = (Vec<&str>, u64)> {
        self.stacks
            .iter()
            .map(|(s, &c)| (s.split(';').collect(), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_started_at_a_frame_keeps_the_root_and_the_total() {
        let f = Folded::parse(
            "cfg;_start;main;loop;a;b 3\ncfg;_start;main;loop;c 2\ncfg;_start;setup 1\n",
        )
        .unwrap();
        let cut = f.starting_at(|frame| frame == "loop");
        assert_eq!(
            cut.to_text(),
            "cfg;_start;setup 1\ncfg;loop;a;b 3\ncfg;loop;c 2\n"
        );
        assert_eq!(cut.total(), f.total());
    }

    #[test]
    fn sanitises_names() {
        assert_eq!(
            sanitize_frame("serde_json::de::from_slice::h0123456789abcdef"),
            "serde_json::de::from_slice"
        );
        assert_eq!(
            sanitize_frame("<[u8; 32] as Debug>::fmt"),
            "<[u8, 32] as Debug>::fmt"
        );
        assert_eq!(
            sanitize_frame("keeps::hash_like::hnotahash"),
            "keeps::hash_like::hnotahash"
        );
        assert_eq!(sanitize_frame("  "), "[unknown]");
    }

    #[test]
    fn renames_root_merges_and_sorts() {
        let mut f = Folded::default();
        f.add("formats/serde_json", &["main", "b::h0123456789abcdef"], 2);
        f.add("formats/serde_json", &["main", "a"], 1);
        f.add("formats/serde_json", &["main", "b"], 3);
        f.add("ignored", &["zero"], 0);
        assert_eq!(
            f.to_text(),
            "formats/serde_json;main;a 1\nformats/serde_json;main;b 5\n"
        );
        assert_eq!(f.total(), 6);
    }

    #[test]
    fn parse_round_trips_and_rejects_corrupt_lines() {
        let text = "r;a;b 3\nr;a 1\n\nr;a;b 2\n";
        let f = Folded::parse(text).unwrap();
        assert_eq!(f.to_text(), "r;a 1\nr;a;b 5\n");
        assert_eq!(Folded::parse(&f.to_text()).unwrap(), f);
        for bad in ["r;a;b", "r;a x", "r;;a 1", " 3", "r;a -1"] {
            let e = Folded::parse(bad).unwrap_err();
            assert_eq!(e.line, 1, "{bad}");
        }
        assert_eq!(Folded::parse("ok 1\nbad\n").unwrap_err().line, 2);
    }
}
