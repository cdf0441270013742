//! Whose code a frame is: the side table of a profile (function -> source file, library) and
//! the attribution of a function to its module and crate for `--by module|crate`.
//!
//! A demangled name alone does not say whose code `<Vec<T> as serde_core::de::Deserialize>::
//! deserialize` is; its source file does: `…/registry/src/<index>/serde_core-1.0.229/src/de/
//! impls.rs` names the crate exactly, `/rustc/<hash>/library/core/…` names core, a file of a
//! workspace names the package whose `Cargo.toml` is above it. Code that is not Rust (libc's
//! malloc, memcpy: C and assembly files, or no file) belongs to the shared library it lives in.
//! Only without a file and a library is the name parsed (see [`crate_of_name`]).
//!
//! The side table is a text file next to the folded stacks (`cpu.sources`, `alloc.sources`,
//! `instructions.sources`): one line per function, `function<TAB>file<TAB>library`, either of
//! the last two possibly empty, sorted by function.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use super::folded::sanitize_frame;

/// Where a function's code is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Source {
    /// The source file of the physical function, as the debug info names it.
    pub file: Option<String>,
    /// The shared object (library or executable) it lives in.
    pub library: Option<String>,
}

/// The side table: function name (sanitised like the folded stacks' frames) -> [`Source`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sources {
    pub functions: BTreeMap<String, Source>,
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty() && *s != "???")
        .map(|s| s.replace(['\t', '\n'], " "))
}

impl Sources {
    /// Notes where `function` is; the first file (and library) given for a name is kept.
    pub(crate) fn note(&mut self, function: &str, file: Option<&str>, library: Option<&str>) {
        let e = self.functions.entry(sanitize_frame(function)).or_default();
        if e.file.is_none() {
            e.file = non_empty(file);
        }
        if e.library.is_none() {
            e.library = non_empty(library);
        }
    }

    pub(crate) fn get(&self, function: &str) -> Option<&Source> {
        self.functions.get(function)
    }

    pub(crate) fn to_text(&self) -> String {
        let mut s = String::new();
        for (f, src) in &self.functions {
            s.push_str(f);
            s.push('\t');
            s.push_str(src.file.as_deref().unwrap_or(""));
            s.push('\t');
            s.push_str(src.library.as_deref().unwrap_or(""));
            s.push('\n');
        }
        s
    }

    /// Reads a side table; lines that are not `function<TAB>file<TAB>library` are skipped
    /// (the table only refines attribution; a damaged line falls back to the name).
    pub(crate) fn parse(text: &str) -> Sources {
        let mut t = Sources::default();
        for line in text.lines() {
            let mut parts = line.split('\t');
            if let (Some(f), Some(file), Some(lib)) = (parts.next(), parts.next(), parts.next()) {
                if !f.is_empty() {
                    t.note(f, Some(file), Some(lib));
                }
            }
        }
        t
    }

    /// The side table at `path`, or an empty one when there is none.
    pub(crate) fn read(path: &Path) -> Sources {
        std::fs::read_to_string(path)
            .map(|t| Sources::parse(&t))
            .unwrap_or_default()
    }
}

/// What a frame is grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum By {
    #[default]
    Function,
    Module,
    Crate,
    /// The type whose serialization code runs (`analyze::types`): a regrouping of whole
    /// stacks, not of single frames.
    Type,
}

impl By {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            By::Function => "function",
            By::Module => "module",
            By::Crate => "crate",
            By::Type => "type",
        }
    }
}

/// A function's crate and module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    pub krate: String,
    pub module: String,
}

/// The crates of Rust's own library (`library/<crate>/` in a toolchain's sources).
const STD_CRATES: [&str; 7] = [
    "core",
    "alloc",
    "std",
    "proc_macro",
    "test",
    "panic_unwind",
    "panic_abort",
];

/// `serde_core-1.0.229` -> `serde_core`: a registry folder's name without its version.
fn strip_version(folder: &str) -> &str {
    let b = folder.as_bytes();
    for (i, &c) in b.iter().enumerate().rev() {
        if c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            return &folder[..i];
        }
    }
    folder
}

