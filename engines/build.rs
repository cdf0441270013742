//! Writes the versions of the engine crates this build resolved, read from the `Cargo.lock`
//! that resolved it, into `$OUT_DIR/versions.rs` (see `src/versions.rs`).
//!
//! serprof's `Cargo.toml` uses caret requirements, so the version of a library that is built is
//! the choice of the lock file of the workspace being built: serprof's own, or the one of a
//! user's crate that depends on serprof. A build script cannot ask cargo which lock file that
//! is, so it looks, in order:
//! 1. up from `$PWD`, the folder the shell that ran cargo was in (cargo runs a build script in
//!    the crate's own folder, but leaves `PWD` as it was; `serprof before-after` sets it to the
//!    side's source, whose target folder is in its cache);
//! 2. up from `$OUT_DIR`: a target folder sits in its workspace unless `CARGO_TARGET_DIR` or
//!    `build.target-dir` moves it;
//! 3. up from this crate's folder (serprof's own workspace, or a path dependency's).
//!
//! A lock file counts only when it lists this crate. Where every guess fails (a build run from
//! another folder with `--manifest-path`, into a target folder outside the workspace), the
//! versions read as unresolved; a wrong guess needs a lock file that lists this very crate, and
//! `run.json` names the lock file read. The build script runs again when that file changes. The versions are those of this crate's
//! entries in it (`dependencies = [...]`, where two versions of one crate are written
//! `"name version"`).

use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let name = std::env::var("CARGO_PKG_NAME").expect("cargo sets it");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    let shell = std::env::var_os("PWD")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_default();
    let candidates = (shell.ancestors().map(|d| d.join("Cargo.lock")))
        .chain(out.ancestors().map(|d| d.join("Cargo.lock")))
        .chain(manifest.ancestors().map(|d| d.join("Cargo.lock")));
    let mut found = None;
    for lock in candidates {
        let Ok(text) = std::fs::read_to_string(&lock) else {
            continue;
        };
        if let Some(deps) = resolved(&text, &name, &version) {
            found = Some((lock, deps));
            break;
        }
    }
    let mut code = String::from("/// The lock file the versions come from (empty: none found).\n");
    match &found {
        Some((lock, deps)) => {
            println!("cargo:rerun-if-changed={}", lock.display());
            code += &format!(
                "pub(crate) const LOCKFILE: &str = {:?};\n",
                lock.display().to_string()
            );
            code += "/// Every dependency's name and resolved version.\n";
            code += "pub(crate) const RESOLVED: &[(&str, &str)] = &[\n";
            for (n, v) in deps {
                code += &format!("    ({n:?}, {v:?}),\n");
            }
            code += "];\n";
        }
        None => {
            code += "pub(crate) const LOCKFILE: &str = \"\";\n";
            code += "/// Every dependency's name and resolved version.\n";
            code += "pub(crate) const RESOLVED: &[(&str, &str)] = &[];\n";
        }
    }
    write_if_changed(&out.join("versions.rs"), &code);
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("OUT_DIR is writable");
    }
}

/// One `[[package]]` of a lock file: name, version, dependency entries.
struct Package {
    name: String,
    version: String,
    deps: Vec<String>,
}

fn packages(lock: &str) -> Vec<Package> {
    let mut all = Vec::new();
    let mut current: Option<Package> = None;
    let mut in_deps = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            all.extend(current.take());
            current = Some(Package {
                name: String::new(),
                version: String::new(),
                deps: Vec::new(),
            });
            in_deps = false;
            continue;
        }
        let Some(p) = current.as_mut() else { continue };
        if in_deps {
            if line.starts_with(']') {
                in_deps = false;
            } else if let Some(entry) = quoted(line) {
                p.deps.push(entry);
            }
        } else if let Some(v) = line.strip_prefix("name = ") {
            p.name = quoted(v).unwrap_or_default();
        } else if let Some(v) = line.strip_prefix("version = ") {
            p.version = quoted(v).unwrap_or_default();
        } else if let Some(rest) = line.strip_prefix("dependencies = [") {
            // `dependencies = []` or one entry per line.
            in_deps = !rest.starts_with(']');
        }
    }
    all.extend(current);
    all
}

fn quoted(s: &str) -> Option<String> {
    let s = s.trim().trim_end_matches(',');
    Some(s.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// The name and version of every dependency of package `name` `version` in `lock`, or `None`
/// when the lock file does not list that package.
fn resolved(lock: &str, name: &str, version: &str) -> Option<Vec<(String, String)>> {
    let all = packages(lock);
    let me = all
        .iter()
        .find(|p| p.name == name && p.version == version)?;
    let mut deps = Vec::new();
    for entry in &me.deps {
        let mut parts = entry.split(' ');
        let dep = parts.next().unwrap_or_default().to_string();
        let v = match parts.next() {
            Some(v) => v.to_string(),
            // One version of it in the lock file.
            None => match all.iter().find(|p| p.name == dep) {
                Some(p) => p.version.clone(),
                None => continue,
            },
        };
        deps.push((dep, v));
    }
    Some(deps)
}
