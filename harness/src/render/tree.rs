//! Text of the tree views (`serprof tree`, `serprof hotspots --match REGEX --backtraces`): one
//! line per node, indented by level, with its shares and count.

use crate::analyze::views::Node;
use crate::render::table::format_thousands;

/// How a folded single-child chain is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chain {
    /// On one line, `a ▸ b ▸ c`, a long chain shortened to its first two frames and its last
    /// (the call tree: the last frame is the one the children hang from).
    OneLine,
    /// One frame per line at the same indentation, the counts on the first line only (the
    /// backtraces: every caller is named).
    Stacked,
}

const ARROW_DOWN: &str = " ▸ ";
const CALLED_BY: &str = "◂ ";

fn one_line(frames: &[String]) -> String {
    if frames.len() <= 4 {
        return frames.join(ARROW_DOWN);
    }
    format!(
        "{}{ARROW_DOWN}{}{ARROW_DOWN}… {} frames …{ARROW_DOWN}{}",
        frames[0],
        frames[1],
        frames.len() - 3,
        frames[frames.len() - 1]
    )
}

fn write(out: &mut String, node: &Node, level: usize, chain: Chain, with_self: bool) {
    let indent = "  ".repeat(level);
    let self_col = if with_self {
        format!("{:>6.1}% ", node.self_percent)
    } else {
        String::new()
    };
    let counts = format!(
        "{:>6.1}% {self_col}{:>12}  ",
        node.total_percent,
        format_thousands(node.total as f64, 0)
    );
    let marker = if chain == Chain::Stacked && level > 0 {
        CALLED_BY
    } else {
        ""
    };
    match chain {
        Chain::OneLine => {
            out.push_str(&format!("{counts}{indent}{}\n", one_line(&node.frames)));
        }
        Chain::Stacked => {
            let blank = " ".repeat(counts.chars().count());
            for (i, f) in node.frames.iter().enumerate() {
                let lead = if i == 0 { &counts } else { &blank };
                let mark = if i == 0 { marker } else { CALLED_BY };
                out.push_str(&format!("{lead}{indent}{mark}{f}\n"));
            }
        }
    }
    for c in &node.children {
        write(out, c, level + 1, chain, with_self);
    }
}

/// The lines of `roots` and their descendants, under a header naming the columns.
pub(crate) fn tree_text(roots: &[Node], unit: &str, chain: Chain, with_self: bool) -> String {
    let mut s = if with_self {
        format!("{:>7} {:>7} {:>12}  frame\n", "total", "self", unit)
    } else {
        format!(
            "{:>7} {:>12}  function, then its callers (◂)\n",
            "share", unit
        )
    };
    for r in roots {
        write(&mut s, r, 0, chain, with_self);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(frames: &[&str], total: u64, children: Vec<Node>) -> Node {
        Node {
            frames: frames.iter().map(|f| f.to_string()).collect(),
            total,
            self_count: 0,
            total_percent: total as f64,
            self_percent: 0.0,
            children,
        }
    }

    #[test]
    fn chains_fold_on_one_line_or_stack() {
        let long: Vec<String> = (0..7).map(|i| format!("f{i}")).collect();
        assert_eq!(one_line(&long), "f0 ▸ f1 ▸ … 4 frames … ▸ f6");
        let t = node(&["a", "b"], 100, vec![node(&["c"], 40, vec![])]);
        let text = tree_text(std::slice::from_ref(&t), "samples", Chain::OneLine, true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].ends_with("  a ▸ b"), "{text}");
        assert!(
            lines[2].ends_with("    c") && lines[2].contains("40.0%"),
            "{text}"
        );
        let text = tree_text(&[t], "samples", Chain::Stacked, false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[2].trim_start().starts_with("◂ b"), "{text}");
        assert!(lines[3].ends_with("  ◂ c"), "{text}");
    }
}