/// The module path of a file below a crate's `src/`: `de/impls.rs` -> `de::impls`, `lib.rs`,
/// `main.rs` and `mod.rs` name their folder.
fn module_path(krate: &str, rel: &[&str]) -> String {
    let mut m = vec![krate.to_string()];
    for (i, part) in rel.iter().enumerate() {
        let last = i + 1 == rel.len();
        let part = if last {
            part.strip_suffix(".rs").unwrap_or(part)
        } else {
            part
        };
        if last && matches!(part, "lib" | "main" | "mod") {
            continue;
        }
        m.push(part.replace('-', "_"));
    }
    m.join("::")
}

/// The package name of the `Cargo.toml` nearest above `dir`, read from disk (cached).
fn package_above(dir: &Path) -> Option<(String, std::path::PathBuf)> {
    static CACHE: Mutex<Option<HashMap<std::path::PathBuf, Option<String>>>> = Mutex::new(None);
    let mut d = Some(dir);
    while let Some(here) = d {
        let manifest = here.join("Cargo.toml");
        let name = {
            let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
            cache
                .get_or_insert_with(HashMap::new)
                .entry(manifest.clone())
                .or_insert_with(|| {
                    std::fs::read_to_string(&manifest)
                        .ok()
                        .and_then(|t| package_name(&t))
                })
                .clone()
        };
        if let Some(n) = name {
            return Some((n.replace('-', "_"), here.to_path_buf()));
        }
        d = here.parent();
    }
    None
}

/// `name = "..."` of a manifest's `[package]` table.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if in_package {
            if let Some(rest) = line.strip_prefix("name") {
                let v = rest
                    .trim_start()
                    .strip_prefix('=')?
                    .trim()
                    .trim_matches('"');
                return Some(v.to_string());
            }
        }
    }
    None
}

/// The crate and module of a Rust source file, or `None` for a file that is not Rust's.
pub(crate) fn owner_of_file(file: &str) -> Option<Owner> {
    if !file.ends_with(".rs") {
        return None;
    }
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    let at = |name: &str| parts.iter().position(|p| *p == name);
    // A crate from a registry: .../registry/src/<index>/<crate>-<version>/src/...
    if let Some(i) = at("registry") {
        if parts.get(i + 1) == Some(&"src") {
            if let Some(folder) = parts.get(i + 3) {
                let krate = strip_version(folder).replace('-', "_");
                let rest = &parts[(i + 4).min(parts.len())..];
                let rel = rest.strip_prefix(&["src"]).unwrap_or(rest);
                return Some(Owner {
                    module: module_path(&krate, rel),
                    krate,
                });
            }
        }
    }
    // Rust's own library: .../library/<crate>/src/... (stdarch and portable-simd are core's).
    if let Some(i) = parts.iter().rposition(|p| *p == "library") {
        if let Some(&c) = parts.get(i + 1) {
            let krate = match c {
                "stdarch" | "portable-simd" => Some("core"),
                c if STD_CRATES.contains(&c) => Some(c),
                _ => None,
            };
            if let Some(krate) = krate {
                let rest = &parts[(i + 2).min(parts.len())..];
                let rel = match rest.iter().position(|p| *p == "src") {
                    Some(s) => &rest[s + 1..],
                    None => rest,
                };
                return Some(Owner {
                    krate: krate.to_string(),
                    module: module_path(krate, rel),
                });
            }
        }
    }
    // A git dependency or a workspace member: the package of the nearest Cargo.toml, else the
    // folder above `src/`.
    let path = Path::new(file);
    if let Some((krate, root)) = path.parent().and_then(package_above) {
        let rel: Vec<&str> = path
            .strip_prefix(&root)
            .ok()
            .and_then(|r| r.to_str())
            .map(|r| r.split('/').collect())
            .unwrap_or_default();
        let rel = rel.strip_prefix(&["src"]).unwrap_or(&rel);
        return Some(Owner {
            module: module_path(&krate, rel),
            krate,
        });
    }
    let s = parts.iter().rposition(|p| *p == "src")?;
    let krate = parts.get(s.checked_sub(1)?)?.replace('-', "_");
    Some(Owner {
        module: module_path(&krate, &parts[s + 1..]),
        krate,
    })
}

