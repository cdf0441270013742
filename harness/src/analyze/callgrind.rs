//! A reader for callgrind output files (`callgrind.out.<pid>`, format version 1 as written by
//! valgrind 3.19's callgrind) and the views an "instructions" recording needs: total cost, per
//! function self and inclusive cost, per source line self cost, and folded stacks for a flame
//! graph.
//!
//! Std only. Parse with [`Profile::parse`] or [`Profile::from_path`].
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
//! file, and on real files then splits one function into several: checked on the fixtures,
//! where every `cfn=(id)` must land on the function of its `fn=(id)` block); after a call the
//! current file falls back to that file; and a relative subposition after a call is relative to
//! the last self cost line (from callgrind's dump.c; in the files seen, call cost lines are
//! always `*` or absolute, so this never showed). The compressed and `--compress-pos=no
//! --compress-strings=no` outputs of one command read to identical tables.
//!
//! A function is identified by (object, file of its `fl=`, name), as callgrind does.
//! With `--separate-callers=N` and recursion levels (`--separate-recs`, default 2), names are
//! contexts: `f'2` is f at recursion depth 2 and more, `g'f'e` is g called from f called from e.
//! [`Profile::merge_contexts`] folds them into plain functions.
//!
//! Several parts in one file (`--combine-dumps=yes`) are summed. Not supported:
//! `--mangle-names=no` (`rec=`/`frfn=` lines are ignored, so contexts are not told apart).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::folded::Folded;
use super::parse_error::{FileKind, ParseError};

/// One subposition kind of the `positions:` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// An instruction address (`--dump-instr=yes`), relative to the object's load offset.
    Instr,
    /// A source line number (`--dump-line=yes`, the default); 0 when there is no debug info.
    Line,
    /// A basic block address (`--dump-bb=yes`).
    Bb,
}

/// A function (or, with separate callers or recursion levels, a function context).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The demangled name as callgrind wrote it, contexts included (`f'2`, `g'f'e`).
    pub name: String,
    /// The source file of the function (`fl=`); `???` without debug info.
    pub file: String,
    /// The ELF object (`ob=`).
    pub object: String,
    /// Self cost per event.
    pub self_cost: Vec<u64>,
    /// Self cost plus the cost of the calls it makes to *other* functions. Calls to itself
    /// are left out: their cost is already in this function's self cost and other calls.
    /// Exact without recursion through other functions; see [`Function::in_cycle`].
    pub inclusive: Vec<u64>,
    /// Calls to it, summed over its callers (0 for calls made while collection was off).
    pub calls_in: u64,
    /// Whether it is on a call cycle through another function (a -> b -> a). Then its
    /// inclusive cost counts the inner activations twice, as callgrind_annotate's does.
    pub in_cycle: bool,
}

impl Function {
    /// The name without callgrind's context suffixes: `f'2` and `f'g'h` give `f`.
    pub fn base_name(&self) -> &str {
        base_name(&self.name)
    }
}

/// Calls from one function to another, summed over call sites.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Index into [`Profile::functions`].
    pub caller: usize,
    /// Index into [`Profile::functions`].
    pub callee: usize,
    /// Number of calls (0 when the calls started before collection was switched on, as for
    /// the callers of a `--toggle-collect` function).
    pub count: u64,
    /// Inclusive cost spent in those calls, per event.
    pub cost: Vec<u64>,
}

/// Self cost at one source line, inside one function.
#[derive(Debug, Clone, PartialEq)]
pub struct LineCost {
    pub file: String,
    /// 0 when callgrind had no line information.
    pub line: u64,
    /// Index into [`Profile::functions`].
    pub function: usize,
    pub cost: Vec<u64>,
}

/// One line of [`Profile::hottest_lines`].
#[derive(Debug, Clone, PartialEq)]
pub struct HotLine {
    pub file: String,
    pub line: u64,
    /// Self cost of the event asked for, summed over the functions that have code there.
    pub cost: u64,
    /// The function with most of that cost (index into [`Profile::functions`]).
    pub function: usize,
}

/// A parsed callgrind file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Profile {
    /// Event names of `events:`, e.g. `["Ir"]`.
    pub events: Vec<String>,
    /// Subpositions of `positions:` (default `[Line]`).
    pub positions: Vec<Position>,
    /// `cmd:` of the first part.
    pub cmd: Option<String>,
    /// `pid:` of the first part.
    pub pid: Option<u64>,
    /// `desc: Trigger:` of each part (e.g. `Program termination`).
    pub triggers: Vec<String>,
    /// Number of parts read (1 unless `--combine-dumps=yes`).
    pub parts: usize,
    /// `summary:` as written (summed over parts). Callgrind writes 0 here with
    /// `--instr-atstart=no`: prefer [`Profile::total`].
    pub summary: Option<Vec<u64>>,
    /// `totals:` as written (summed over parts).
    pub totals: Option<Vec<u64>>,
    pub functions: Vec<Function>,
    pub calls: Vec<Call>,
    /// Self cost per (file, line, function), in no particular order. Empty with
    /// `--dump-line=no`.
    pub lines: Vec<LineCost>,
}

/// Options of [`Profile::folded`].
#[derive(Debug, Clone)]
pub struct FoldOptions {
    /// Event index (see [`Profile::event`]).
    pub event: usize,
    /// Start at these functions (indices); `None`: at every function with cost that no other
    /// function calls (for a `--toggle-collect` profile: the program's entry point, with the
    /// uncollected callers of the toggled function above it).
    pub roots: Option<Vec<usize>>,
    /// A frame whose share is below this is not split further: its whole share is written as
    /// the frame's own (so totals stay exact, detail below it is lost). 0 or 1: split down to
    /// single instructions.
    pub min_count: u64,
    /// Frames deeper than this are not split further, likewise.
    pub max_depth: usize,
    /// Write frames as [`base_name`]s (without `'2`, `'caller` context suffixes).
    pub base_names: bool,
}

