//! Every Rust path written in backticks in docs/ARCHITECTURE.md and docs/guide/*.md names an
//! item or a file that exists, segment by segment.
//!
//! A path is an inline code span (fenced blocks are skipped) of identifiers joined by `::`, such
//! as `run::sides::layouts` or `measure::timing::Unit::prepare()`. Generic arguments (`<T>`,
//! `::<T>`), a trailing `()` and a macro's `!` are dropped first, and `a::{b, c}` stands for
//! `a::b` and `a::c`; any other span with spaces or punctuation is not a path, and neither is a
//! single identifier.
//!
//! Where a path starts: `serprof` (harness/src), `serprof_engines` (engines/src) and
//! `serprof_api` (api/src) are crate roots, `crate` is any of them, and a path whose first
//! segment is a top-level module of a crate (`measure::timing`, `studies::corpus`) starts in
//! each crate that has one; it must resolve in at least one. A path whose first segment is a
//! type's name (`Settings::jobs`) must name a type of one of the crates and resolve from it
//! (`AnyCodec::Document` is stale when no `AnyCodec` exists). Paths starting anywhere else
//! (`std::hint::black_box`, `serde_json::Value`) are left alone.
//!
//! How segments resolve, in sources without comments, string contents and `#[cfg(test)] mod`s:
//! - in a module: a child module file (`seg.rs` or `seg/mod.rs` in the module's folder), an item
//!   declared at its top level (`fn`, `struct`, `enum`, `union`, `trait`, `type`, `const`,
//!   `static`, `mod`, `macro_rules!`), or a `use` naming it, followed into the repo's crates;
//! - in a struct, union, enum or trait: a field, a variant, an item of the trait's body, or an
//!   item of an `impl` block for a type of that name anywhere in the same crate;
//! - a function, constant, static, macro, field, variant or method ends the path;
//! - an inline module, a type alias, an associated type and a `use` of another crate accept the
//!   rest unchecked.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The crates whose paths are checked: crate name and folder.
const CRATES: [(&str, &str); 3] = [
    ("serprof", "harness"),
    ("serprof_engines", "engines"),
    ("serprof_api", "api"),
];

/// Keywords that declare an item.
const ITEMS: &str = "fn struct enum union trait type const static mod macro_rules";

/// Keywords that are not names.
const KEYWORDS: &str = "as async const crate dyn enum extern fn for impl mod mut pub ref self \
                        static struct super trait type unsafe use where";

fn root() -> PathBuf {
    Path::new(option_env!("CARGO_MANIFEST_DIR").unwrap_or("/work/main/harness")).join("..")
}

/// The pages checked: docs/ARCHITECTURE.md and docs/guide/*.md.
fn pages(root: &Path) -> Vec<PathBuf> {
    let guide = fs::read_dir(root.join("docs/guide")).unwrap();
    let guide = guide.map(|e| e.unwrap().path());
    let mut out: Vec<_> = guide
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    out.push(root.join("docs/ARCHITECTURE.md"));
    out.sort();
    out
}

/// The inline code spans of markdown text outside fenced blocks, with the line each starts on.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let (mut out, mut open, mut fenced) = (Vec::new(), None::<(usize, String)>, false);
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        fenced ^= fence;
        if fenced || fence || line.trim().is_empty() {
            open = None;
            continue;
        }
        for (k, part) in line.split('`').enumerate() {
            if k > 0 {
                match open.take() {
                    Some(span) => out.push(span),
                    None => open = Some((n + 1, String::new())),
                }
            }
            if let Some((_, span)) = &mut open {
                span.push_str(part);
            }
        }
        if let Some((_, span)) = &mut open {
            span.push('\n');
        }
    }
    out
}

fn is_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !KEYWORDS.split_whitespace().any(|k| k == s)
}