/// `/lib/x86_64-linux-gnu/libc.so.6` -> `libc`; `serprof` stays.
pub(crate) fn library_name(library: &str) -> String {
    let base = library.rsplit('/').next().unwrap_or(library);
    let base = base.split(".so").next().unwrap_or(base);
    base.to_string()
}

/// Splits `name` at top-level `::` (outside `<...>`, `(...)`, `[...]`, `{...}`).
fn segments(name: &str) -> Vec<&str> {
    let b = name.as_bytes();
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                out.push(&name[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&name[start..]);
    out
}

/// The matching `>` of the `<` at byte 0 (`->` is not a bracket).
fn closing(name: &str) -> Option<usize> {
    let b = name.as_bytes();
    let mut depth = 0i32;
    for i in 0..b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A type without its leading references, pointers, `dyn`, `impl`, tuple and slice brackets.
fn strip_refs(path: &str) -> &str {
    let mut p = path.trim();
    loop {
        let before = p;
        for prefix in ["&", "mut ", "*const ", "*mut ", "dyn ", "impl ", "(", "["] {
            p = p.strip_prefix(prefix).unwrap_or(p).trim_start();
        }
        if p == before {
            return p;
        }
    }
}

/// The crate of a type or path written in a name: its first segment, without references,
/// pointers, `dyn` and slices; `None` for a bare type (`T`, `u8`, `[T]`, `str`).
fn crate_of_path(path: &str) -> Option<String> {
    let p = strip_refs(path);
    if p.starts_with('<') {
        return crate_of_name(p);
    }
    let segs = segments(p);
    if segs.len() < 2 {
        return None;
    }
    let first = segs[0];
    (!first.is_empty() && first.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| first.to_string())
}

/// The crate of a function from its demangled name alone, for frames without a file or a
/// library: the first path segment, and for a trait impl `<Type as Trait>::f` the type's crate,
/// unless the type is Rust's own or bare (then the impl is the trait's crate's: the orphan rule
/// puts an impl in the crate of the trait or of the type).
pub(crate) fn crate_of_name(name: &str) -> Option<String> {
    let name = name.trim();
    if name.starts_with('<') {
        let end = closing(name)?;
        let inner = &name[1..end];
        let split = split_as(inner);
        let (ty, tr) = match split {
            Some((ty, tr)) => (ty, Some(tr)),
            None => (inner, None),
        };
        let ty_crate = crate_of_path(ty);
        let tr_crate = tr.and_then(crate_of_path);
        return match (ty_crate, tr_crate) {
            (Some(t), Some(tr)) if STD_CRATES.contains(&t.as_str()) => Some(tr),
            (Some(t), _) => Some(t),
            (None, tr) => tr,
        };
    }
    crate_of_path(name)
}

/// `Type as Trait` split at its top-level ` as `.
fn split_as(inner: &str) -> Option<(&str, &str)> {
    let b = inner.as_bytes();
    let mut depth = 0i32;
    for i in 0..b.len() {
        match b[i] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b' ' if depth == 0 && inner[i..].starts_with(" as ") => {
                return Some((&inner[..i], &inner[i + 4..]));
            }
            _ => {}
        }
    }
    None
}

/// The module of a function from its name alone: the path without generics, closures, the
/// function and the types it is a method of (`serde_json::de::Deserializer<R>::parse_str` ->
/// `serde_json::de`).
pub(crate) fn module_of_name(name: &str) -> Option<String> {
    let name = name.trim();
    if name.starts_with('<') {
        let end = closing(name)?;
        let inner = &name[1..end];
        let (ty, tr) = match split_as(inner) {
            Some((ty, tr)) => (ty, Some(tr)),
            None => (inner, None),
        };
        let pick = match (crate_of_path(ty), tr) {
            (Some(t), Some(tr)) if STD_CRATES.contains(&t.as_str()) => tr,
            (Some(_), _) => ty,
            (None, Some(tr)) => tr,
            (None, None) => return None,
        };
        return module_of_name(&format!("{}::f", strip_refs(pick)));
    }
    let segs: Vec<&str> = segments(name)
        .into_iter()
        .filter(|s| !s.starts_with("{{"))
        .collect();
    if segs.len() < 2 {
        return None;
    }
    let mut keep: Vec<&str> = Vec::new();
    for s in &segs[..segs.len() - 1] {
        let plain = s.split('<').next().unwrap_or(s);
        if plain.is_empty()
            || s.starts_with('{')
            || plain.starts_with(|c: char| c.is_uppercase())
            || !plain.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            break;
        }
        keep.push(plain);
    }
    (!keep.is_empty()).then(|| keep.join("::"))
}

