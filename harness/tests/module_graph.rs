//! The structure of both crates, checked from their source text (docs/ARCHITECTURE.md,
//! "Layers of the harness"):
//!
//! - no import cycle between modules (files) of either crate;
//! - in the harness, every import between top-level modules points down the layer order, and
//!   only `cli` imports `commands`;
//! - every run-folder file name (the `&str` constants of `harness/src/layout.rs`) is written as a
//!   literal once in `harness/src`, outside tests;
//! - no study or operation name is compared with a string literal outside `engines/src/studies/`;
//! - one meaning per name in the harness: no type defined twice (a pair of `#[cfg]` alternatives
//!   is one), one `enum Verdict` in the harness and the API, no `Result<_, String>` outside
//!   `cli.rs`, and at most 8 `feature = "driver"` gates.
//!
//! An import is any path `crate::a::b`, `super::a`, `self::a` or a path through a child module
//! in a file's non-test code (comments, strings and the trailing `#[cfg(test)]` part are blanked
//! first). It resolves to the longest prefix that is a module file, and counts as an edge from
//! the file's module to that module. A module's `mod` declarations are not imports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Layers of the harness, top first. A module may import modules of lower layers only
/// (`error` is used by every layer).
const HARNESS_LAYERS: [(&str, u32); 15] = [
    ("entry", 12),
    ("cli", 11),
    ("driver", 10),
    ("commands", 9),
    ("serve", 8),
    ("run", 7),
    ("render", 6),
    ("measure", 5),
    ("analyze", 5),
    ("profile", 4),
    ("process", 3),
    ("protocol", 3),
    ("layout", 2),
    ("model", 1),
    ("error", 0),
];

/// Layers of the engines crate, top first.
const ENGINES_LAYERS: [(&str, u32); 6] = [
    ("studies", 6),
    ("casestudy", 5),
    ("external", 5),
    ("dataset", 3),
    ("model", 2),
    ("versions", 1),
];

/// Layers of the API crate, top first.
const API_LAYERS: [(&str, u32); 5] = [
    ("study", 4),
    ("workload", 3),
    ("fields", 2),
    ("verify", 1),
    ("codec", 0),
];

/// The one harness file that names the engines crate (docs/ARCHITECTURE.md, "The crate
/// boundary"): the crate root, serprof's own studies and the builtins it hands over as values.
const ENGINES_CRATE_USERS: [&str; 1] = ["lib.rs"];

/// A source file with comments and strings blanked, and its string literals.
struct Source {
    /// Module path (`["run", "corrupt"]`), empty for the crate root.
    module: Vec<String>,
    /// The code before the trailing test part, comments and string contents blanked.
    code: String,
    /// The same with string literals kept (comments blanked).
    code_with_strings: String,
    /// String literals of the non-test part.
    strings: Vec<String>,
    path: PathBuf,
}

