//! The reader of callgrind output files: [`Profile::parse`], [`Profile::parse_parts`] and
//! [`Profile::from_path`].
//!
//! # What the file holds, and how it is read
//!
//! A header of `key: value` lines (`events: Ir`, `positions: line` or `instr line`, `summary:`,
//! `cmd:`, `desc: Trigger: ...`), then body lines:
//!
//! * `ob=`, `fl=`, `fi=`, `fe=`, `fn=` set the object, the function's file, the file of inlined
//!   code (`fi=` into another file, `fe=` back to the function's own file), the function;
//! * a cost line, `<subpositions> <cost per event>` (missing trailing costs are 0), is *self*
//!   cost of the current function at that position;
//! * `cob=`, `cfi=`/`cfl=`, `cfn=` name the callee of the next `calls=<count> <target>` line,
//!   and the cost line right after `calls=` is the *inclusive* cost of those calls;
//! * `jump=`/`jcnd=` (with `--collect-jumps=yes`) are followed by a position-only line;
//! * `totals:` ends the file.
//!
//! Names may be compressed: `fn=(12) name` defines id 12 in the table of that kind, `fn=(12)`
//! refers to it later (tables: objects for `ob`/`cob`; files for `fl`/`fi`/`fe`/`cfi`/`cfl`/
//! `jfi`; functions for `fn`/`cfn`/`jfn`). A name starting with `(` not followed by a digit, such
//! as `(below main)`, is a plain name. Subpositions may be compressed: `+n`, `-n` relative to the
//! same subposition of the previous cost line, `*` for the same.
//!
//! Callgrind's writer keeps its "previous position" (for relative subpositions) and "previous
//! file" (for leaving out `cfi=` and `fi=`) from *self* cost lines only: `calls=` lines and
//! their cost lines, and the position line after `jump=`, do not move them. This reader does the
//! same. Consequences: a `cfn=` without `cfi=` is in the file of the last self cost line (or of
//! the `fl=`), not in the file of an `fi=` just before it (callgrind_annotate takes the `fi=`
//! file, and on real files then splits one function into several; the fixture tests check
//! that every `cfn=(id)` lands on the function of its `fn=(id)` block); after a call the
//! current file falls back to that file; and a relative subposition after a call is relative to
//! the last self cost line (as in callgrind's writer; in the fixtures, call cost lines are
//! always `*` or absolute). The compressed and `--compress-pos=no --compress-strings=no`
//! outputs of one command read to identical tables.
//!
//! Several parts in one file (`--combine-dumps=yes`) are summed, or read one by one with
//! [`Profile::parse_parts`]. Not supported: `--mangle-names=no` (`rec=`/`frfn=` lines are
//! ignored, so contexts are not told apart).
//!
//! The reader is a `Reader` fed one line at a time, with a method per kind of line (cost line,
//! body specification `key=value`, header `key: value`) and a `ParseState` of where it is in the
//! body.

use std::collections::HashMap;

use super::profile::{Position, Profile};
use super::tables::{add_to, Builder};
use crate::profile::parse_error::{FileKind, ParseError};

/// What is wrong with one line of a callgrind file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum Malformed {
    #[error("calls= not followed by its cost line")]
    CallsWithoutCost,
    #[error("calls= without cfn=")]
    CallsWithoutCallee,
    #[error("jump= not followed by its position line")]
    JumpWithoutPosition,
    #[error("unrecognised line {line:?}")]
    Unrecognised { line: String },
    #[error("bad calls= line {line:?}")]
    Calls { line: String },
    #[error("unsupported format version {version}")]
    Version { version: String },
    #[error("parts with different events")]
    MixedEvents,
    #[error("unknown position {name:?}")]
    Position { name: String },
    #[error("name ({id}) used before it is defined")]
    Undefined { id: u64 },
    #[error("bad subposition {token:?}")]
    Subposition { token: String },
    #[error("bad cost {token:?}")]
    Cost { token: String },
    #[error("cost line without its positions")]
    NoPositions,
    #[error("{costs} costs for {events} events")]
    TooManyCosts { costs: usize, events: usize },
}

impl Profile {
    /// Parses the text of a callgrind file.
    pub(crate) fn parse(text: &str) -> Result<Profile, ParseError> {
        let mut parts = Profile::parse_impl(text, false)?;
        Ok(parts.pop().expect("one profile"))
    }

