//! Dependencies built from a local checkout (`--patch CRATE=PATH`): parsed, checked against
//! the dependency graph with `cargo metadata`, applied to a side's copy of the source with an
//! `=` pin relaxed when the checkout's version needs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::analyze::before_after::{AppliedPatch, Side};
use crate::misuse;

/// The manifests of the packages of the side's own source (its workspace members and path
/// dependencies inside it), relative to its top: those whose `=` pins a patch may relax.
fn local_manifests(doc: &serde_json::Value, src: &Path) -> Vec<String> {
    let src = src.canonicalize().unwrap_or_else(|_| src.to_path_buf());
    let src = src.as_path();
    let mut out: Vec<String> = doc["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["source"].is_null())
        .filter_map(|p| {
            let m = Path::new(p["manifest_path"].as_str()?);
            Some(m.strip_prefix(src).ok()?.display().to_string())
        })
        .collect();
    if src.join("Cargo.toml").is_file() && !out.iter().any(|m| m == "Cargo.toml") {
        // A virtual workspace's own manifest.
        out.push("Cargo.toml".into());
    }
    out.sort();
    out
}

/// A dependency built from a local checkout: `CRATE=PATH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Patch {
    #[serde(rename = "crate")]
    pub krate: String,
    pub path: PathBuf,
}

/// What is wrong with a `--patch CRATE=PATH`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PatchError {
    /// No `=`.
    #[error("{0:?}: give CRATE=PATH, e.g. --patch base64=../base64")]
    NoPath(String),
    /// The part before `=` is no crate name.
    #[error("{0:?} is not a crate name")]
    NotACrateName(String),
    /// The folder has no `Cargo.toml`.
    #[error("{} is not a crate checkout (no Cargo.toml in it)", .0.display())]
    NotACheckout(PathBuf),
    /// The folder cannot be resolved.
    #[error("{}: {error}", path.display())]
    Unresolved {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::str::FromStr for Patch {
    type Err = PatchError;

    /// Parses `CRATE=PATH`; the path must be a folder with a `Cargo.toml`.
    fn from_str(text: &str) -> Result<Patch, PatchError> {
        let Some((krate, path)) = text.split_once('=') else {
            return Err(PatchError::NoPath(text.to_string()));
        };
        let krate = krate.trim();
        if krate.is_empty()
            || !krate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(PatchError::NotACrateName(krate.to_string()));
        }
        let dir = PathBuf::from(path);
        if !dir.join("Cargo.toml").is_file() {
            return Err(PatchError::NotACheckout(dir));
        }
        let path = dir
            .canonicalize()
            .map_err(|error| PatchError::Unresolved { path: dir, error })?;
        Ok(Patch {
            krate: krate.to_string(),
            path,
        })
    }
}

impl Patch {
    /// The `--config` value that makes cargo use the checkout.
    pub(crate) fn cargo_config(&self) -> String {
        // A JSON string is a valid TOML basic string (the same escapes).
        let path = serde_json::to_string(&self.path.display().to_string()).unwrap_or_default();
        format!("patch.crates-io.{}.path={path}", self.krate)
    }
}

/// `cargo metadata` of the side's source, with these `--config` values.
pub(super) fn metadata(src: &Path, configs: &[String]) -> Result<(serde_json::Value, String)> {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(src)
        .args(["metadata", "--format-version", "1"])
        .stdin(Stdio::null());
    for c in configs {
        cmd.arg("--config").arg(c);
    }
    let out = cmd.output().context("cannot run cargo metadata")?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        let first = cargo_error(&out.stderr).unwrap_or_else(|| "cargo metadata failed".into());
        misuse!("cargo metadata in {}: {first}", src.display());
    }
    let doc = serde_json::from_slice(&out.stdout).context("cargo metadata printed no JSON")?;
    Ok((doc, stderr))
}

/// The first `error` line of what cargo printed on stderr: the line that says why it failed.
pub(super) fn cargo_error(stderr: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .find(|l| l.starts_with("error"))
        .map(str::to_string)
}

/// The name and version of the crate in `dir`.
pub(super) fn checkout_package(dir: &Path) -> Result<(String, String)> {
    let out = Command::new("cargo")
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .stdin(Stdio::null())
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        let first = cargo_error(&out.stderr).unwrap_or_default();
        misuse!(
            "--patch: cannot read {}: {first}",
            dir.join("Cargo.toml").display()
        );
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let wanted = dir.join("Cargo.toml");
    let pkg = doc["packages"]
        .as_array()
        .and_then(|ps| {
            ps.iter().find(|p| {
                p["manifest_path"]
                    .as_str()
                    .is_some_and(|m| Path::new(m) == wanted)
            })
        })
        .with_context(|| format!("{} holds no package", dir.display()))?;
    Ok((
        pkg["name"].as_str().unwrap_or_default().to_string(),
        pkg["version"].as_str().unwrap_or_default().to_string(),
    ))
}