/// Blanks comments; returns (code without strings, code with strings, string literals).
fn lex(text: &str) -> (String, String, Vec<String>) {
    let b = text.as_bytes();
    let (mut plain, mut with_strings, mut strings) = (String::new(), String::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            plain.push(' ');
            with_strings.push(' ');
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        let raw_start = if c == b'r' && matches!(b.get(i + 1), Some(b'"') | Some(b'#')) {
            Some(i + 1)
        } else if c == b'b'
            && b.get(i + 1) == Some(&b'r')
            && matches!(b.get(i + 2), Some(b'"') | Some(b'#'))
        {
            Some(i + 2)
        } else {
            None
        };
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if let (Some(mut j), false) = (raw_start, ident_before) {
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&b'"') {
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let start = j + 1;
                let mut k = start;
                while k < b.len() && !b[k..].starts_with(&close) {
                    k += 1;
                }
                let s = String::from_utf8_lossy(&b[start..k.min(b.len())]).into_owned();
                plain.push_str("\"\"");
                with_strings.push_str(&format!("\"{s}\""));
                strings.push(s);
                i = (k + close.len()).min(b.len());
                continue;
            }
        }
        if c == b'"' {
            let mut k = i + 1;
            let mut s = Vec::new();
            while k < b.len() && b[k] != b'"' {
                if b[k] == b'\\' {
                    s.push(b[k]);
                    k += 1;
                }
                if k < b.len() {
                    s.push(b[k]);
                }
                k += 1;
            }
            let s = String::from_utf8_lossy(&s).into_owned();
            plain.push_str("\"\"");
            with_strings.push_str(&format!("\"{s}\""));
            strings.push(s);
            i = k + 1;
            continue;
        }
        if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let mut k = i + 2;
                while k < b.len() && b[k] != b'\'' {
                    k += 1;
                }
                plain.push_str("' '");
                with_strings.push_str("' '");
                i = k + 1;
                continue;
            }
            let ch_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
            if b.get(i + 1 + ch_len) == Some(&b'\'') {
                plain.push_str("' '");
                with_strings.push_str("' '");
                i += 2 + ch_len;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap();
        plain.push(ch);
        with_strings.push(ch);
        i += ch.len_utf8();
    }
    (plain, with_strings, strings)
}

/// The part before the trailing tests: everything from the first `#[cfg(test)]` on is test
/// code in this project (tests sit at the end of a file).
fn non_test(code: &str) -> &str {
    match code.find("#[cfg(test)]") {
        Some(i) => &code[..i],
        None => code,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    // The binaries (`main.rs`, `src/bin/`): crates of their own.
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" if parts.is_empty() => {}
        "main.rs" if parts.is_empty() => return None,
        "mod.rs" => {}
        name => parts.push(name.trim_end_matches(".rs").to_string()),
    }
    Some(parts)
}

fn load(src: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let module = module_of(src, &path)?;
            let text = fs::read_to_string(&path).unwrap();
            let (plain, with_strings, _) = lex(&text);
            // `pub(in crate::a::b)` is a visibility, not an import.
            let code = strip_visibility_paths(non_test(&plain));
            let code_with_strings = non_test(&with_strings).to_string();
            let (_, _, strings) = lex(non_test_text(&text));
            Some(Source {
                module,
                code,
                code_with_strings,
                strings,
                path,
            })
        })
        .collect()
}

/// Blanks the paths of `pub(in ...)` visibilities.
fn strip_visibility_paths(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find("pub(in ") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let end = after.find(')').map_or(after.len(), |e| e + 1);
        out.push_str("pub(crate)");
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The raw text before the trailing tests (for string literals).
fn non_test_text(text: &str) -> &str {
    match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path that starts at `start` in `code` (`crate`, `super`, `self`): its segments after
/// the start, with `{a, b::c}` groups expanded one level.
fn paths_after(code: &str, start: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let needle = format!("{start}::");
    let mut from = 0;
    while let Some(pos) = code[from..].find(&needle) {
        let at = from + pos;
        from = at + needle.len();
        if at > 0 && code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        // `super::super::x` is handled by the caller counting `super::` runs.
        let rest = &code[from..];
        out.extend(expand(rest));
    }
    out
}

/// The paths at the start of `rest`: `a::b::C`, or `{a::b, c}`.
fn expand(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut end = group.len();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let inner = &group[..end];
        let mut items = Vec::new();
        let (mut depth, mut last) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&inner[last..i]);
                    last = i + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[last..]);
        return items
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .flat_map(expand)
            .collect();
    }
    let mut segs = Vec::new();
    let mut s = rest;
    loop {
        let ident: String = s.chars().take_while(|&c| is_ident(c)).collect();
        if ident.is_empty() {
            break;
        }
        segs.push(ident.clone());
        s = &s[ident.len()..];
        let trimmed = s.trim_start();
        if let Some(after) = trimmed.strip_prefix("::") {
            if after.trim_start().starts_with('{') {
                let base = segs.clone();
                return expand(after)
                    .into_iter()
                    .map(|tail| base.iter().cloned().chain(tail).collect())
                    .collect();
            }
            s = after;
        } else {
            break;
        }
    }
    vec![segs]
}