    /// Parses a file of several parts (`--combine-dumps=yes`) into one profile per part, in
    /// file order (name compression carries over from part to part).
    #[cfg(test)]
    pub(crate) fn parse_parts(text: &str) -> Result<Vec<Profile>, ParseError> {
        Profile::parse_impl(text, true)
    }

    fn parse_impl(text: &str, split: bool) -> Result<Vec<Profile>, ParseError> {
        let mut reader = Reader::new(split);
        for (i, line) in text.lines().enumerate() {
            reader
                .line(line)
                .map_err(|m| ParseError::new(FileKind::Callgrind, i + 1, m.to_string()))?;
        }
        reader.finish(text.lines().count())
    }

    /// Ends the part being read: returns it finished, and leaves `self` and `b` empty for the
    /// next part (same events and positions).
    fn next_part(&mut self, b: &mut Builder) -> Profile {
        let mut p = std::mem::take(self);
        let b = std::mem::take(b);
        self.events = p.events.clone();
        self.positions = p.positions.clone();
        self.cmd = p.cmd.clone();
        self.pid = p.pid;
        if p.positions.is_empty() {
            p.positions = vec![Position::Line];
        }
        p.take_tables(b);
        p
    }
}

/// `key` and `value` of a body specification `key=value` (`key` in lowercase letters).
fn specification(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    (!key.is_empty() && key.bytes().all(|c| c.is_ascii_lowercase())).then_some((key, value))
}

/// A file being read: the parts read so far, the part being read and its tables, and where
/// the reader is in its body.
struct Reader {
    /// One profile per part (`parse_parts`), or every part summed into one.
    split: bool,
    done: Vec<Profile>,
    part: Profile,
    tables: Builder,
    st: ParseState,
    /// Whether the part being read has been counted in `part.parts`.
    part_open: bool,
}

impl Reader {
    fn new(split: bool) -> Reader {
        Reader {
            split,
            done: Vec::new(),
            part: Profile {
                parts: 0,
                ..Profile::default()
            },
            tables: Builder::default(),
            st: ParseState::new(),
            part_open: false,
        }
    }

    /// Reads one line of the file.
    fn line(&mut self, raw: &str) -> Result<(), Malformed> {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let first = line.as_bytes()[0];
        // A cost line (or the position line after jump=/jcnd=).
        if first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'*' {
            return self.cost_line(line);
        }
        if self.st.pending_call.is_some() {
            return Err(Malformed::CallsWithoutCost);
        }
        if self.st.pending_jump {
            return Err(Malformed::JumpWithoutPosition);
        }
        if let Some((key, value)) = specification(line) {
            self.open_part();
            return self.specification(key, value, line);
        }
        match line.split_once(':') {
            Some((key, value)) => self.header(key.trim(), value.trim()),
            None => Err(Malformed::Unrecognised {
                line: line.to_string(),
            }),
        }
    }

    /// A body line: the part being read is counted if it was not.
    fn open_part(&mut self) {
        if !self.part_open {
            self.part.parts += 1;
            self.part_open = true;
        }
        self.st.in_body = true;
    }

    /// The part being read ends (at `part:`, or `events:` after a body); with `split`, it is
    /// finished and put aside.
    fn end_part(&mut self) {
        self.part_open = false;
        self.st.new_part();
        if self.split {
            let finished = self.part.next_part(&mut self.tables);
            self.done.push(finished);
        }
    }

    /// A cost line: self cost of the current function at its position, or the inclusive cost
    /// of the calls of the `calls=` before it; or the position line after `jump=`/`jcnd=`.
    fn cost_line(&mut self, line: &str) -> Result<(), Malformed> {
        self.open_part();
        let (pos, costs) = self.st.split(line)?;
        let (st, b) = (&mut self.st, &mut self.tables);
        if st.pending_jump {
            st.pending_jump = false;
            return Ok(());
        }
        let f = match st.function {
            Some(f) => f,
            None => {
                let f = b.function(&st.object, &st.fn_file, "???");
                st.function = Some(f);
                f
            }
        };
        if let Some((callee, count)) = st.pending_call.take() {
            let e = b.calls.entry((f, callee)).or_insert((0, Vec::new()));
            e.0 += count;
            add_to(&mut e.1, &costs);
            // Callgrind's writer did not move its last file or position for this line.
            st.cur_file = st.last_file.clone();
        } else {
            add_to(&mut b.functions[f].self_cost, &costs);
            if let Some(li) = st.positions.iter().position(|&k| k == Position::Line) {
                let key = (st.cur_file.clone(), pos[li], f);
                add_to(b.lines.entry(key).or_default(), &costs);
            }
            st.last_pos = pos;
            st.last_file = st.cur_file.clone();
        }
        Ok(())
    }