/// The crate and module of `function`, from its [`Source`] if there is one.
pub(crate) fn owner(function: &str, source: Option<&Source>) -> Owner {
    let file = source.and_then(|s| s.file.as_deref());
    if let Some(o) = file.and_then(owner_of_file) {
        return o;
    }
    if let Some(lib) = source.and_then(|s| s.library.as_deref()) {
        // Not Rust (or no file): a C library's function, or code without line information.
        let lib = library_name(lib);
        let by_name = crate_of_name(function);
        if file.is_some() || by_name.is_none() {
            return Owner {
                module: lib.clone(),
                krate: lib,
            };
        }
    }
    match crate_of_name(function) {
        Some(krate) => Owner {
            module: module_of_name(function).unwrap_or_else(|| krate.clone()),
            krate,
        },
        None => Owner {
            krate: "[native]".into(),
            module: "[native]".into(),
        },
    }
}

/// Maps frames to their group for `--by`, with a cache (a profile repeats its frames).
pub(crate) struct Grouping<'a> {
    by: By,
    sources: &'a Sources,
    cache: HashMap<String, String>,
}

impl<'a> Grouping<'a> {
    pub(crate) fn new(by: By, sources: &'a Sources) -> Grouping<'a> {
        Grouping {
            by,
            sources,
            cache: HashMap::new(),
        }
    }

    pub(crate) fn group(&mut self, function: &str) -> String {
        if self.by == By::Function {
            return function.to_string();
        }
        if let Some(g) = self.cache.get(function) {
            return g.clone();
        }
        let o = owner(function, self.sources.get(function));
        let g = match self.by {
            By::Crate => o.krate,
            _ => o.module,
        };
        self.cache.insert(function.to_string(), g.clone());
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERDE_CORE: &str = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde_core-1.0.229/src/de/impls.rs";

    #[test]
    fn a_registry_file_names_its_crate_and_module() {
        let o = owner_of_file(SERDE_CORE).unwrap();
        assert_eq!(o.krate, "serde_core");
        assert_eq!(o.module, "serde_core::de::impls");
        let o = owner_of_file("/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/base64-0.22.1/src/engine/general_purpose/mod.rs").unwrap();
        assert_eq!(
            (o.krate.as_str(), o.module.as_str()),
            ("base64", "base64::engine::general_purpose")
        );
        let o = owner_of_file("/r/registry/src/x/rmp-serde-1.3.0/src/encode.rs").unwrap();
        assert_eq!(o.krate, "rmp_serde");
    }

    #[test]
    fn a_toolchain_file_names_core_alloc_or_std() {
        let core = owner_of_file(
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/mod.rs",
        )
        .unwrap();
        assert_eq!(
            (core.krate.as_str(), core.module.as_str()),
            ("core", "core::slice")
        );
        let alloc = owner_of_file("/rustc/5980/library/alloc/src/raw_vec/mod.rs").unwrap();
        assert_eq!(alloc.krate, "alloc");
        let simd =
            owner_of_file("/rustc/5980/library/stdarch/crates/core_arch/src/x86/sse2.rs").unwrap();
        assert_eq!(simd.krate, "core");
    }

    #[test]
    fn a_workspace_file_names_its_package() {
        let root = env!("CARGO_MANIFEST_DIR");
        let o = owner_of_file(&format!("{root}/src/measure/workload.rs")).unwrap();
        assert_eq!(o.krate, "serprof");
        assert_eq!(o.module, "serprof::measure::workload");
        let engines = format!("{root}/../engines/src/casestudy/bytes_json/cursor.rs");
        let o = owner_of_file(&engines).unwrap();
        assert_eq!(o.krate, "serprof_engines");
        // Without the manifest on disk: the folder above src/.
        let o = owner_of_file("/gone/elsewhere/mycrate/src/a/b.rs").unwrap();
        assert_eq!(
            (o.krate.as_str(), o.module.as_str()),
            ("mycrate", "mycrate::a::b")
        );
    }

    #[test]
    fn the_file_decides_even_for_trait_impls_and_generics() {
        let mut t = Sources::default();
        let f = "<alloc::vec::Vec<T> as serde_core::de::Deserialize>::deserialize";
        t.note(f, Some(SERDE_CORE), Some("/work/target/release/serprof"));
        let g = "core::ptr::drop_in_place<serde_json::value::Value>";
        t.note(g, Some("/rustc/x/library/core/src/ptr/mod.rs"), None);
        let mut by = Grouping::new(By::Crate, &t);
        assert_eq!(by.group(f), "serde_core");
        assert_eq!(by.group(g), "core");
        let mut by = Grouping::new(By::Module, &t);
        assert_eq!(by.group(f), "serde_core::de::impls");
        let mut by = Grouping::new(By::Function, &t);
        assert_eq!(by.group(f), f);
    }

    #[test]
    fn native_code_belongs_to_its_library() {
        let mut t = Sources::default();
        t.note(
            "malloc",
            Some("./malloc/./malloc/malloc.c"),
            Some("/usr/lib/x86_64-linux-gnu/libc.so.6"),
        );
        t.note(
            "__memmove_avx_unaligned_erms",
            None,
            Some("/lib/x86_64-linux-gnu/libc.so.6"),
        );
        t.note("_start", Some("???"), Some("/work/target/release/serprof"));
        let mut by = Grouping::new(By::Crate, &t);
        assert_eq!(by.group("malloc"), "libc");
        assert_eq!(by.group("__memmove_avx_unaligned_erms"), "libc");
        assert_eq!(by.group("_start"), "serprof");
        assert_eq!(
            by.group("memcpy"),
            "[native]",
            "no file, no library, no path"
        );
    }

    #[test]
    fn names_alone_fall_back_to_their_path() {
        let cases = [
            ("serde_json::de::Deserializer<R>::parse_str", "serde_json", "serde_json::de"),
            (
                "<alloc::vec::Vec<T> as serde_core::de::Deserialize>::deserialize",
                "serde_core",
                "serde_core::de",
            ),
            (
                "<serde_json::value::Value as core::fmt::Display>::fmt",
                "serde_json",
                "serde_json::value",
            ),
            (
                "<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_seq",
                "serde_json",
                "serde_json::de",
            ),
            (
                "serde_core::de::impls::<impl serde_core::de::Deserialize for alloc::vec::Vec<T>>::deserialize",
                "serde_core",
                "serde_core::de::impls",
            ),
            (
                "serprof::measure::workload::roundtrip_loop::{{closure}}",
                "serprof",
                "serprof::measure::workload",
            ),
            ("std::rt::lang_start::{{closure}}", "std", "std::rt"),
            (
                "<[T] as core::fmt::Debug>::fmt",
                "core",
                "core::fmt",
            ),
            (
                "core::ptr::drop_in_place<serde_json::value::Value>",
                "core",
                "core::ptr",
            ),
        ];
        for (name, krate, module) in cases {
            let o = owner(name, None);
            assert_eq!(
                (o.krate.as_str(), o.module.as_str()),
                (krate, module),
                "{name}"
            );
        }
    }

    #[test]
    fn the_side_table_round_trips() {
        let mut t = Sources::default();
        t.note("a::b::h0123456789abcdef", Some("/x/src/a.rs"), None);
        t.note("a::b", Some("/other.rs"), Some("/lib/liba.so"));
        t.note("malloc", None, Some("/lib/libc.so.6"));
        let text = t.to_text();
        assert_eq!(
            text,
            "a::b\t/x/src/a.rs\t/lib/liba.so\nmalloc\t\t/lib/libc.so.6\n"
        );
        assert_eq!(Sources::parse(&text), t);
        assert_eq!(library_name("/lib/x86_64-linux-gnu/libc.so.6"), "libc");
    }
}