/// The longest prefix of `path` that is a module of `modules`; a name that module re-exports
/// from one of its children (`pub use child::Name`) resolves to that child, as the code that
/// uses it depends on the child, not on the re-export.
fn resolve(
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    reexports: &BTreeMap<(Vec<String>, String), Vec<String>>,
) -> Option<Vec<String>> {
    let n = (1..=path.len())
        .rev()
        .find(|&n| modules.contains(&path[..n]))?;
    let mut module = path[..n].to_vec();
    let mut rest = &path[n..];
    while let Some(next) = rest.first() {
        match reexports.get(&(module.clone(), next.clone())) {
            Some(child) if child != &module => {
                module = child.clone();
                rest = &rest[1..];
            }
            _ => break,
        }
    }
    Some(module)
}

/// `pub use child::Name` (and `pub use child::{A, B}`) of every module: (module, Name) -> the
/// child module that defines it.
fn reexports(
    sources: &[Source],
    modules: &BTreeSet<Vec<String>>,
) -> BTreeMap<(Vec<String>, String), Vec<String>> {
    let mut out = BTreeMap::new();
    for s in sources {
        for stmt in s.code.split(';') {
            let stmt = stmt.trim();
            let Some(rest) = stmt
                .strip_prefix("pub use ")
                .or_else(|| stmt.strip_prefix("pub(crate) use "))
            else {
                continue;
            };
            for p in expand(rest) {
                let Some(last) = p.last() else { continue };
                let full: Vec<String> = match p.first().map(String::as_str) {
                    Some("crate") => p[1..].to_vec(),
                    Some("self") => s
                        .module
                        .iter()
                        .cloned()
                        .chain(p[1..].iter().cloned())
                        .collect(),
                    _ => s.module.iter().cloned().chain(p.iter().cloned()).collect(),
                };
                let defining = (1..=full.len())
                    .rev()
                    .map(|n| full[..n].to_vec())
                    .find(|m| modules.contains(m));
                if let Some(child) = defining {
                    if child.starts_with(&s.module) && child != s.module {
                        out.insert((s.module.clone(), last.clone()), child);
                    }
                }
            }
        }
    }
    out
}

/// Edges between modules of one crate: `from -> to` with the text that made it.
fn edges(sources: &[Source]) -> BTreeMap<(Vec<String>, Vec<String>), String> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let reexported = reexports(sources, &modules);
    let mut out = BTreeMap::new();
    for s in sources {
        let is_mod_rs = s
            .path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        // The module `super::` means: the parent of this module.
        let parent: Vec<String> = s.module[..s.module.len().saturating_sub(1)].to_vec();
        let mut targets: Vec<Vec<String>> = Vec::new();
        for p in paths_after(&s.code, "crate") {
            targets.push(p);
        }
        for p in paths_after(&s.code, "super") {
            let mut base = parent.clone();
            let mut p = p;
            while p.first().is_some_and(|x| x == "super") {
                base.pop();
                p.remove(0);
            }
            targets.push(base.into_iter().chain(p).collect());
        }
        for p in paths_after(&s.code, "self") {
            targets.push(s.module.iter().cloned().chain(p).collect());
        }
        // `use child::X` of a module with children, and `use child::{..}`.
        for line in s.code.split(';') {
            let line = line.trim();
            let Some(rest) = line
                .strip_prefix("pub use ")
                .or_else(|| line.strip_prefix("pub(crate) use "))
                .or_else(|| line.strip_prefix("use "))
            else {
                continue;
            };
            for p in expand(rest) {
                if p.first()
                    .is_some_and(|x| x != "crate" && x != "super" && x != "self")
                {
                    let child: Vec<String> = s.module.iter().cloned().chain(p).collect();
                    if is_mod_rs || !s.module.is_empty() {
                        targets.push(child);
                    }
                }
            }
        }
        for t in targets {
            if let Some(to) = resolve(&t, &modules, &reexported) {
                if to != s.module {
                    out.entry((s.module.clone(), to))
                        .or_insert_with(|| t.join("::"));
                }
            }
        }
    }
    out
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(edges: &BTreeMap<(Vec<String>, Vec<String>), String>) -> Vec<Vec<Vec<String>>> {
    let mut graph: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        graph.entry(a).or_default().push(b);
        graph.entry(b).or_default();
    }
    struct T<'a> {
        graph: &'a BTreeMap<&'a Vec<String>, Vec<&'a Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        next: usize,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a Vec<String>) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        for &w in &t.graph[v] {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: Vec<&Vec<String>> = graph.keys().copied().collect();
    for v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn crate_src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