    /// A body specification `key=value` (`line` is the whole line, for messages).
    fn specification(&mut self, key: &str, value: &str, line: &str) -> Result<(), Malformed> {
        let st = &mut self.st;
        match key {
            "ob" => st.object = st.names.resolve(Table::Object, value)?,
            "fl" => {
                let f = st.names.resolve(Table::File, value)?;
                st.fn_file = f.clone();
                st.cur_file = f.clone();
                st.last_file = f;
            }
            "fi" | "fe" => st.cur_file = st.names.resolve(Table::File, value)?,
            "fn" => self.function(value)?,
            "cob" => st.callee_object = Some(st.names.resolve(Table::Object, value)?),
            "cfi" | "cfl" => st.callee_file = Some(st.names.resolve(Table::File, value)?),
            "cfn" => self.callee(value)?,
            "calls" => self.calls(value, line)?,
            "jump" | "jcnd" => st.pending_jump = true,
            "jfi" => {
                st.names.resolve(Table::File, value)?;
            }
            "jfn" | "frfn" => {
                st.names.resolve(Table::Function, value)?;
            }
            // rec=, ln=, and extensions of other writers: no cost meaning here.
            _ => {}
        }
        Ok(())
    }

    /// `fn=`: the function of the next cost lines, in the file of the last `fl=`.
    fn function(&mut self, value: &str) -> Result<(), Malformed> {
        let st = &mut self.st;
        let name = st.names.resolve(Table::Function, value)?;
        let f = self.tables.function(&st.object, &st.fn_file, &name);
        st.function = Some(f);
        st.cur_file = st.fn_file.clone();
        st.last_file = st.fn_file.clone();
        st.last_pos = vec![0; st.positions.len()];
        Ok(())
    }

    /// `cfn=`: the callee of the next `calls=`, in the object of `cob=` (else the caller's) and
    /// the file of `cfi=` (else the last self cost line's).
    fn callee(&mut self, value: &str) -> Result<(), Malformed> {
        let (st, b) = (&mut self.st, &mut self.tables);
        let name = st.names.resolve(Table::Function, value)?;
        let object = st.callee_object.take().unwrap_or_else(|| {
            st.function
                .map(|f| b.functions[f].object.clone())
                .unwrap_or_else(|| st.object.clone())
        });
        let file = st
            .callee_file
            .take()
            .unwrap_or_else(|| st.last_file.clone());
        st.callee = Some(b.function(&object, &file, &name));
        Ok(())
    }

    /// `calls=<count> <target>`: the next cost line is the cost of these calls to the callee.
    fn calls(&mut self, value: &str, line: &str) -> Result<(), Malformed> {
        let count = value
            .split_whitespace()
            .next()
            .and_then(|c| c.parse::<u64>().ok())
            .ok_or_else(|| Malformed::Calls {
                line: line.to_string(),
            })?;
        let callee = self.st.callee.ok_or(Malformed::CallsWithoutCallee)?;
        self.st.pending_call = Some((callee, count));
        Ok(())
    }

    /// A header line `key: value`.
    fn header(&mut self, key: &str, value: &str) -> Result<(), Malformed> {
        let p = &mut self.part;
        match key {
            "version" if value != "1" => {
                return Err(Malformed::Version {
                    version: value.to_string(),
                });
            }
            "events" => self.events(value)?,
            "positions" => self.positions(value)?,
            "part" if self.st.in_body => self.end_part(),
            "cmd" if p.cmd.is_none() => p.cmd = Some(value.to_string()),
            "pid" if p.pid.is_none() => p.pid = value.parse().ok(),
            "desc" => {
                if let Some(t) = value.strip_prefix("Trigger:") {
                    p.triggers.push(t.trim().to_string());
                }
            }
            "summary" => add_to(p.summary.get_or_insert_with(Vec::new), &costs_of(value)?),
            "totals" => add_to(p.totals.get_or_insert_with(Vec::new), &costs_of(value)?),
            // creator, thread, event (long names), and unknown headers.
            _ => {}
        }
        Ok(())
    }

    /// `events:` names the events; after a body it starts a new part, of the same events.
    fn events(&mut self, value: &str) -> Result<(), Malformed> {
        if self.st.in_body {
            self.end_part();
        }
        let ev: Vec<String> = value.split_whitespace().map(String::from).collect();
        if !self.part.events.is_empty() && self.part.events != ev {
            return Err(Malformed::MixedEvents);
        }
        self.st.n_events = ev.len();
        self.part.events = ev;
        Ok(())
    }