/// The paths a code span holds, as segments: none, one, or one per member of `a::{b, c}`.
fn rust_paths(span: &str) -> Vec<Vec<String>> {
    if let Some((prefix, group)) = span.strip_suffix('}').and_then(|s| s.split_once("::{")) {
        let members = group.split(", ");
        return members
            .flat_map(|m| rust_paths(&format!("{prefix}::{m}")))
            .collect();
    }
    let (mut bare, mut depth) = (String::new(), 0);
    for c in span.chars() {
        match c {
            '<' => {
                if depth == 0 && bare.ends_with("::") {
                    bare.truncate(bare.len() - 2);
                }
                depth += 1;
            }
            '>' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    let bare = bare.strip_suffix("()").unwrap_or(&bare);
    let bare = bare.strip_suffix('!').unwrap_or(bare);
    let segs: Vec<String> = bare.split("::").map(String::from).collect();
    let named = |(k, s): (usize, &String)| is_ident(s) || (k == 0 && s == "crate");
    let path = depth == 0 && segs.len() > 1 && segs.iter().enumerate().all(named);
    path.then_some(segs).into_iter().collect()
}

/// Tokens of Rust source: identifiers, numbers, `::`, `->`, `=>` and single punctuation marks.
/// Comments are dropped; every string or char literal becomes an empty token.
fn tokens(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let at = |k: usize| c.get(k).copied().unwrap_or(' ');
    // The index just past the first `end` from `from` on.
    let past = |from: usize, end: &str| {
        let end: Vec<char> = end.chars().collect();
        let found = (from..c.len()).find(|&k| c[k..].starts_with(&end));
        found.map_or(c.len(), |k| k + end.len())
    };
    let (mut out, mut i) = (Vec::new(), 0);
    while i < c.len() {
        let (a, b) = (c[i], at(i + 1));
        let n = c[i..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .count();
        let word: String = c[i..i + n].iter().collect();
        let hashes = c[i + n..].iter().take_while(|&&h| h == '#').count();
        if a.is_whitespace() {
            i += 1;
        } else if a == '/' && b == '/' {
            i = past(i, "\n");
        } else if a == '/' && b == '*' {
            i = past(i + 2, "*/");
        } else if matches!(&*word, "r" | "br" | "cr") && at(i + n + hashes) == '"' {
            // A raw string: r"..", r#".."#.
            i = past(i + n + hashes + 1, &format!("\"{}", "#".repeat(hashes)));
            out.push(String::new());
        } else if n > 0 {
            i += n;
            out.push(word);
        } else if a == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(String::new());
        } else if a == '\'' && (b == '\\' || at(i + 2) == '\'') {
            // A char literal ('x', '\n', '\u{1F600}'); a lifetime's quote is a token of its own.
            i = past(i + 2 + usize::from(b == '\\'), "'");
            out.push(String::new());
        } else {
            let n = 1 + usize::from(matches!((a, b), (':', ':') | ('-', '>') | ('=', '>')));
            out.push(c[i..i + n].iter().collect());
            i += n;
        }
    }
    out
}

/// The index of the `}` closing the `{` at `open` (the end when it is not closed).
fn close(toks: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" if depth == 1 => return k,
            "}" => depth -= 1,
            _ => {}
        }
    }
    toks.len()
}

/// The tokens without `#[cfg(test)] mod name { .. }` blocks.
fn without_tests(toks: Vec<String>) -> Vec<String> {
    let test_mod = ["#", "[", "cfg", "(", "test", ")", "]", "mod"];
    let (mut out, mut i) = (Vec::new(), 0);
    while i < toks.len() {
        if toks.get(i + 9).is_some_and(|t| t == "{")
            && toks[i..].iter().zip(test_mod).all(|(t, m)| t == m)
        {
            i = close(&toks, i + 9);
        } else {
            out.push(toks[i].clone());
        }
        i += 1;
    }
    out
}

/// The indices of the tokens outside any braces but those of macro calls (`name! { .. }`).
fn top_level(toks: &[String]) -> impl Iterator<Item = usize> + '_ {
    let mut macro_call: Vec<bool> = Vec::new();
    toks.iter().enumerate().filter_map(move |(k, t)| {
        match t.as_str() {
            "{" => macro_call.push(k > 0 && toks[k - 1] == "!"),
            "}" => drop(macro_call.pop()),
            _ => return macro_call.iter().all(|&m| m).then_some(k),
        }
        None
    })
}