fn check_crate(krate: &str, layers: &[(&str, u32)]) -> Vec<String> {
    let sources = load(&crate_src(krate));
    let edges = edges(&sources);
    let mut problems = Vec::new();
    for comp in cycles(&edges) {
        let members: BTreeSet<&Vec<String>> = comp.iter().collect();
        let ties: Vec<String> = edges
            .iter()
            .filter(|((a, b), _)| members.contains(a) && members.contains(b))
            .map(|((a, b), via)| format!("{} -> {} ({via})", name(a), name(b)))
            .collect();
        problems.push(format!("{krate}: import cycle: {}", ties.join("; ")));
    }
    let rank = |m: &[String]| {
        m.first()
            .and_then(|top| layers.iter().find(|(n, _)| n == top))
            .map(|(_, r)| *r)
    };
    for ((a, b), via) in &edges {
        let (Some(ra), Some(rb)) = (rank(a), rank(b)) else {
            continue;
        };
        if a.first() != b.first() && rb >= ra {
            problems.push(format!(
                "{krate}: {} imports {} ({via}): a layer may import only layers below it",
                name(a),
                name(b)
            ));
        }
    }
    for s in &sources {
        if let Some(top) = s.module.first() {
            assert!(
                layers.iter().any(|(n, _)| n == top),
                "{krate}: module {top} is in no layer of this test: add it"
            );
        }
    }
    problems
}