    /// `positions:` names the subpositions of the cost lines (`line` when empty).
    fn positions(&mut self, value: &str) -> Result<(), Malformed> {
        let mut ps = Vec::new();
        for w in value.split_whitespace() {
            ps.push(match w {
                "instr" => Position::Instr,
                "line" => Position::Line,
                "bb" => Position::Bb,
                other => {
                    return Err(Malformed::Position {
                        name: other.to_string(),
                    })
                }
            });
        }
        if ps.is_empty() {
            ps.push(Position::Line);
        }
        self.st.last_pos = vec![0; ps.len()];
        self.st.positions = ps.clone();
        self.part.positions = ps;
        Ok(())
    }

    /// The end of a file of `lines` lines: the parts read.
    fn finish(mut self, lines: usize) -> Result<Vec<Profile>, ParseError> {
        if self.st.pending_call.is_some() {
            return Err(ParseError::new(
                FileKind::Callgrind,
                lines,
                "file ends after calls=",
            ));
        }
        if self.part.events.is_empty() && self.done.is_empty() {
            return Err(ParseError::new(FileKind::Callgrind, 0, "no events: header"));
        }
        if self.part.events.is_empty() {
            self.part.events = self.done[0].events.clone();
        }
        let last = self.part.next_part(&mut self.tables);
        self.done.push(last);
        Ok(self.done)
    }
}

/// Name compression tables.
#[derive(Default)]
struct Names {
    objects: HashMap<u64, String>,
    files: HashMap<u64, String>,
    functions: HashMap<u64, String>,
}

/// The kind of name a compressed id belongs to.
#[derive(Clone, Copy)]
enum Table {
    Object,
    File,
    Function,
}

impl Names {
    /// Resolves `(id) name`, `(id)` or `name`.
    fn resolve(&mut self, table: Table, value: &str) -> Result<String, Malformed> {
        let v = value.trim_start();
        let map = match table {
            Table::Object => &mut self.objects,
            Table::File => &mut self.files,
            Table::Function => &mut self.functions,
        };
        let b = v.as_bytes();
        if b.len() >= 2 && b[0] == b'(' && b[1].is_ascii_digit() {
            if let Some(close) = v.find(')') {
                if let Ok(id) = v[1..close].parse::<u64>() {
                    let rest = v[close + 1..].trim();
                    if rest.is_empty() {
                        return map.get(&id).cloned().ok_or(Malformed::Undefined { id });
                    }
                    map.insert(id, rest.to_string());
                    return Ok(rest.to_string());
                }
            }
        }
        Ok(v.trim_end().to_string())
    }
}

/// Parses one subposition against the previous value.
fn subposition(tok: &str, last: u64) -> Result<u64, Malformed> {
    let bad = || Malformed::Subposition {
        token: tok.to_string(),
    };
    if tok == "*" {
        return Ok(last);
    }
    let num = |s: &str| -> Result<u64, Malformed> {
        if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            u64::from_str_radix(h, 16).map_err(|_| bad())
        } else {
            s.parse::<u64>().map_err(|_| bad())
        }
    };
    if let Some(r) = tok.strip_prefix('+') {
        last.checked_add(num(r)?).ok_or_else(bad)
    } else if let Some(r) = tok.strip_prefix('-') {
        last.checked_sub(num(r)?).ok_or_else(bad)
    } else {
        num(tok)
    }
}

/// The costs of a cost line's or a `summary:`/`totals:` line's rest.
fn costs_of(text: &str) -> Result<Vec<u64>, Malformed> {
    text.split_whitespace()
        .map(|t| {
            t.parse::<u64>().map_err(|_| Malformed::Cost {
                token: t.to_string(),
            })
        })
        .collect()
}

/// Where the reader is in the body: see the module docs for why there are two "current
/// files".
struct ParseState {
    names: Names,
    positions: Vec<Position>,
    n_events: usize,
    object: String,
    /// File of the last `fl=`: the file of the next `fn=`.
    fn_file: String,
    /// File of the next self cost line (moved by `fl=`, `fi=`, `fe=`).
    cur_file: String,
    /// File of the last self cost line (or `fl=`/`fn=`): the default `cfi=`.
    last_file: String,
    /// Subpositions of the last self cost line.
    last_pos: Vec<u64>,
    /// The function of the last `fn=`.
    function: Option<usize>,
    /// `cob=`, `cfi=`/`cfl=` and `cfn=` of the next `calls=`.
    callee_object: Option<String>,
    callee_file: Option<String>,
    callee: Option<usize>,
    /// `(callee, count)` waiting for its cost line.
    pending_call: Option<(usize, u64)>,
    /// A `jump=`/`jcnd=` waiting for its position line.
    pending_jump: bool,
    /// Whether a body line of this part has been read.
    in_body: bool,
}