/// The items declared outside any braces: (keyword, name, index of the keyword).
fn items(toks: &[String]) -> Vec<(&str, &str, usize)> {
    let mut out = Vec::new();
    for k in top_level(toks) {
        let kw = toks[k].as_str();
        if k > 0 && toks[k - 1] == "'" {
            continue; // 'static
        }
        let skip = usize::from(kw == "macro_rules" || toks.get(k + 1).is_some_and(|t| t == "mut"));
        let name = toks.get(k + 1 + skip).filter(|name| is_ident(name));
        if let Some(name) = name.filter(|_| ITEMS.split(' ').any(|i| i == kw)) {
            out.push((kw, name.as_str(), k));
        }
    }
    out
}

/// The (path, name) pairs the top-level `use` declarations bring in: `use a::{b, c::d as e};`
/// gives (a::b, b) and (a::c::d, e). Globs are left out.
fn uses(toks: &[String]) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for k in top_level(toks).filter(|&k| toks[k] == "use") {
        let (mut path, mut groups, mut alias) = (Vec::<String>::new(), Vec::new(), None);
        let tree = toks[k + 1..].iter().take_while(|t| *t != ";").cloned();
        let mut tree = tree.chain([";".to_string()]);
        while let Some(t) = tree.next() {
            let base = groups.last().copied().unwrap_or(0);
            match t.as_str() {
                "{" => groups.push(path.len()),
                "*" => path.truncate(base),
                "as" => alias = tree.next(),
                "," | "}" | ";" => {
                    if path.len() > base {
                        if path.last().is_some_and(|s| s == "self") {
                            path.pop();
                        }
                        let name = alias.take().or_else(|| path.last().cloned());
                        out.push((path.clone(), name.unwrap()));
                    }
                    if t == "}" {
                        groups.pop();
                    }
                    path.truncate(groups.last().copied().unwrap_or(0));
                }
                "::" => {}
                _ => path.push(t),
            }
        }
    }
    out
}

/// The tokens inside the braces of the item whose keyword is at `k` (none for `struct X;`).
fn body(toks: &[String], k: usize) -> &[String] {
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(k) {
        match t.as_str() {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            ";" if depth == 0 => break,
            "{" if depth == 0 => return &toks[j + 1..close(toks, j)],
            _ => {}
        }
    }
    &[]
}

/// The variants of an enum body, or the named fields of a struct or union body.
fn fields_or_variants(body: &[String], variants: bool) -> Vec<&str> {
    let (mut out, mut depth) = (Vec::new(), 0);
    for (k, t) in body.iter().enumerate() {
        match t.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ if depth == 0 && is_ident(t) => {
                let prev = k.checked_sub(1).map_or(",", |p| body[p].as_str());
                let next = body.get(k + 1).map_or("", String::as_str);
                let follows = match variants {
                    true => matches!(next, "(" | "{" | "," | "=" | ""),
                    false => next == ":",
                };
                if matches!(prev, "," | "]" | ")" | "pub") && follows {
                    out.push(t.as_str());
                }
            }
            _ => {}
        }
    }
    out
}

/// The `impl` blocks in the tokens: (name of the implementing type, body).
fn impls(toks: &[String]) -> Vec<(&str, &[String])> {
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let item = k == 0 || matches!(toks[k - 1].as_str(), "}" | ";" | "]" | "{" | "unsafe");
        if t != "impl" || !item {
            continue;
        }
        let Some(open) = toks[k..].iter().position(|t| t == "{").map(|p| k + p) else {
            break;
        };
        // The type is the last name outside `<..>`, after `for` when there is one.
        let (mut name, mut depth) = (None, 0);
        for t in toks[k + 1..open].iter().take_while(|t| *t != "where") {
            match t.as_str() {
                "<" => depth += 1,
                ">" => depth -= 1,
                "for" if depth == 0 => name = None,
                t if depth == 0 && is_ident(t) => name = Some(t),
                _ => {}
            }
        }
        if let Some(name) = name {
            out.push((name, &toks[open + 1..close(toks, open)]));
        }
    }
    out
}

/// Where a walk through a path stands.
enum At {
    /// A module: crate index and module path.
    Module(usize, Vec<String>),
    /// A struct, union, enum or trait: crate index, file, index of its keyword in the tokens.
    Type(usize, PathBuf, usize),
    /// Something nothing can follow (a function, a field, ...), described.
    End(String),
    /// The rest of the path is not checked.
    Open,
}