#[test]
fn no_import_cycles_and_every_import_points_down() {
    let mut problems = check_crate("harness", &HARNESS_LAYERS);
    problems.extend(check_crate("engines", &ENGINES_LAYERS));
    problems.extend(check_crate("api", &API_LAYERS));
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The paths a crate's sources name (comments and strings blanked) that start with `krate::`,
/// as (file relative to its `src`, the path's first two segments).
fn crate_uses(sources: &[Source], src: &Path, krate: &str) -> Vec<(String, String)> {
    let needle = format!("{krate}::");
    let mut out = Vec::new();
    for s in sources {
        let file = s
            .path
            .strip_prefix(src)
            .unwrap_or(&s.path)
            .display()
            .to_string();
        for (at, _) in s.code.match_indices(&needle) {
            let before = s.code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest: String = s.code[at + needle.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push((file.clone(), format!("{needle}{rest}")));
        }
    }
    out
}

#[test]
fn the_crates_meet_only_where_documented() {
    let mut problems = Vec::new();
    // The API crate stands alone: it names neither the engines nor the harness.
    let api = load(&crate_src("api"));
    for krate in ["serprof_engines", "serprof"] {
        for (file, path) in crate_uses(&api, &crate_src("api"), krate) {
            problems.push(format!("api/src/{file} names {path}"));
        }
    }
    // The engines crate builds on the API and never on the harness.
    let engines = load(&crate_src("engines"));
    for (file, path) in crate_uses(&engines, &crate_src("engines"), "serprof") {
        problems.push(format!("engines/src/{file} names {path}"));
    }
    // The harness reaches the engines crate only through its crate root.
    let harness = load(&crate_src("harness"));
    for (file, path) in crate_uses(&harness, &crate_src("harness"), "serprof_engines") {
        if !ENGINES_CRATE_USERS.contains(&file.as_str()) {
            problems.push(format!(
                "harness/src/{file} names {path}: reach engines and studies through serprof_api, or take a value from lib.rs"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_run_folder_file_name_is_written_once() {
    let sources = load(&crate_src("harness"));
    let layout = sources
        .iter()
        .find(|s| s.module == ["layout"])
        .expect("harness/src/layout.rs");
    // `pub(crate) const NAME: &str = "value";` in layout.rs.
    let mut names = Vec::new();
    for line in layout.code_with_strings.lines() {
        let line = line.trim();
        let declared = line.starts_with("pub const ") || line.starts_with("pub(crate) const ");
        if declared && line.contains(": &str = \"") {
            let value = line.split('"').nth(1).unwrap().to_string();
            names.push(value);
        }
    }
    assert!(names.len() >= 10, "layout.rs names {names:?}");
    let mut problems = Vec::new();
    for n in &names {
        let count: usize = sources
            .iter()
            .map(|s| s.strings.iter().filter(|x| *x == n).count())
            .sum();
        if count != 1 {
            let files: Vec<String> = sources
                .iter()
                .filter(|s| s.strings.contains(n))
                .map(|s| s.path.display().to_string())
                .collect();
            problems.push(format!(
                "{n:?} is written {count} times: {}",
                files.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn no_study_or_operation_name_is_compared_with_a_literal() {
    let mut problems = Vec::new();
    for krate in ["harness", "engines"] {
        for s in load(&crate_src(krate)) {
            if krate == "engines" && s.module.first().is_some_and(|m| m == "studies") {
                continue;
            }
            for (i, line) in s.code_with_strings.lines().enumerate() {
                let compact: String = line.split_whitespace().collect();
                let suspicious = [
                    "study==\"",
                    "study!=\"",
                    "operation==\"",
                    "operation!=\"",
                    "name==\"",
                    "kind==\"",
                ];
                // `match study.as_str() { "bytes" => .. }` compares names too.
                let matched_name = [
                    "matchstudy.as_str()",
                    "matchoperation.as_str()",
                    "matchs.name.as_str()",
                ]
                .iter()
                .any(|p| compact.contains(p));
                if suspicious.iter().any(|p| compact.contains(p)) || matched_name {
                    problems.push(format!("{}:{}: {}", s.path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_cycles_groups_and_strings() {
    // The parser itself, on text whose answer is known.
    let (plain, with, strings) =
        lex("use crate::a::{b, c::d}; // crate::x\nlet s = \"crate::y\"; let c = '\"';");
    assert!(!plain.contains("crate::x") && !plain.contains("crate::y"));
    assert!(with.contains("\"crate::y\""));
    assert_eq!(strings, ["crate::y"]);
    let paths = paths_after(&plain, "crate");
    assert_eq!(
        paths,
        [
            vec!["a".to_string(), "b".into()],
            vec!["a".into(), "c".into(), "d".into()]
        ]
    );
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let mut e = BTreeMap::new();
    e.insert((m("a"), m("b")), String::new());
    e.insert((m("b"), m("c")), String::new());
    e.insert((m("c"), m("a")), String::new());
    e.insert((m("c"), m("d")), String::new());
    let found = cycles(&e);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3);
}

/// The types a source's code defines: `(name, line, whether a `#[cfg(...)]` line comes just
/// before it)`. Structs, enums and traits at any depth; `type` aliases at a file's top level only
/// (an impl's `type Err` and a function's local alias name nothing of the module).
fn type_definitions(code: &str) -> Vec<(String, usize, bool)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let top_level = !line.starts_with(char::is_whitespace);
        let mut words = line.split_whitespace().skip_while(|w| w.starts_with("pub"));
        let (Some(kind), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        let counted = matches!(kind, "struct" | "enum" | "trait") || (kind == "type" && top_level);
        let name: String = name.chars().take_while(|c| is_ident(*c)).collect();
        if !counted || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let before = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty());
        let cfg = before.is_some_and(|l| l.starts_with("#[cfg("));
        out.push((name, i + 1, cfg));
    }
    out
}

/// The last generic argument of each `Result<...>` in `line`, spaces removed.
fn result_errors(line: &str) -> Vec<String> {
    let compact: String = line.split_whitespace().collect();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = compact[from..].find("Result<") {
        let start = from + pos + "Result<".len();
        from = start;
        if compact[..start - "Result<".len()]
            .chars()
            .next_back()
            .is_some_and(is_ident)
        {
            continue;
        }
        let (mut depth, mut last) = (1, start);
        for (j, c) in compact[start..].char_indices() {
            match c {
                '<' | '(' => depth += 1,
                '>' | ')' => depth -= 1,
                ',' if depth == 1 => last = start + j + 1,
                _ => {}
            }
            if depth == 0 {
                if last > start {
                    out.push(compact[last..start + j].to_string());
                }
                break;
            }
        }
    }
    out
}

#[test]
fn one_meaning_per_name_in_the_harness() {
    let harness = load(&crate_src("harness"));
    let mut problems = Vec::new();

    let mut defined: BTreeMap<String, Vec<(String, usize, bool)>> = BTreeMap::new();
    for s in &harness {
        for (name, line, cfg) in type_definitions(&s.code) {
            let at = s.path.display().to_string();
            defined.entry(name).or_default().push((at, line, cfg));
        }
    }
    for (name, places) in &defined {
        let files: BTreeSet<&String> = places.iter().map(|p| &p.0).collect();
        let alternatives = files.len() == 1 && places.iter().all(|p| p.2);
        if places.len() > 1 && !alternatives {
            let at: Vec<String> = places.iter().map(|p| format!("{}:{}", p.0, p.1)).collect();
            problems.push(format!(
                "type {name} is defined {} times: {}",
                places.len(),
                at.join(", ")
            ));
        }
    }

    let api = load(&crate_src("api"));
    let verdicts: Vec<String> = harness
        .iter()
        .chain(&api)
        .flat_map(|s| {
            type_definitions(&s.code)
                .into_iter()
                .filter(|(name, _, _)| name == "Verdict")
                .map(|(_, line, _)| format!("{}:{line}", s.path.display()))
        })
        .collect();
    if verdicts.len() != 1 {
        problems.push(format!("`Verdict` should be defined once: {verdicts:?}"));
    }

    for s in harness.iter().filter(|s| s.module != ["cli"]) {
        for (i, line) in s.code.lines().enumerate() {
            if result_errors(line).iter().any(|e| e == "String") {
                problems.push(format!("{}:{}: Result<_, String>", s.path.display(), i + 1));
            }
        }
    }

    let gates: usize = harness
        .iter()
        .map(|s| {
            let compact: String = s.code_with_strings.split_whitespace().collect();
            compact.matches("feature=\"driver\"").count()
        })
        .sum();
    if gates > 8 {
        problems.push(format!(
            "`feature = \"driver\"` gates {gates} places (at most 8)"
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_name_checker_sees_types_alternatives_and_error_types() {
    let code = "pub(crate) struct A;\n#[cfg(x)]\npub type B = u8;\nimpl F for A {\n    type Err = E;\n}\nfn f() {\n    enum C {}\n}\n";
    let found: Vec<(String, usize, bool)> = type_definitions(code);
    assert_eq!(
        found,
        [
            ("A".to_string(), 1, false),
            ("B".to_string(), 3, true),
            ("C".to_string(), 8, false)
        ]
    );
    assert_eq!(
        result_errors(
            "fn f() -> Result<HashMap<u8, String>, Error> { Ok(x) } // MyResult<u8, String>"
        ),
        ["Error"]
    );
    assert_eq!(
        result_errors("-> std::result::Result<Vec<(u8, u8)>, String>"),
        ["String"]
    );
    assert!(result_errors("-> Result<()>").is_empty());
}