impl ParseState {
    fn new() -> ParseState {
        ParseState {
            names: Names::default(),
            positions: vec![Position::Line],
            n_events: 0,
            object: "???".into(),
            fn_file: "???".into(),
            cur_file: "???".into(),
            last_file: "???".into(),
            last_pos: vec![0],
            function: None,
            callee_object: None,
            callee_file: None,
            callee: None,
            pending_call: None,
            pending_jump: false,
            in_body: false,
        }
    }

    /// A new part starts: positions and contexts reset, name tables are kept.
    fn new_part(&mut self) {
        let names = std::mem::take(&mut self.names);
        let positions = self.positions.clone();
        let n_events = self.n_events;
        *self = ParseState::new();
        self.names = names;
        self.positions = positions;
        self.last_pos = vec![0; self.positions.len()];
        self.n_events = n_events;
    }

    /// Splits a cost line into subpositions (resolved against the last self cost line) and costs.
    fn split(&self, line: &str) -> Result<(Vec<u64>, Vec<u64>), Malformed> {
        let mut toks = line.split_whitespace();
        let mut pos = Vec::with_capacity(self.positions.len());
        for i in 0..self.positions.len() {
            let t = toks.next().ok_or(Malformed::NoPositions)?;
            pos.push(subposition(t, self.last_pos.get(i).copied().unwrap_or(0))?);
        }
        let rest: Vec<&str> = toks.collect();
        let costs = costs_of(&rest.join(" "))?;
        if costs.len() > self.n_events.max(1) {
            return Err(Malformed::TooManyCosts {
                costs: costs.len(),
                events: self.n_events,
            });
        }
        Ok((pos, costs))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::test_data::*;
    use super::*;
    use crate::analyze::callgrind::lines::HotLine;
    use crate::analyze::callgrind::profile::Function;
    use crate::analyze::callgrind::FoldOptions;

    const SPEC_COMPRESSED: &str = "# callgrind format
events: Instructions
fl=(1) file1.c
fn=(1) main
16 20
cfn=(2) func1
calls=1 50
16 400
cfi=(2) file2.c
cfn=(3) func2
calls=3 20
16 400
fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300
fl=(2)
fn=(3)
20 700
";

    #[test]
    fn spec_example_self_inclusive_calls() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        assert_eq!(p.events, vec!["Instructions"]);
        assert_eq!(p.total(0), 820);
        let main = by_name(&p, "main");
        assert_eq!((main.self_cost[0], main.inclusive[0]), (20, 820));
        let row = |name| {
            let f = by_name(&p, name);
            (f.file.as_str(), f.self_cost[0], f.inclusive[0], f.calls_in)
        };
        assert_eq!(row("func1"), ("file1.c", 100, 400, 1));
        assert_eq!(row("func2"), ("file2.c", 700, 700, 5));
        assert_eq!(p.calls.len(), 3);
        assert_eq!(p.total_ir(), None);
    }

    #[test]
    fn compressed_names_read_the_same() {
        let a = Profile::parse(SPEC_EXTENDED).unwrap();
        let b = Profile::parse(SPEC_COMPRESSED).unwrap();
        assert_eq!(a.functions, b.functions);
        assert_eq!(a.calls, b.calls);
        assert_eq!(a.lines, b.lines);
    }

    #[test]
    fn undefined_compressed_name_is_an_error() {
        let e = Profile::parse("events: Ir\nfn=(7)\n1 2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("(7)"), "{e}");
    }

    #[test]
    fn plain_names_in_parentheses_are_not_ids() {
        let p =
            Profile::parse("events: Ir\nfn=(below main)\n1 5\nfn=(3) (below main)\n1 1\n").unwrap();
        assert_eq!(p.functions.len(), 1);
        assert_eq!(p.functions[0].self_cost, vec![6]);
    }

    #[test]
    fn subposition_compression_instr_line() {
        let text = "positions: instr line
events: ticks
fn=func
0x80001234 90 1
+3 * 5
+1 +1 6
-4 -1 2
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.positions, vec![Position::Instr, Position::Line]);
        let mut got: Vec<(u64, u64)> = p.lines.iter().map(|l| (l.line, l.cost[0])).collect();
        got.sort();
        assert_eq!(got, vec![(90, 1 + 5 + 2), (91, 6)]);
        assert_eq!(p.total(0), 14);
    }