struct Repo {
    root: PathBuf,
    /// Crate name and src folder of each crate that exists.
    crates: Vec<(&'static str, PathBuf)>,
    /// The tokens of every source file, test modules left out.
    files: HashMap<PathBuf, Vec<String>>,
}

impl Repo {
    fn load(root: &Path) -> Repo {
        let crates = CRATES
            .iter()
            .map(|&(name, dir)| (name, root.join(dir).join("src")));
        let crates: Vec<_> = crates.filter(|(_, src)| src.is_dir()).collect();
        let mut dirs: Vec<PathBuf> = crates.iter().map(|(_, src)| src.clone()).collect();
        let mut files = HashMap::new();
        while let Some(dir) = dirs.pop() {
            for e in fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let toks = without_tests(tokens(&fs::read_to_string(&p).unwrap()));
                    files.insert(p, toks);
                }
            }
        }
        let root = root.to_path_buf();
        Repo {
            root,
            crates,
            files,
        }
    }

    fn rel(&self, p: &Path) -> String {
        format!("{}", p.strip_prefix(&self.root).unwrap_or(p).display())
    }

    /// The file (none for a bare folder) and the folder of module `path` of crate `k`.
    fn module(&self, k: usize, path: &[String]) -> Option<(Option<PathBuf>, PathBuf)> {
        let src = &self.crates[k].1;
        let (mut file, mut dir) = (Some(src.join("lib.rs")), src.clone());
        for seg in path {
            let sub = dir.join(seg);
            let candidates = [dir.join(format!("{seg}.rs")), sub.join("mod.rs")];
            file = candidates.into_iter().find(|f| self.files.contains_key(f));
            if file.is_none() && !sub.is_dir() {
                return None;
            }
            dir = sub;
        }
        Some((file, dir))
    }

    /// The stale paths of a markdown page, as `name:line: `span` — reason`.
    fn check_markdown(&self, name: &str, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (line, span) in code_spans(text) {
            for segs in rust_paths(&span) {
                if let Some(Err(e)) = self.check(&segs) {
                    out.push(format!("{name}:{line}: `{span}` — {e}"));
                }
            }
        }
        out.dedup();
        out
    }

    /// Whether a path resolves; None when it starts outside the repo's crates.
    fn check(&self, segs: &[String]) -> Option<Result<(), String>> {
        let first = segs[0].as_str();
        if CRATES.iter().any(|c| c.0 == first) && self.crates.iter().all(|c| c.0 != first) {
            return Some(Err(format!(
                "no crate `{first}` (its src folder is missing)"
            )));
        }
        let all = 0..self.crates.len();
        let (roots, rest): (Vec<usize>, _) = match self.crates.iter().position(|c| c.0 == first) {
            Some(k) => (vec![k], &segs[1..]),
            None if first == "crate" => (all.collect(), &segs[1..]),
            None if first.starts_with(|c: char| c.is_ascii_uppercase()) => {
                return Some(self.check_type(segs));
            }
            None => (
                all.filter(|&k| self.module(k, &segs[..1]).is_some())
                    .collect(),
                segs,
            ),
        };
        let mut errors: Vec<String> = Vec::new();
        for k in roots {
            match self.walk(At::Module(k, Vec::new()), rest) {
                Ok(_) => return Some(Ok(())),
                Err(e) if !errors.contains(&e) => errors.push(e),
                Err(_) => {}
            }
        }
        (!errors.is_empty()).then(|| Err(errors.join("; ")))
    }

    /// A path that starts with a type's name (`Settings::jobs`, `Operation::Parse`): a struct,
    /// enum, union, trait or type alias of that name must exist in one of the repo's crates,
    /// and the rest must resolve from one of them. A type of another crate is written with its
    /// crate's path (`sonic_rs::Value`), which is left alone.
    fn check_type(&self, segs: &[String]) -> Result<(), String> {
        let mut found = Vec::new();
        for (k, (_, src)) in self.crates.iter().enumerate() {
            for (file, toks) in self.files.iter().filter(|(p, _)| p.starts_with(src)) {
                for (kind, name, at) in items(toks) {
                    match kind {
                        _ if name != segs[0] => {}
                        "type" => return Ok(()),
                        "struct" | "enum" | "union" | "trait" => {
                            found.push(At::Type(k, file.clone(), at))
                        }
                        _ => {}
                    }
                }
            }
        }
        if found.is_empty() {
            return Err(format!("no type `{}` in the repo's crates", segs[0]));
        }
        let mut errors: Vec<String> = Vec::new();
        for at in found {
            match self.walk(at, &segs[1..]) {
                Ok(_) => return Ok(()),
                Err(e) if !errors.contains(&e) => errors.push(e),
                Err(_) => {}
            }
        }
        Err(errors.join("; "))
    }

    /// Follows `segs` from `at`; the error says which segment is missing where.
    fn walk(&self, mut at: At, segs: &[String]) -> Result<At, String> {
        let mut prev = "";
        for seg in segs {
            at = match at {
                At::Module(k, path) => self.in_module(k, path, seg)?,
                At::Type(k, file, at) => self.in_type(k, &file, at, seg)?,
                At::End(what) => return Err(format!("`{prev}` is {what}: nothing follows it")),
                At::Open => return Ok(At::Open),
            };
            prev = seg;
        }
        Ok(at)
    }

    fn in_module(&self, k: usize, mut path: Vec<String>, seg: &str) -> Result<At, String> {
        let (file, dir) = self.module(k, &path).expect("a module walked into exists");
        let toks = file.as_ref().map_or(&[][..], |f| &self.files[f]);
        path.push(seg.to_string());
        if self.module(k, &path).is_some() {
            return Ok(At::Module(k, path));
        }
        path.pop();
        let here = self.rel(file.as_ref().unwrap_or(&dir));
        if let Some(&(kind, _, at)) = items(toks).iter().find(|(_, name, _)| *name == seg) {
            return Ok(match kind {
                "mod" | "type" => At::Open,
                "struct" | "enum" | "union" | "trait" => At::Type(k, file.unwrap(), at),
                _ => At::End(format!(
                    "a {} ({here})",
                    kind.replace("macro_rules", "macro")
                )),
            });
        }
        if let Some((target, _)) = uses(toks).into_iter().find(|(_, name)| name == seg) {
            return Ok(self.follow(k, path, &target));
        }
        let module = [vec![self.crates[k].0.to_string()], path]
            .concat()
            .join("::");
        Err(format!("no `{seg}` in module {module} ({here})"))
    }

    /// Where the path of a `use` in module `path` of crate `k` leads; Open when it leaves the
    /// repo's crates or cannot be followed.
    fn follow(&self, k: usize, mut path: Vec<String>, target: &[String]) -> At {
        let first = target[0].as_str();
        let (mut start, mut rest) = (k, &target[1..]);
        if let Some(j) = self.crates.iter().position(|(name, _)| *name == first) {
            (start, path) = (j, Vec::new());
        } else if first == "crate" {
            path.clear();
        } else if first == "super" {
            path.pop();
            while rest.first().is_some_and(|s| s == "super") {
                (path, rest) = (path[..path.len().saturating_sub(1)].to_vec(), &rest[1..]);
            }
        } else if first != "self" {
            let child = [path.clone(), vec![first.to_string()]].concat();
            if self.module(k, &child).is_none() {
                return At::Open;
            }
            rest = target;
        }
        self.walk(At::Module(start, path), rest).unwrap_or(At::Open)
    }

    fn in_type(&self, k: usize, file: &Path, at: usize, seg: &str) -> Result<At, String> {
        let toks = &self.files[file];
        let (kind, name, body) = (toks[at].as_str(), toks[at + 1].as_str(), body(toks, at));
        let own = match kind {
            "enum" => fields_or_variants(body, true)
                .contains(&seg)
                .then_some("variant"),
            "trait" => None,
            _ => fields_or_variants(body, false)
                .contains(&seg)
                .then_some("field"),
        };
        if let Some(own) = own {
            return Ok(At::End(format!("a {own} of `{name}`")));
        }
        let in_crate = self
            .files
            .iter()
            .filter(|(p, _)| p.starts_with(&self.crates[k].1));
        let impl_bodies = in_crate
            .flat_map(|(_, t)| impls(t))
            .filter(|(ty, _)| *ty == name);
        let bodies = (kind == "trait").then_some(body).into_iter();
        let bodies = bodies.chain(impl_bodies.map(|(_, b)| b));
        let assoc = bodies.flat_map(items).find(|(_, n, _)| *n == seg);
        match assoc.map(|(kw, ..)| kw) {
            Some("type") => Ok(At::Open),
            Some("fn") => Ok(At::End(format!("a method of `{name}`"))),
            Some(kw) => Ok(At::End(format!("an associated {kw} of `{name}`"))),
            None => Err(format!(
                "no `{seg}` in {kind} `{name}` ({})",
                self.rel(file)
            )),
        }
    }
}