/// Who in the graph depends on `krate`, and with which requirement: `sonic-rs needs ^0.22`.
pub(super) fn requirements(doc: &serde_json::Value, krate: &str) -> Vec<String> {
    let mut out = Vec::new();
    for p in doc["packages"].as_array().into_iter().flatten() {
        for d in p["dependencies"].as_array().into_iter().flatten() {
            if d["name"].as_str() == Some(krate) {
                out.push(format!(
                    "{} needs {}",
                    p["name"].as_str().unwrap_or("?"),
                    d["req"].as_str().unwrap_or("?")
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Checks one patch against the side's graph and relaxes an `=` pin in the side's copy when
/// the checkout's version differs. Writes the reasons into `notes`.
pub(super) fn apply_patch(
    src: &Path,
    package_dir: &Path,
    label: Side,
    patch: &Patch,
    pristine: &dyn Fn(&str) -> Option<String>,
    notes: &mut Vec<String>,
) -> Result<AppliedPatch> {
    let (name, version) = checkout_package(&patch.path)?;
    if name != patch.krate {
        misuse!(
            "--patch {}={}: that checkout is the crate {name}, not {}",
            patch.krate,
            patch.path.display(),
            patch.krate
        );
    }
    let (doc, _) = metadata(package_dir, &[patch.cargo_config()])?;
    let in_graph = doc["packages"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["name"].as_str() == Some(&patch.krate)));
    if !in_graph {
        misuse!(
            "--patch {}: {} is not in the dependency graph (see `cargo tree` in the repository)",
            patch.krate,
            patch.krate
        );
    }
    let mut relaxed = Vec::new();
    for manifest in local_manifests(&doc, src) {
        let manifest = manifest.as_str();
        // From the side's pristine manifest (an extracted revision keeps its relaxed copy, so
        // a second invocation still says what was relaxed and leaves the file as it is).
        let Some(text) = pristine(manifest) else {
            continue;
        };
        if let Some((new_text, old_pin)) = relax_pin(&text, &patch.krate, &version) {
            let file = src.join(manifest);
            if std::fs::read_to_string(&file).ok().as_deref() != Some(new_text.as_str()) {
                std::fs::write(&file, new_text)
                    .with_context(|| format!("cannot write {}", file.display()))?;
            }
            relaxed.push(format!("{manifest}: \"={old_pin}\" -> \"={version}\""));
        }
    }
    // A caret requirement the checkout satisfies leaves the lock file at its version of the
    // crate, and cargo then ignores the patch: move the side's copy of the lock file to the
    // checkout's version, with the patch in place.
    let locked: Vec<String> = doc["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["name"].as_str() == Some(&patch.krate) && !p["source"].is_null())
        .filter_map(|p| p["version"].as_str().map(str::to_string))
        .filter(|v| *v != version && compatible(v, &version))
        .collect();
    for old in locked {
        let spec = format!("{}@{old}", patch.krate);
        let out = Command::new("cargo")
            .current_dir(package_dir)
            .args(["update", "--quiet", "-p", &spec, "--precise", &version])
            .arg("--config")
            .arg(patch.cargo_config())
            .stdin(Stdio::null())
            .output()
            .context("cannot run cargo update")?;
        if !out.status.success() {
            let first = cargo_error(&out.stderr).unwrap_or_default();
            misuse!(
                "--patch {}: cannot move the {label} side's Cargo.lock from {old} to {version}: {first}",
                patch.krate
            );
        }
        relaxed.push(format!("Cargo.lock: {} {old} -> {version}", patch.krate));
    }
    for r in &relaxed {
        notes.push(format!(
            "{} {version} is not the version the source takes: relaxed in the {label} side's copy of the source only ({r})",
            patch.krate
        ));
    }
    let harness_deps = doc["packages"].as_array().and_then(|ps| {
        ps.iter()
            .find(|p| p["name"].as_str() == Some("serprof"))
            .map(|p| p["dependencies"].clone())
    });
    let harness_uses = harness_deps
        .as_ref()
        .and_then(|d| d.as_array())
        .is_some_and(|ds| ds.iter().any(|d| d["name"].as_str() == Some(&patch.krate)));
    if harness_uses {
        notes.push(format!(
            "{} is also serprof's own dependency: the {label} side's harness (its run.json, result.json and reports) is built with the patched {} too",
            patch.krate, patch.krate
        ));
    }
    Ok(AppliedPatch {
        krate: patch.krate.clone(),
        path: patch.path.display().to_string(),
        version,
        relaxed,
    })
}

/// Whether versions `a` and `b` are semver-compatible (one caret requirement takes both): the
/// same major version, or the same `0.minor`.
fn compatible(a: &str, b: &str) -> bool {
    let key = |v: &str| {
        let parts: Vec<&str> = v.split('.').collect();
        match parts.as_slice() {
            ["0", minor, ..] => format!("0.{minor}"),
            [major, ..] => (*major).to_string(),
            [] => String::new(),
        }
    };
    key(a) == key(b)
}

/// The manifest `text` with an exact pin `krate = "=X"` (or `version = "=X"` in its table)
/// changed to `=version`, and the old X; `None` when it has no such pin or X is `version`.
pub(crate) fn relax_pin(text: &str, krate: &str, version: &str) -> Option<(String, String)> {
    let mut old = None;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let Some(rest) = trimmed.strip_prefix(krate) else {
                return line.to_string();
            };
            let rest = rest.trim_start();
            if !rest.starts_with('=') || old.is_some() {
                return line.to_string();
            }
            let Some(start) = line.find("\"=") else {
                return line.to_string();
            };
            let Some(len) = line[start + 2..].find('"') else {
                return line.to_string();
            };
            let pin = &line[start + 2..start + 2 + len];
            if pin == version {
                return line.to_string();
            }
            old = Some(pin.to_string());
            format!(
                "{}\"={version}\"{}",
                &line[..start],
                &line[start + 3 + len..]
            )
        })
        .collect();
    let old = old?;
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    Some((out, old))
}

/// Checks that cargo resolves every patched crate to its checkout; otherwise a misuse naming
/// what the graph requires.
pub(super) fn check_patches_used(src: &Path, patches: &[Patch]) -> Result<()> {
    let configs: Vec<String> = patches.iter().map(Patch::cargo_config).collect();
    let (doc, stderr) = metadata(src, &configs)?;
    for p in patches {
        let wanted = p.path.join("Cargo.toml");
        let used = doc["packages"].as_array().is_some_and(|ps| {
            ps.iter().any(|pkg| {
                pkg["manifest_path"]
                    .as_str()
                    .is_some_and(|m| Path::new(m) == wanted)
            })
        });
        let warned = stderr
            .lines()
            .any(|l| l.contains("was not used in the crate graph") && l.contains(&p.krate));
        if !used || warned {
            let (_, version) = checkout_package(&p.path)?;
            let (plain, _) = metadata(src, &[])?;
            misuse!(
                "--patch {}={}: cargo does not use it: version {version} does not satisfy the graph ({})",
                p.krate,
                p.path.display(),
                requirements(&plain, &p.krate).join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_pin_is_relaxed_to_the_checkouts_version_only() {
        let text = "[dependencies]\nserde_json = \"=1.0.154\"\nbase64 = \"=0.23.1\"\nbincode = { version = \"=2.0.1\", features = [\"serde\"] }\n";
        let (out, old) = relax_pin(text, "base64", "0.23.2").unwrap();
        assert_eq!(old, "0.23.1");
        assert!(out.contains("base64 = \"=0.23.2\"\n"), "{out}");
        assert!(out.contains("serde_json = \"=1.0.154\""));
        let (out, old) = relax_pin(text, "bincode", "2.0.2").unwrap();
        assert_eq!(old, "2.0.1");
        assert!(out.contains("bincode = { version = \"=2.0.2\", features = [\"serde\"] }"));
        assert_eq!(relax_pin(text, "base64", "0.23.1"), None, "same version");
        assert_eq!(
            relax_pin(text, "base6", "9.9.9"),
            None,
            "a prefix is no crate"
        );
        assert_eq!(
            relax_pin(text, "serde", "1.0.0"),
            None,
            "serde_json is not serde"
        );
    }

    #[test]
    fn patches_parse_and_bad_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        let p: Patch = format!("base64={}", dir.path().display()).parse().unwrap();
        assert_eq!(p.krate, "base64");
        assert!(p
            .cargo_config()
            .starts_with("patch.crates-io.base64.path=\""));
        for bad in [
            "base64".to_string(),
            format!("={}", dir.path().display()),
            "base64=/no/such/folder".to_string(),
            format!("bad name={}", dir.path().display()),
        ] {
            assert!(bad.parse::<Patch>().is_err(), "{bad}");
        }
    }
}