    #[test]
    fn missing_trailing_costs_are_zero_and_too_many_is_an_error() {
        let p = Profile::parse("events: Ir Dr Dw\nfn=f\n3 10 2\n4 1\n").unwrap();
        assert_eq!(p.functions[0].self_cost, vec![11, 2, 0]);
        assert!(Profile::parse("events: Ir\nfn=f\n3 10 2\n").is_err());
    }

    #[test]
    fn call_lines_do_not_move_the_last_position_or_file() {
        // As callgrind writes: the call at line 30 is relative to line 20 (+10), and so is the
        // self cost line after it (+1 = 21), in file a.rs again after the fi= for the call.
        let text = "events: Ir
fl=(1) a.rs
fn=(1) f
20 5
fi=(2) b.rs
cfn=(2) g
calls=1 +5
+10 100
+1 7
fl=(1)
fn=(2)
25 100
";
        let p = Profile::parse(text).unwrap();
        let f = by_name(&p, "f");
        assert_eq!((f.self_cost[0], f.inclusive[0]), (12, 112));
        let g = by_name(&p, "g");
        assert_eq!(
            g.file, "a.rs",
            "cfn without cfi is in the last self cost line's file"
        );
        assert_eq!(g.calls_in, 1);
        let lines: Vec<(&str, u64, u64)> = p
            .lines
            .iter()
            .map(|l| (l.file.as_str(), l.line, l.cost[0]))
            .collect();
        assert_eq!(
            lines,
            vec![("a.rs", 20, 5), ("a.rs", 21, 7), ("a.rs", 25, 100)]
        );
    }