impl Default for FoldOptions {
    fn default() -> Self {
        FoldOptions {
            event: 0,
            roots: None,
            min_count: 0,
            max_depth: 400,
            base_names: true,
        }
    }
}

/// `name` without callgrind's context suffixes: everything from the first `'` that is outside
/// `<...>`, `(...)`, `[...]` and `{...}` (Rust lifetimes such as `&'a str` stay, being inside
/// brackets; the `>` of `->` is not a bracket).
pub fn base_name(name: &str) -> &str {
    let b = name.as_bytes();
    let mut depth: i32 = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b'\'' if depth <= 0 => return &name[..i],
            _ => {}
        }
    }
    name
}

/// `name` without the callers of a `--separate-callers` context, keeping a recursion level:
/// `g'f'e` gives `g`, `f'2'g` gives `f'2`, `f'2` stays.
pub fn strip_callers(name: &str) -> &str {
    let base = base_name(name);
    let rest = &name[base.len()..];
    if let Some(r) = rest.strip_prefix('\'') {
        let digits = r.bytes().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && (digits == r.len() || r.as_bytes()[digits] == b'\'') {
            return &name[..base.len() + 1 + digits];
        }
    }
    base
}

/// Whether `pattern` matches the whole of `name` by the rules callgrind applies to function
/// names in `--toggle-collect`, `--dump-after` and its other per-function options: `*` is any
/// run of characters (none included), `?` is one character, and every other character stands
/// for itself. [`Profile::find`] uses it, so it selects the functions the toggle pattern of the
/// instrumented child selected.
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
pub fn valgrind_pattern_matches(pattern: &str, name: &str) -> bool {
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

fn add_to(dst: &mut Vec<u64>, src: &[u64]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Name compression tables.
#[derive(Default)]
struct Names {
    objects: HashMap<u64, String>,
    files: HashMap<u64, String>,
    functions: HashMap<u64, String>,
}

#[derive(Clone, Copy)]
enum Table {
    Object,
    File,
    Function,
}

impl Names {
    /// Resolves `(id) name`, `(id)` or `name`.
    fn resolve(&mut self, table: Table, value: &str) -> Result<String, String> {
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
                        return map
                            .get(&id)
                            .cloned()
                            .ok_or_else(|| format!("name ({id}) used before it is defined"));
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
fn subposition(tok: &str, last: u64) -> Result<u64, String> {
    let bad = || format!("bad subposition {tok:?}");
    if tok == "*" {
        return Ok(last);
    }
    let num = |s: &str| -> Result<u64, String> {
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

fn costs_of(text: &str) -> Result<Vec<u64>, String> {
    text.split_whitespace()
        .map(|t| t.parse::<u64>().map_err(|_| format!("bad cost {t:?}")))
        .collect()
}

/// The reader's state: see the module docs for why there are two "current files".
struct State {
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
    function: Option<usize>,
    callee_object: Option<String>,
    callee_file: Option<String>,
    callee: Option<usize>,
    /// `(callee, count)` waiting for its cost line.
    pending_call: Option<(usize, u64)>,
    pending_jump: bool,
    in_body: bool,
}

impl State {
    fn new() -> State {
        State {
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
        *self = State::new();
        self.names = names;
        self.positions = positions;
        self.last_pos = vec![0; self.positions.len()];
        self.n_events = n_events;
    }

    /// Splits a cost line into subpositions (resolved against the last self cost line) and costs.
    fn split(&self, line: &str) -> Result<(Vec<u64>, Vec<u64>), String> {
        let mut toks = line.split_whitespace();
        let mut pos = Vec::with_capacity(self.positions.len());
        for i in 0..self.positions.len() {
            let t = toks.next().ok_or("cost line without its positions")?;
            pos.push(subposition(t, self.last_pos.get(i).copied().unwrap_or(0))?);
        }
        let rest: Vec<&str> = toks.collect();
        let costs = costs_of(&rest.join(" "))?;
        if costs.len() > self.n_events.max(1) {
            return Err(format!(
                "{} costs for {} events",
                costs.len(),
                self.n_events
            ));
        }
        Ok((pos, costs))
    }
}

#[derive(Default)]
struct Builder {
    functions: Vec<Function>,
    index: HashMap<(String, String, String), usize>,
    calls: BTreeMap<(usize, usize), (u64, Vec<u64>)>,
    lines: HashMap<(String, u64, usize), Vec<u64>>,
}

impl Builder {
    fn function(&mut self, object: &str, file: &str, name: &str) -> usize {
        let key = (object.to_string(), file.to_string(), name.to_string());
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.functions.len();
        self.functions.push(Function {
            name: name.to_string(),
            file: file.to_string(),
            object: object.to_string(),
            self_cost: Vec::new(),
            inclusive: Vec::new(),
            calls_in: 0,
            in_cycle: false,
        });
        self.index.insert(key, i);
        i
    }
}

impl Profile {
    /// Reads and parses a callgrind file (bytes that are not UTF-8, as in odd file names, are
    /// replaced). The error converts into `anyhow::Error` with `?`.
    pub fn from_path(
        path: impl AsRef<Path>,
    ) -> Result<Profile, Box<dyn std::error::Error + Send + Sync>> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Profile::parse(&String::from_utf8_lossy(&bytes))
            .map_err(|e| format!("{}: {e}", path.display()).into())
    }

    /// Parses the text of a callgrind file.
    pub fn parse(text: &str) -> Result<Profile, ParseError> {
        let mut parts = Profile::parse_impl(text, false)?;
        Ok(parts.pop().expect("one profile"))
    }

    /// Parses a file of several parts (`--combine-dumps=yes`) into one profile per part, in
    /// file order (name compression carries over from part to part).
    pub fn parse_parts(text: &str) -> Result<Vec<Profile>, ParseError> {
        Profile::parse_impl(text, true)
    }

    fn parse_impl(text: &str, split: bool) -> Result<Vec<Profile>, ParseError> {
        let mut done: Vec<Profile> = Vec::new();
        let mut p = Profile {
            parts: 0,
            ..Profile::default()
        };
        let mut st = State::new();
        let mut b = Builder::default();
        let mut part_open = false;
        for (i, raw) in text.lines().enumerate() {
            let err = |message: String| ParseError::new(FileKind::Callgrind, i + 1, message);
            let line = raw.trim_end();
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let first = line.as_bytes()[0];
            // A cost line (or the position line after jump=/jcnd=).
            if first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'*' {
                if !part_open {
                    p.parts += 1;
                    part_open = true;
                }
                st.in_body = true;
                let (pos, costs) = st.split(line).map_err(err)?;
                if st.pending_jump {
                    st.pending_jump = false;
                    continue;
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
                continue;
            }
            if st.pending_call.is_some() {
                return Err(err("calls= not followed by its cost line".into()));
            }
            if st.pending_jump {
                return Err(err("jump= not followed by its position line".into()));
            }
            // A body specification `key=value`?
            if let Some(eq) = line.find('=') {
                let key = &line[..eq];
                if !key.is_empty() && key.bytes().all(|c| c.is_ascii_lowercase()) {
                    let value = &line[eq + 1..];
                    if !part_open {
                        p.parts += 1;
                        part_open = true;
                    }
                    st.in_body = true;
                    match key {
                        "ob" => st.object = st.names.resolve(Table::Object, value).map_err(err)?,
                        "fl" => {
                            let f = st.names.resolve(Table::File, value).map_err(err)?;
                            st.fn_file = f.clone();
                            st.cur_file = f.clone();
                            st.last_file = f;
                        }
                        "fi" | "fe" => {
                            st.cur_file = st.names.resolve(Table::File, value).map_err(err)?
                        }
                        "fn" => {
                            let name = st.names.resolve(Table::Function, value).map_err(err)?;
                            let f = b.function(&st.object, &st.fn_file, &name);
                            st.function = Some(f);
                            st.cur_file = st.fn_file.clone();
                            st.last_file = st.fn_file.clone();
                            st.last_pos = vec![0; st.positions.len()];
                        }
                        "cob" => {
                            st.callee_object =
                                Some(st.names.resolve(Table::Object, value).map_err(err)?)
                        }
                        "cfi" | "cfl" => {
                            st.callee_file =
                                Some(st.names.resolve(Table::File, value).map_err(err)?)
                        }
                        "cfn" => {
                            let name = st.names.resolve(Table::Function, value).map_err(err)?;
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
                        }
                        "calls" => {
                            let count = value
                                .split_whitespace()
                                .next()
                                .and_then(|c| c.parse::<u64>().ok())
                                .ok_or_else(|| err(format!("bad calls= line {line:?}")))?;
                            let callee =
                                st.callee.ok_or_else(|| err("calls= without cfn=".into()))?;
                            st.pending_call = Some((callee, count));
                        }
                        "jump" | "jcnd" => st.pending_jump = true,
                        "jfi" => {
                            st.names.resolve(Table::File, value).map_err(err)?;
                        }
                        "jfn" | "frfn" => {
                            st.names.resolve(Table::Function, value).map_err(err)?;
                        }
                        // rec=, ln=, and extensions of other writers: no cost meaning here.
                        _ => {}
                    }
                    continue;
                }
            }
            // A header line `key: value`.
            let (key, value) = match line.find(':') {
                Some(c) => (line[..c].trim(), line[c + 1..].trim()),
                None => return Err(err(format!("unrecognised line {line:?}"))),
            };
            match key {
                "version" if value != "1" => {
                    return Err(err(format!("unsupported format version {value}")));
                }
                "events" => {
                    if st.in_body {
                        part_open = false;
                        st.new_part();
                        if split {
                            done.push(p.next_part(&mut b));
                        }
                    }
                    let ev: Vec<String> = value.split_whitespace().map(String::from).collect();
                    if !p.events.is_empty() && p.events != ev {
                        return Err(err("parts with different events".into()));
                    }
                    st.n_events = ev.len();
                    p.events = ev;
                }
                "positions" => {
                    let mut ps = Vec::new();
                    for w in value.split_whitespace() {
                        ps.push(match w {
                            "instr" => Position::Instr,
                            "line" => Position::Line,
                            "bb" => Position::Bb,
                            other => return Err(err(format!("unknown position {other:?}"))),
                        });
                    }
                    if ps.is_empty() {
                        ps.push(Position::Line);
                    }
                    st.last_pos = vec![0; ps.len()];
                    st.positions = ps.clone();
                    p.positions = ps;
                }
                "part" if st.in_body => {
                    part_open = false;
                    st.new_part();
                    if split {
                        done.push(p.next_part(&mut b));
                    }
                }
                "cmd" if p.cmd.is_none() => p.cmd = Some(value.to_string()),
                "pid" if p.pid.is_none() => p.pid = value.parse().ok(),
                "desc" => {
                    if let Some(t) = value.strip_prefix("Trigger:") {
                        p.triggers.push(t.trim().to_string());
                    }
                }
                "summary" => add_to(
                    p.summary.get_or_insert_with(Vec::new),
                    &costs_of(value).map_err(err)?,
                ),
                "totals" => add_to(
                    p.totals.get_or_insert_with(Vec::new),
                    &costs_of(value).map_err(err)?,
                ),
                // creator, thread, event (long names), and unknown headers.
                _ => {}
            }
        }
        if st.pending_call.is_some() {
            return Err(ParseError::new(
                FileKind::Callgrind,
                text.lines().count(),
                "file ends after calls=",
            ));
        }
        if p.events.is_empty() && done.is_empty() {
            return Err(ParseError::new(FileKind::Callgrind, 0, "no events: header"));
        }
        if p.events.is_empty() {
            p.events = done[0].events.clone();
        }
        let last = p.next_part(&mut b);
        done.push(last);
        Ok(done)
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

    /// Fills the function, call and line tables from `b` (costs padded to every event, lines
    /// sorted), then the derived figures.
    fn take_tables(&mut self, b: Builder) {
        let n = self.events.len();
        self.functions = b.functions;
        for f in &mut self.functions {
            f.self_cost.resize(n, 0);
        }
        self.calls = b
            .calls
            .into_iter()
            .map(|((caller, callee), (count, mut cost))| {
                cost.resize(n, 0);
                Call {
                    caller,
                    callee,
                    count,
                    cost,
                }
            })
            .collect();
        let mut lines: Vec<LineCost> = b
            .lines
            .into_iter()
            .map(|((file, line, function), mut cost)| {
                cost.resize(n, 0);
                LineCost {
                    file,
                    line,
                    function,
                    cost,
                }
            })
            .collect();
        lines.sort_by(|a, b| (&a.file, a.line, a.function).cmp(&(&b.file, b.line, b.function)));
        self.lines = lines;
        self.derive();
    }

    /// Recomputes inclusive costs, call counts and cycle flags from self costs and calls.
    fn derive(&mut self) {
        let n = self.events.len();
        for f in &mut self.functions {
            f.inclusive = f.self_cost.clone();
            f.inclusive.resize(n, 0);
            f.calls_in = 0;
            f.in_cycle = false;
        }
        for c in &self.calls {
            if c.caller != c.callee {
                let cost = c.cost.clone();
                add_to(&mut self.functions[c.caller].inclusive, &cost);
            }
            self.functions[c.callee].calls_in += c.count;
        }
        for (i, in_cycle) in self.cycle_members().into_iter().enumerate() {
            self.functions[i].in_cycle = in_cycle;
        }
    }

    /// Functions on a cycle of two or more distinct functions (Tarjan's SCCs, iteratively).
    fn cycle_members(&self) -> Vec<bool> {
        let n = self.functions.len();
        let adj = self.callee_lists();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = vec![false; n];
        let mut next = 0usize;
        for s in 0..n {
            if index[s] != usize::MAX {
                continue;
            }
            let mut work: Vec<(usize, usize)> = vec![(s, 0)];
            index[s] = next;
            low[s] = next;
            next += 1;
            stack.push(s);
            on_stack[s] = true;
            while let Some(&mut (v, ref mut k)) = work.last_mut() {
                if *k < adj[v].len() {
                    let w = self.calls[adj[v][*k]].callee;
                    *k += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    work.pop();
                    if let Some(&(u, _)) = work.last() {
                        low[u] = low[u].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut comp = Vec::new();
                        loop {
                            let w = stack.pop().expect("tarjan stack");
                            on_stack[w] = false;
                            comp.push(w);
                            if w == v {
                                break;
                            }
                        }
                        if comp.len() > 1 {
                            for w in comp {
                                out[w] = true;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// For each function, the indices into `calls` of its calls to other functions.
    fn callee_lists(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.functions.len()];
        for (i, c) in self.calls.iter().enumerate() {
            if c.caller != c.callee {
                adj[c.caller].push(i);
            }
        }
        adj
    }

    /// Index of the event `name` (e.g. `"Ir"`).
    pub fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// Total cost of `event`: the sum of all self costs (what `totals:` should say).
    pub fn total(&self, event: usize) -> u64 {
        self.functions
            .iter()
            .map(|f| f.self_cost.get(event).copied().unwrap_or(0))
            .sum()
    }

    /// Total instructions executed (event `Ir`), or `None` if the file has no `Ir` event.
    pub fn total_ir(&self) -> Option<u64> {
        self.event("Ir").map(|e| self.total(e))
    }

    /// Checks the sums against the `totals:` line (when there is one).
    pub fn check_totals(&self) -> Result<(), String> {
        if let Some(t) = &self.totals {
            for (e, name) in self.events.iter().enumerate() {
                let declared = t.get(e).copied().unwrap_or(0);
                let sum = self.total(e);
                if declared != sum {
                    return Err(format!(
                        "{name}: totals: says {declared}, cost lines sum to {sum}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Indices of the functions whose whole name matches `pattern` by valgrind's rules (see
    /// [`valgrind_pattern_matches`]).
    pub fn find(&self, pattern: &str) -> Vec<usize> {
        (0..self.functions.len())
            .filter(|&i| valgrind_pattern_matches(pattern, &self.functions[i].name))
            .collect()
    }

    /// Function indices by descending self cost of `event`, without zero entries.
    pub fn by_self(&self, event: usize) -> Vec<usize> {
        self.ranked(|f| f.self_cost[event])
    }

    /// Function indices by descending inclusive cost of `event`, without zero entries.
    pub fn by_inclusive(&self, event: usize) -> Vec<usize> {
        self.ranked(|f| f.inclusive[event])
    }

    fn ranked(&self, key: impl Fn(&Function) -> u64) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.functions.len())
            .filter(|&i| key(&self.functions[i]) > 0)
            .collect();
        v.sort_by(|&a, &b| {
            key(&self.functions[b])
                .cmp(&key(&self.functions[a]))
                .then_with(|| self.functions[a].name.cmp(&self.functions[b].name))
        });
        v
    }

    /// Self cost per `(file, line)` over all functions, by descending cost of `event`; each
    /// with the function that has most of it. Empty with `--dump-line=no`.
    pub fn hottest_lines(&self, event: usize) -> Vec<HotLine> {
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

    /// Calls made by function `f` (indices into `calls`), by descending cost of `event`.
    pub fn callees(&self, f: usize, event: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.calls.len())
            .filter(|&i| self.calls[i].caller == f)
            .collect();
        v.sort_by(|&a, &b| self.calls[b].cost[event].cmp(&self.calls[a].cost[event]));
        v
    }

    /// Calls made to function `f` (indices into `calls`), by descending cost of `event`.
    pub fn callers(&self, f: usize, event: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.calls.len())
            .filter(|&i| self.calls[i].callee == f)
            .collect();
        v.sort_by(|&a, &b| self.calls[b].cost[event].cmp(&self.calls[a].cost[event]));
        v
    }

    /// The same profile with contexts merged: `f`, `f'2` and `f'g'h` become one function `f`
    /// (per object and file), their self costs, calls and lines summed. Calls between contexts
    /// of one function become calls to itself, which inclusive costs leave out, so a
    /// recursive function's inclusive cost stays its outermost activations'.
    pub fn merge_contexts(&self) -> Profile {
        self.merge_by(base_name)
    }

    /// The same profile with `--separate-callers` contexts merged but recursion levels kept
    /// (`g'f'e` and `g'h` become `g`; `f'2'g` becomes `f'2`): the graph callgrind writes
    /// without `--separate-callers`.
    pub fn merge_callers(&self) -> Profile {
        self.merge_by(strip_callers)
    }

    fn merge_by(&self, key: fn(&str) -> &str) -> Profile {
        let mut b = Builder::default();
        let map: Vec<usize> = self
            .functions
            .iter()
            .map(|f| b.function(&f.object, &f.file, key(&f.name)))
            .collect();
        for (i, f) in self.functions.iter().enumerate() {
            add_to(&mut b.functions[map[i]].self_cost, &f.self_cost);
        }
        for c in &self.calls {
            let e = b
                .calls
                .entry((map[c.caller], map[c.callee]))
                .or_insert((0, Vec::new()));
            e.0 += c.count;
            add_to(&mut e.1, &c.cost);
        }
        for l in &self.lines {
            add_to(
                b.lines
                    .entry((l.file.clone(), l.line, map[l.function]))
                    .or_default(),
                &l.cost,
            );
        }
        let mut p = self.clone();
        p.take_tables(b);
        p
    }

    /// Folded stacks of `opts.event`, rebuilt from the caller -> callee graph.
    ///
    /// Callgrind keeps costs per function and per caller -> callee pair, not per stack. From
    /// each root, a frame's share of cost (the root's: its inclusive cost) is split among the
    /// frame's own self cost and its calls to other functions, in proportion to the function's
    /// self cost and the costs of those calls summed over *all* its callers; each call's part
    /// is split again in the callee's frame, and so on. Shares are whole numbers (largest
    /// remainder), so each split adds up exactly.
    ///
    /// How exact that is:
    /// * the counts add up exactly to the roots' inclusive cost;
    /// * where every function below the root has a single caller (a call tree), every stack
    ///   is exact;
    /// * without cycles, and with every caller of a function below the root, each function's
    ///   counts summed over stacks equal its self cost, and each caller -> callee pair's flow
    ///   equals that call cost, exactly but for rounding (at most one unit per split);
    /// * what is assumed: a function called from several places splits its cost among self
    ///   and callees the same way for every caller. With `--separate-callers=N` the graph is
    ///   of contexts (g called from f, from e), so the assumption only applies beyond N
    ///   callers: the deeper N, the more stacks are exact. Measured on serprof's postcard round
    ///   trip (serde: generic functions shared by many callers), against `--separate-callers=32`:
    ///   without contexts the stacks are off by 42% of the instructions (sum of absolute
    ///   differences per stack), with 4 callers by 0.8%, with 8 by 0.002%;
    /// * recursion: calls of a function to itself are inside its own frame (their cost is in
    ///   its self cost and other calls); callgrind's recursion levels (`f'2`) are frames of
    ///   their own, written `f` with `base_names`; a call that would close a cycle through
    ///   other functions (b calling back into a already on the stack) ends the stack there,
    ///   with the call's whole share as that last frame's count. Cycles make inclusive costs
    ///   count inner activations twice (see [`Function::in_cycle`]), and the shares in a
    ///   cycle are proportional to those.
    pub fn folded(&self, opts: &FoldOptions) -> Folded {
        let e = opts.event;
        let adj = self.callee_lists();
        let roots: Vec<usize> = match &opts.roots {
            Some(r) => r.clone(),
            None => {
                let mut called = vec![false; self.functions.len()];
                for c in &self.calls {
                    if c.caller != c.callee && c.cost[e] > 0 {
                        called[c.callee] = true;
                    }
                }
                (0..self.functions.len())
                    .filter(|&i| !called[i] && self.functions[i].inclusive[e] > 0)
                    .collect()
            }
        };
        let mut out: HashMap<String, u64> = HashMap::new();
        let mut on_path = vec![false; self.functions.len()];
        let mut path = String::new();
        for r in roots {
            let flow = self.functions[r].inclusive[e];
            if flow > 0 {
                self.fold_frame(r, flow, 1, opts, &adj, &mut on_path, &mut path, &mut out);
            }
        }
        Folded {
            stacks: out.into_iter().filter(|(_, n)| *n > 0).collect(),
        }
    }

    fn frame_name(&self, f: usize, opts: &FoldOptions) -> String {
        let n = &self.functions[f].name;
        let n = if opts.base_names { base_name(n) } else { n };
        n.replace(';', ":")
    }

    #[allow(clippy::too_many_arguments)]
    fn fold_frame(
        &self,
        f: usize,
        flow: u64,
        depth: usize,
        opts: &FoldOptions,
        adj: &[Vec<usize>],
        on_path: &mut [bool],
        path: &mut String,
        out: &mut HashMap<String, u64>,
    ) {
        let e = opts.event;
        let keep = path.len();
        if !path.is_empty() {
            path.push(';');
        }
        path.push_str(&self.frame_name(f, opts));
        let calls: Vec<usize> = adj[f]
            .iter()
            .copied()
            .filter(|&c| self.calls[c].cost[e] > 0)
            .collect();
        let stop = flow < opts.min_count.max(1) || depth >= opts.max_depth || calls.is_empty();
        if stop {
            *out.entry(path.clone()).or_default() += flow;
            path.truncate(keep);
            return;
        }
        on_path[f] = true;
        let mut weights = Vec::with_capacity(calls.len() + 1);
        weights.push(self.functions[f].self_cost[e]);
        weights.extend(calls.iter().map(|&c| self.calls[c].cost[e]));
        let shares = apportion(flow, &weights);
        if shares[0] > 0 {
            *out.entry(path.clone()).or_default() += shares[0];
        }
        for (k, &c) in calls.iter().enumerate() {
            let s = shares[k + 1];
            if s == 0 {
                continue;
            }
            let g = self.calls[c].callee;
            if on_path[g] {
                // A call back into a frame already on the stack: end the stack here.
                let keep2 = path.len();
                path.push(';');
                path.push_str(&self.frame_name(g, opts));
                *out.entry(path.clone()).or_default() += s;
                path.truncate(keep2);
            } else {
                self.fold_frame(g, s, depth + 1, opts, adj, on_path, path, out);
            }
        }
        on_path[f] = false;
        path.truncate(keep);
    }
}

/// Splits `total` in proportion to `weights` into whole numbers that add up to `total`
/// (largest remainder; ties to the earlier weight). All zero weights: all to the first.
pub fn apportion(total: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u128 = weights.iter().map(|&w| w as u128).sum();
    let mut out = vec![0u64; weights.len()];
    if weights.is_empty() {
        return out;
    }
    if sum == 0 {
        out[0] = total;
        return out;
    }
    let mut rems: Vec<(u128, usize)> = Vec::with_capacity(weights.len());
    let mut given: u64 = 0;
    for (i, &w) in weights.iter().enumerate() {
        let num = total as u128 * w as u128;
        out[i] = (num / sum) as u64;
        given += out[i];
        rems.push((num % sum, i));
    }
    rems.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in rems.iter().take((total - given) as usize) {
        out[i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_EXTENDED: &str = "# callgrind format
events: Instructions
fl=file1.c
fn=main
16 20
cfn=func1
calls=1 50
16 400
cfi=file2.c
cfn=func2
calls=3 20
16 400
fn=func1
51 100
cfi=file2.c
cfn=func2
calls=2 20
51 300
fl=file2.c
fn=func2
20 700
";

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

    /// The stacks of `f` in order, as `(stack, count)`.
    fn rows(f: &Folded) -> Vec<(&str, u64)> {
        f.stacks.iter().map(|(s, &n)| (s.as_str(), n)).collect()
    }

    fn by_name<'a>(p: &'a Profile, name: &str) -> &'a Function {
        let v: Vec<&Function> = p.functions.iter().filter(|f| f.name == name).collect();
        assert_eq!(v.len(), 1, "{name}: {v:?}");
        v[0]
    }

    #[test]
    fn spec_example_self_inclusive_calls() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        assert_eq!(p.events, vec!["Instructions"]);
        assert_eq!(p.total(0), 820);
        let main = by_name(&p, "main");
        assert_eq!((main.self_cost[0], main.inclusive[0]), (20, 820));
        let f1 = by_name(&p, "func1");
        assert_eq!(
            (
                f1.file.as_str(),
                f1.self_cost[0],
                f1.inclusive[0],
                f1.calls_in
            ),
            ("file1.c", 100, 400, 1)
        );
        let f2 = by_name(&p, "func2");
        assert_eq!(
            (
                f2.file.as_str(),
                f2.self_cost[0],
                f2.inclusive[0],
                f2.calls_in
            ),
            ("file2.c", 700, 700, 5)
        );
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

    #[test]
    fn base_names_strip_contexts_not_lifetimes() {
        assert_eq!(base_name("f'2"), "f");
        assert_eq!(base_name("g'f'main"), "g");
        assert_eq!(
            base_name("put_node'2'<a::B<S> as a::C>::encode"),
            "put_node"
        );
        assert_eq!(
            base_name("<&'a str as core::fmt::Display>::fmt"),
            "<&'a str as core::fmt::Display>::fmt"
        );
        assert_eq!(
            base_name("x::<for<'a> fn(&'a u8) -> u8>'caller"),
            "x::<for<'a> fn(&'a u8) -> u8>"
        );
        assert_eq!(base_name("(below main)"), "(below main)");
    }

    #[test]
    fn strip_callers_keeps_recursion_levels() {
        assert_eq!(strip_callers("g'f'e"), "g");
        assert_eq!(strip_callers("f'2'g'h"), "f'2");
        assert_eq!(strip_callers("f'12"), "f'12");
        assert_eq!(strip_callers("f'2x"), "f");
        assert_eq!(
            strip_callers("<&'a str as X>::fmt'caller"),
            "<&'a str as X>::fmt"
        );
        assert_eq!(strip_callers("plain"), "plain");
    }

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

    #[test]
    fn apportion_adds_up() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(apportion(7, &[0, 0]), vec![7, 0]);
        assert_eq!(apportion(0, &[5, 5]), vec![0, 0]);
        assert_eq!(apportion(100, &[20, 80]), vec![20, 80]);
        let s = apportion(u64::MAX / 3, &[u64::MAX / 2, 3, u64::MAX / 5]);
        assert_eq!(
            s.iter().map(|&x| x as u128).sum::<u128>(),
            (u64::MAX / 3) as u128
        );
    }

    #[test]
    fn folded_tree_is_exact() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        let f = p.folded(&FoldOptions::default());
        // func2 has two callers: 400 via main and 300 via func1 -- each call's cost is all
        // func2 self cost, so even the shared callee's stacks are exact here.
        assert_eq!(
            rows(&f),
            [
                ("main", 20),
                ("main;func1", 100),
                ("main;func1;func2", 300),
                ("main;func2", 400),
            ]
        );
        assert_eq!(
            f.to_text(),
            "main 20\nmain;func1 100\nmain;func1;func2 300\nmain;func2 400\n"
        );
    }

    /// A shared callee whose split differs per caller: the fold assumes the average split.
    #[test]
    fn folded_shared_callee_is_approximated_but_adds_up() {
        // a -> s (cost 100, all in s's callee x); b -> s (cost 100, all s self).
        let text = "events: Ir
fn=root
1 0
cfn=a
calls=1 1
1 100
cfn=b
calls=1 1
1 100
fn=a
1 0
cfn=s
calls=1 1
1 100
fn=b
1 0
cfn=s
calls=1 1
1 100
fn=s
1 100
cfn=x
calls=1 1
1 100
fn=x
1 100
";
        let p = Profile::parse(text).unwrap();
        let f = p.folded(&FoldOptions::default());
        let m: HashMap<&str, u64> = f.stacks.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        // Truth: root;a;s;x 100 and root;b;s 100. Proportional: half and half under each.
        assert_eq!(m["root;a;s"], 50);
        assert_eq!(m["root;a;s;x"], 50);
        assert_eq!(m["root;b;s"], 50);
        assert_eq!(m["root;b;s;x"], 50);
        assert_eq!(f.total(), 200);
        // Per function, exact: s self 100, x self 100.
        let s_self: u64 = f
            .stacks
            .iter()
            .filter(|(k, _)| k.ends_with(";s"))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(s_self, 100);
    }

    #[test]
    fn folded_direct_recursion_and_cycles_terminate() {
        // f calls itself (cost inside f) and a <-> b mutual recursion.
        let text = "events: Ir
fn=main
1 1
cfn=f
calls=1 1
1 30
cfn=a
calls=1 1
1 60
fn=f
1 30
cfn=f
calls=5 1
1 25
fn=a
1 20
cfn=b
calls=2 1
1 40
fn=b
1 20
cfn=a
calls=1 1
1 20
";
        let p = Profile::parse(text).unwrap();
        let f = by_name(&p, "f");
        assert_eq!(f.inclusive[0], 30, "self-calls are not added again");
        assert!(!f.in_cycle);
        assert!(by_name(&p, "a").in_cycle && by_name(&p, "b").in_cycle);
        let fold = p.folded(&FoldOptions::default());
        assert_eq!(fold.total(), 91);
        let m: HashMap<&str, u64> = fold.stacks.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        assert_eq!(m["main;f"], 30);
        assert!(m.contains_key("main;a;b;a"), "{:?}", fold.stacks);
    }

    #[test]
    fn folded_min_count_and_depth_keep_totals() {
        let p = Profile::parse(SPEC_EXTENDED).unwrap();
        let f = p.folded(&FoldOptions {
            min_count: 500,
            ..FoldOptions::default()
        });
        assert_eq!(f.total(), 820);
        assert!(
            f.stacks.iter().any(|(s, n)| s == "main;func1" && *n == 400),
            "{:?}",
            f.stacks
        );
        let d = p.folded(&FoldOptions {
            max_depth: 1,
            ..FoldOptions::default()
        });
        assert_eq!(rows(&d), [("main", 820)]);
        let r = p.folded(&FoldOptions {
            roots: Some(p.find("func1")),
            ..FoldOptions::default()
        });
        assert_eq!(rows(&r), [("func1", 100), ("func1;func2", 300)]);
    }

    #[test]
    fn merge_contexts_sums_and_keeps_recursion_exact() {
        // Separate-recs style: p -> f (incl 50) -> f'2 (incl 30) -> f'2 (20).
        let text = "events: Ir
fn=p
1 0
cfn=f
calls=1 1
1 50
fn=f
1 20
cfn=f'2
calls=1 1
1 30
fn=f'2
1 30
cfn=f'2
calls=3 1
1 20
";
        let p = Profile::parse(text).unwrap();
        assert_eq!(by_name(&p, "f").inclusive[0], 50);
        assert_eq!(by_name(&p, "f'2").inclusive[0], 30);
        let m = p.merge_contexts();
        assert_eq!(m.functions.len(), 2);
        let f = by_name(&m, "f");
        assert_eq!((f.self_cost[0], f.inclusive[0]), (50, 50));
        let fold = p.folded(&FoldOptions::default());
        assert_eq!(rows(&fold), [("p;f", 20), ("p;f;f", 30)]);
    }

    // ---------- real files from valgrind-3.19 callgrind (see harness/tests/fixtures/callgrind/README.md) ----------

    const LEGACY: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy.out"
    ));
    const LEGACY_NOCOMPRESS: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-nocompress.out"
    ));
    const LEGACY_INSTR: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-instr.out"
    ));
    const LEGACY_INSTR_NOLINE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-instr-noline.out"
    ));
    const LEGACY_CALLERS2: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-callers2.out"
    ));
    const LEGACY_JUMPS: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-jumps.out"
    ));
    const LEGACY_RECS1: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-recs1.out"
    ));
    const LEGACY_CREQ: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-creq.out"
    ));
    const V0: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/v0.out"
    ));
    const SERPROF: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/serprof-postcard.out"
    ));
    const LEGACY_COMBINED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/legacy-combined.out"
    ));

    const LOOP: &str = "scratch::workload::roundtrip_loop";

    fn all_fixtures() -> Vec<(&'static str, &'static str)> {
        vec![
            ("legacy", LEGACY),
            ("legacy-nocompress", LEGACY_NOCOMPRESS),
            ("legacy-instr", LEGACY_INSTR),
            ("legacy-instr-noline", LEGACY_INSTR_NOLINE),
            ("legacy-callers2", LEGACY_CALLERS2),
            ("legacy-jumps", LEGACY_JUMPS),
            ("legacy-recs1", LEGACY_RECS1),
            ("legacy-creq", LEGACY_CREQ),
            ("v0", V0),
            ("serprof-postcard", SERPROF),
        ]
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
    fn toggled_loop_is_the_whole_profile() {
        for (name, text, pattern) in [
            ("legacy", LEGACY, LOOP),
            ("v0", V0, "scratch::workload::roundtrip_loop::<*>"),
            ("serprof", SERPROF, "serprof::record::roundtrip_loop"),
        ] {
            let p = Profile::parse(text).unwrap();
            let found = p.find(pattern);
            assert_eq!(found.len(), 1, "{name}");
            let f = &p.functions[found[0]];
            assert_eq!(
                f.inclusive[0],
                p.total_ir().unwrap(),
                "{name}: loop inclusive = total"
            );
            // Its callers ran outside collection: no self cost, the one counted call (the
            // callers above them show calls=0).
            let callers = p.callers(found[0], 0);
            assert_eq!(callers.len(), 1, "{name}");
            let c = &p.calls[callers[0]];
            assert!(c.count <= 1, "{name}: {}", c.count);
            assert_eq!(c.cost[0], p.total_ir().unwrap(), "{name}");
            assert_eq!(p.functions[c.caller].self_cost[0], 0, "{name}");
            // Folding from the loop gives the same stacks as from the entry point, below it.
            let all = p.folded(&FoldOptions::default());
            let from_loop = p.folded(&FoldOptions {
                roots: Some(found.clone()),
                ..FoldOptions::default()
            });
            assert_eq!(from_loop.total(), all.total());
            let loop_frame = base_name(&f.name).to_string();
            for (s, n) in &from_loop.stacks {
                let hit = all.stacks.iter().find(|(a, _)| {
                    a.ends_with(&format!(";{s}")) && a.contains(&format!(";{loop_frame}"))
                });
                assert_eq!(hit.map(|h| h.1), Some(n), "{name}: {s}");
            }
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
            let selfs = |p: &Profile| {
                let mut v: Vec<(String, u64, u64)> = p
                    .functions
                    .iter()
                    .map(|f| (f.name.clone(), f.self_cost[0], f.inclusive[0]))
                    .filter(|x| x.1 + x.2 > 0)
                    .collect();
                v.sort();
                v
            };
            assert_eq!(selfs(&p), selfs(&base), "{name}");
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
    fn separate_callers_and_recursion_levels_merge_to_the_plain_profile() {
        let base = Profile::parse(LEGACY).unwrap().merge_contexts();
        let recs1 = Profile::parse(LEGACY_RECS1).unwrap();
        assert!(
            recs1.functions.iter().all(|f| !f.name.contains('\'')),
            "--separate-recs=1: no f'2"
        );
        assert!(
            recs1.calls.iter().any(|c| c.caller == c.callee),
            "direct recursion as self-calls"
        );
        let callers = Profile::parse(LEGACY_CALLERS2).unwrap();
        assert!(callers
            .functions
            .iter()
            .any(|f| f.name.matches('\'').count() >= 2));
        let sum = |p: &Profile| {
            let mut v: Vec<(String, u64, u64)> = p
                .functions
                .iter()
                .map(|f| (f.name.clone(), f.self_cost[0], f.inclusive[0]))
                .filter(|x| x.1 + x.2 > 0)
                .collect();
            v.sort();
            v
        };
        assert_eq!(sum(&recs1.merge_contexts()), sum(&base));
        assert_eq!(sum(&callers.merge_contexts()), sum(&base));
        // Without the callers, a --separate-callers=2 file is the plain file, stacks and all.
        let plain = Profile::parse(LEGACY).unwrap();
        assert_eq!(sum(&callers.merge_callers()), sum(&plain));
        let opts = FoldOptions::default();
        assert_eq!(callers.merge_callers().folded(&opts), plain.folded(&opts));
        // With 2 callers of context the fold is closer to the truth, and never further off in
        // per-function totals: both equal the self costs.
        for p in [&base, &callers.merge_contexts(), &callers] {
            let f = p.folded(&FoldOptions::default());
            let mut per_leaf: HashMap<&str, u64> = HashMap::new();
            for (s, n) in &f.stacks {
                *per_leaf.entry(s.rsplit(';').next().unwrap()).or_default() += n;
            }
            let put_node: u64 = per_leaf
                .get("scratch::workload::put_node")
                .copied()
                .unwrap_or(0);
            let want: u64 = base
                .functions
                .iter()
                .filter(|f| f.name == "scratch::workload::put_node")
                .map(|f| f.self_cost[0])
                .sum();
            let diff = put_node.abs_diff(want);
            assert!(diff <= 64, "put_node folded {put_node} vs self {want}");
        }
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
        let rows = |p: &Profile| {
            let mut v: Vec<(String, u64, u64)> = p
                .functions
                .iter()
                .map(|f| (f.name.clone(), f.self_cost[0], f.inclusive[0]))
                .filter(|r| r.1 + r.2 > 0)
                .collect();
            v.sort();
            v
        };
        assert_eq!(rows(&parts[1]), rows(&zero_before));
        assert_eq!(parts[1].cmd, parts[0].cmd);
    }

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