#[test]
fn every_rust_path_in_the_docs_names_an_item() {
    let root = root();
    let repo = Repo::load(&root);
    let mut stale = Vec::new();
    for page in pages(&root) {
        let text = fs::read_to_string(&page).unwrap();
        stale.extend(repo.check_markdown(&repo.rel(&page), &text));
    }
    let n = stale.len();
    assert!(
        n == 0,
        "{n} stale Rust path(s) in the docs:\n{}",
        stale.join("\n")
    );
}

#[test]
fn a_path_through_a_missing_module_is_reported() {
    let repo = Repo::load(&root());
    let page = "The loop (`serprof::measure::workload::roundtrip_loop`) is timed.\n";
    let stale = repo.check_markdown("scratch.md", page);
    let expected = "scratch.md:1: `serprof::measure::workload::roundtrip_loop` — no `workload` in \
                    module serprof::measure (";
    assert!(
        stale.len() == 1 && stale[0].starts_with(expected),
        "{stale:?}"
    );
}

/// A small repo for the rules, one file after each `== path` line, and last a page about it.
const FIXTURE: &str = r#"
== harness/src/lib.rs
pub mod measure;
pub use serprof_engines::workload::{self, Operation as Op};
#[macro_export]
macro_rules! main { () => {}; }
// fn in_a_comment() {}
const NOTE: &str = "fn in_a_string() {}";
== harness/src/measure/mod.rs
pub mod timing;
== harness/src/measure/timing.rs
/// struct Ghost;
pub struct Unit<'a> { pub name: &'a str, pub(crate) runs: u32 }
impl<'a> Unit<'a> { pub fn prepare(&self) {} }
#[cfg(test)]
mod tests { fn hidden() {} }
== engines/src/lib.rs
pub mod workload;
== engines/src/workload.rs
pub enum Operation { Encode, #[allow(dead_code)] Decode(u32), Access { at: usize } }
pub trait Codec { fn access(&self) {} const IN_PLACE: bool; }
pub fn roundtrip_loop() {}
== scratch.md
Resolved: `serprof::measure::timing::Unit::prepare()`, `measure::timing::Unit::runs`,
`serprof::Op::Access`, `serprof::workload::Codec::IN_PLACE`, `serprof::main!`,
`crate::workload::roundtrip_loop`, `workload::{Operation, roundtrip_loop}`, `Unit::prepare`.
Not checked: `std::hint::black_box`, `alloc::vec::Vec::<u8>::push`, `Unit`, `Unit::gone(x)`.

```
`serprof::gone`
```

Stale:
`serprof::measure::workload::roundtrip_loop`
`workload::Operation::Document`
`measure::timing::Ghost`
`serprof::in_a_comment`
`serprof::in_a_string`
`measure::timing::tests::hidden`
`workload::roundtrip_loop::inner`
`measure::timing::Unit::name::len`
`serprof_api::workload`
`AnyCodec::Document`
`Operation::Parse`
"#;

#[test]
fn valid_and_foreign_paths_pass_and_stale_ones_are_reported() {
    let tmp = option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let root = tmp.join(format!("doc_paths_{}", std::process::id()));
    let mut page = "";
    for file in FIXTURE.split("== ").skip(1) {
        let (path, text) = file.split_once('\n').unwrap();
        fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        fs::write(root.join(path), text).unwrap();
        page = text;
    }
    let found = Repo::load(&root).check_markdown("scratch.md", page);
    fs::remove_dir_all(&root).unwrap();
    let spans: Vec<&str> = found.iter().filter_map(|s| s.split('`').nth(1)).collect();
    let stale: Vec<&str> = page.split("Stale:\n").nth(1).unwrap().lines().collect();
    let stale: Vec<&str> = stale.iter().map(|s| s.trim_matches('`')).collect();
    assert_eq!(spans, stale, "{found:#?}");
    assert!(found[0].starts_with("scratch.md:11: "), "{found:#?}");
}