    #[test]
    fn inlined_files_get_their_lines_and_the_function_keeps_its_file() {
        let text = "events: Ir
fl=(1) lib.rs
fn=(1) outer
10 1
fi=(2) inl.rs
5 3
fe=(1)
11 2
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.functions.len(), 1);
        assert_eq!(p.functions[0].file, "lib.rs");
        assert_eq!(p.functions[0].self_cost, vec![6]);
        let hot = p.hottest_lines(0);
        assert_eq!(
            hot[0],
            HotLine {
                file: "inl.rs".into(),
                line: 5,
                cost: 3,
                function: 0
            }
        );
    }

    #[test]
    fn objects_and_callee_objects() {
        let text = "events: Ir
ob=(1) /bin/prog
fl=(1) main.rs
fn=(1) main
1 1
cob=(2) /lib/libc.so.6
cfi=(2) memcpy.S
cfn=(2) memcpy
calls=2 0
1 40
cfn=(3) helper
calls=1 0
1 10
ob=(2)
fl=(2)
fn=(2)
0 40
ob=(1)
fl=(1)
fn=(3)
0 10
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.functions.len(), 3, "{:?}", p.functions);
        let m = by_name(&p, "memcpy");
        assert_eq!(
            (m.object.as_str(), m.file.as_str(), m.self_cost[0]),
            ("/lib/libc.so.6", "memcpy.S", 40)
        );
        let h = by_name(&p, "helper");
        assert_eq!(
            h.object, "/bin/prog",
            "callee object defaults to the caller's"
        );
        assert_eq!(by_name(&p, "main").inclusive[0], 51);
    }

    #[test]
    fn jump_lines_are_followed_by_a_position_line() {
        let text = "events: Ir
fn=f
10 4
jcnd=3/9 +63
*
jump=2 12
+1
11 6
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.functions[0].self_cost, vec![10]);
        assert_eq!(p.lines.len(), 2);
    }

    #[test]
    fn summary_totals_and_check() {
        let text = "events: Ir\nsummary: 0\nfn=f\n1 5\ntotals: 5\n";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.summary, Some(vec![0]), "as with --instr-atstart=no");
        assert_eq!(p.total_ir(), Some(5));
        assert!(p.check_totals().is_ok());
        let bad = Profile::parse("events: Ir\nfn=f\n1 5\ntotals: 6\n").unwrap();
        assert!(bad.check_totals().is_err());
        let other = Profile::parse("events: Dr\nfn=f\n1 5\n").unwrap();
        assert_eq!(other.total_ir(), None);
    }

    #[test]
    fn combined_parts_are_summed() {
        let text = "version: 1
creator: callgrind-3.19.0
pid: 1
cmd: ./x
part: 1
desc: Trigger: Client Request: a
positions: line
events: Ir
summary: 5
fl=(1) a.c
fn=(1) f
+3 5
totals: 5
part: 2
desc: Trigger: Program termination
positions: line
events: Ir
summary: 7
fl=(1)
fn=(1)
3 7
totals: 7
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(p.parts, 2);
        assert_eq!(p.triggers, vec!["Client Request: a", "Program termination"]);
        assert_eq!(p.total(0), 12);
        assert_eq!(p.totals, Some(vec![12]));
        assert_eq!(p.lines.len(), 1);
        assert_eq!(p.lines[0].line, 3);
    }

    #[test]
    fn parts_one_by_one() {
        let text = "part: 1\nevents: Ir\nfn=(1) f\n3 5\ntotals: 5\npart: 2\nevents: Ir\nfn=(1)\n3 7\ntotals: 7\npart: 3\ndesc: Trigger: Program termination\nevents: Ir\ntotals: 0\n";
        let parts = Profile::parse_parts(text).unwrap();
        let totals: Vec<u64> = parts.iter().map(|p| p.total(0)).collect();
        assert_eq!(totals, vec![5, 7, 0]);
        assert_eq!(parts[1].functions[0].name, "f", "ids carry over");
        assert_eq!(parts[2].triggers, vec!["Program termination"]);
        assert_eq!(Profile::parse(text).unwrap().total(0), 12);
    }

    #[test]
    fn malformed_inputs() {
        assert!(Profile::parse("fn=f\n1 1\n").is_err(), "no events");
        assert!(
            Profile::parse("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n").is_err(),
            "no call cost"
        );
        assert!(
            Profile::parse("events: Ir\nfn=f\ncalls=1 2\n3 4\n").is_err(),
            "calls without cfn"
        );
        assert!(
            Profile::parse("events: Ir\nfn=f\n1 x\n").is_err(),
            "bad cost"
        );
        assert!(
            Profile::parse("events: Ir\nfn=f\n-5 1\n").is_err(),
            "negative position"
        );
        assert!(Profile::parse("events: Ir\nthis is not a line\n").is_err());
    }

    /// Every cfn=(id) must resolve to the same (object, file) as the fn=(id) block: collect
    /// id -> name from definitions and check no two functions share a compressed name id.
    fn assert_ids_resolve_to_one_function(text: &str, p: &Profile) {
        let mut names: HashMap<u64, String> = HashMap::new();
        for l in text.lines() {
            for prefix in ["fn=(", "cfn=("] {
                if let Some(r) = l.strip_prefix(prefix) {
                    let close = r.find(')').unwrap();
                    let id: u64 = r[..close].parse().unwrap();
                    let rest = r[close + 1..].trim();
                    if !rest.is_empty() {
                        names.insert(id, rest.to_string());
                    }
                }
            }
        }
        let mut count: HashMap<&str, Vec<&Function>> = HashMap::new();
        for f in &p.functions {
            count.entry(&f.name).or_default().push(f);
        }
        let mut per_name_ids: HashMap<&str, usize> = HashMap::new();
        for n in names.values() {
            *per_name_ids.entry(n).or_default() += 1;
        }
        for (name, fs) in count {
            let ids = per_name_ids.get(name).copied().unwrap_or(0);
            assert!(
                fs.len() <= ids.max(1),
                "{name}: {} functions read for {ids} ids: {:?}",
                fs.len(),
                fs.iter().map(|f| (&f.object, &f.file)).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn fixtures_parse_and_add_up() {
        for (name, text) in all_fixtures() {
            let p = Profile::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            p.check_totals().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.events, vec!["Ir"], "{name}");
            let total = p.total_ir().unwrap();
            assert!(total > 0, "{name}");
            // Every function's inclusive cost equals what its callers paid for it, unless it
            // is a root, recursive through contexts, or called from outside collection.
            for (i, f) in p.functions.iter().enumerate() {
                let paid: u64 = p
                    .callers(i, 0)
                    .iter()
                    .map(|&c| &p.calls[c])
                    .filter(|c| c.caller != i)
                    .map(|c| c.cost[0])
                    .sum();
                let self_called = p.calls.iter().any(|c| c.caller == i && c.callee == i);
                let ctx_rec = f.name.contains('\'');
                if paid > 0 && !self_called && !ctx_rec && !f.in_cycle {
                    assert_eq!(f.inclusive[0], paid, "{name}: {}", f.name);
                }
            }
            if name != "legacy-nocompress" {
                assert_ids_resolve_to_one_function(text, &p);
            }
            let fold = p.folded(&FoldOptions::default());
            assert_eq!(fold.total(), total, "{name}: folded total");
            let fold = p.merge_contexts().folded(&FoldOptions::default());
            assert_eq!(fold.total(), total, "{name}: merged folded total");
        }
    }

    #[test]
    fn compressed_and_uncompressed_files_read_the_same() {
        // Two runs of the same command (callgrind counts are repeatable for an identical
        // command line), one with --compress-strings=no --compress-pos=no.
        let a = Profile::parse(LEGACY).unwrap();
        let b = Profile::parse(LEGACY_NOCOMPRESS).unwrap();
        type Row = (String, String, String, Vec<u64>, Vec<u64>);
        let key = |p: &Profile| {
            let mut v: Vec<Row> = p
                .functions
                .iter()
                .map(|f| {
                    (
                        f.object.clone(),
                        f.file.clone(),
                        f.name.clone(),
                        f.self_cost.clone(),
                        f.inclusive.clone(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(key(&a), key(&b));
        let lines = |p: &Profile| {
            let mut v: Vec<(String, u64, String, Vec<u64>)> = p
                .lines
                .iter()
                .map(|l| {
                    (
                        l.file.clone(),
                        l.line,
                        p.functions[l.function].name.clone(),
                        l.cost.clone(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(lines(&a), lines(&b));
        assert_eq!(
            a.folded(&FoldOptions::default()),
            b.folded(&FoldOptions::default())
        );
    }

    #[test]
    fn dump_variants_agree_on_functions() {
        // Same command, --dump-instr=yes (positions: instr line), and --dump-line=no.
        let base = Profile::parse(LEGACY).unwrap();
        for (name, text) in [
            ("instr", LEGACY_INSTR),
            ("instr-noline", LEGACY_INSTR_NOLINE),
            ("jumps", LEGACY_JUMPS),
        ] {
            let p = Profile::parse(text).unwrap();
            assert_eq!(p.total_ir(), base.total_ir(), "{name}");
            assert_eq!(cost_rows(&p), cost_rows(&base), "{name}");
        }
        let instr = Profile::parse(LEGACY_INSTR).unwrap();
        assert_eq!(instr.positions, vec![Position::Instr, Position::Line]);
        let named = |p: &Profile| -> Vec<(String, u64, u64, String)> {
            p.hottest_lines(0)
                .into_iter()
                .map(|h| (h.file, h.line, h.cost, p.functions[h.function].name.clone()))
                .collect()
        };
        let (a, b) = (named(&instr), named(&base));
        assert_eq!(a.len(), b.len());
        let diffs: Vec<_> = a.iter().zip(&b).filter(|(x, y)| x != y).take(3).collect();
        assert!(diffs.is_empty(), "{diffs:?}");
        let noline = Profile::parse(LEGACY_INSTR_NOLINE).unwrap();
        assert_eq!(noline.positions, vec![Position::Instr]);
        assert!(noline.lines.is_empty());
    }

    #[test]
    fn client_request_toggle_profile() {
        // --collect-atstart=no with CALLGRIND_TOGGLE_COLLECT around the counted call: the
        // toggling function's few instructions are in, the loop is the rest.
        let p = Profile::parse(LEGACY_CREQ).unwrap();
        let l = p.find(LOOP);
        assert_eq!(l.len(), 1);
        let total = p.total_ir().unwrap();
        let inc = p.functions[l[0]].inclusive[0];
        assert!(
            total > inc && total - inc < 100,
            "total {total}, loop {inc}"
        );
    }

    #[test]
    fn combined_dumps_of_a_real_run() {
        // --combine-dumps=yes --dump-after=LOOP: the warm-up call, the counted call, and the
        // empty dump at exit, in one file.
        let parts = Profile::parse_parts(LEGACY_COMBINED).unwrap();
        let totals: Vec<u64> = parts.iter().map(|p| p.total_ir().unwrap()).collect();
        assert_eq!(totals, vec![107786, 206756, 0]);
        for p in &parts {
            p.check_totals().unwrap();
        }
        // The counted call reads exactly like the --zero-before file of the same command.
        let zero_before = Profile::parse(LEGACY).unwrap();
        assert_eq!(cost_rows(&parts[1]), cost_rows(&zero_before));
        assert_eq!(parts[1].cmd, parts[0].cmd);
    }
}
