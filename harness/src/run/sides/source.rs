//! Where a side's source comes from: the repository, a revision extracted with `git archive`,
//! or the working tree mirrored file by file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The file name of a cargo package's manifest.
const MANIFEST: &str = "Cargo.toml";

use anyhow::{Context, Result};

use crate::error::misuse_err;
use crate::misuse;

/// The repository `dir` is in: its top folder. Outside a repository: a misuse.
pub(crate) fn repo_root(dir: &Path) -> Result<PathBuf> {
    let out = git(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        misuse_err(
            "before-after needs the serprof git repository: run it inside a clone of serprof",
        )
    })?;
    let root = PathBuf::from(out.trim());
    if !root.join("Cargo.toml").is_file() {
        misuse!(
            "{} is not a cargo project (no Cargo.toml at its top)",
            root.display()
        );
    }
    Ok(root)
}

/// The commit `spec` names in `repo`, or a misuse.
pub(crate) fn resolve(repo: &Path, spec: &str) -> Result<String> {
    git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{spec}^{{commit}}"),
        ],
    )
    .map(|s| s.trim().to_string())
    .map_err(|_| {
        misuse_err(format!(
            "{spec} is not a git revision of {}",
            repo.display()
        ))
    })
}

/// `git -C dir ARGS`'s stdout, or an error with its stderr.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        anyhow::bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The marker of a complete extraction of a revision.
const EXTRACTED: &str = ".serprof-extracted";

/// Extracts `sha` into `dir` with `git archive`, unless a complete extraction is there. A
/// patched side's copy is extracted afresh (its manifests are rewritten).
pub(super) fn extract_revision(repo: &Path, sha: &str, dir: &Path) -> Result<()> {
    let marker = dir.join(EXTRACTED);
    if std::fs::read_to_string(&marker).is_ok_and(|s| s.trim() == sha) {
        return Ok(());
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let tar = tmp.join(".source.tar");
    git(
        repo,
        &[
            "archive",
            "--format=tar",
            "-o",
            &tar.display().to_string(),
            sha,
        ],
    )?;
    let status = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&tmp)
        .status()
        .context("cannot run tar")?;
    if !status.success() {
        anyhow::bail!("tar could not extract {sha}");
    }
    std::fs::remove_file(&tar)?;
    std::fs::write(tmp.join(EXTRACTED), sha)?;
    std::fs::rename(&tmp, dir).with_context(|| format!("cannot move {}", tmp.display()))?;
    Ok(())
}

/// Mirrors the working tree of `repo` (tracked files as they are on disk, and untracked files
/// that are not ignored) into `dir`: a file is copied only when its size or modification time
/// differs, and keeps its modification time; files gone from the tree are removed.
pub(super) fn sync_working_tree(repo: &Path, dir: &Path) -> Result<()> {
    let list = git(
        repo,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )?;
    let mut wanted = std::collections::BTreeSet::new();
    for rel in list.split('\0').filter(|s| !s.is_empty()) {
        let from = repo.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue; // deleted in the working tree
        };
        if !meta.is_file() {
            continue;
        }
        wanted.insert(PathBuf::from(rel));
        let to = dir.join(rel);
        let same = std::fs::metadata(&to)
            .is_ok_and(|m| m.len() == meta.len() && m.modified().ok() == meta.modified().ok());
        if same {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::copy(&from, &to)
            .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        if let Ok(t) = meta.modified() {
            let f = std::fs::File::options().write(true).open(&to)?;
            f.set_modified(t)?;
        }
    }
    remove_unwanted(dir, dir, &wanted)
}

/// Removes the files under `dir` that are not in `wanted` (paths relative to `root`).
pub(super) fn remove_unwanted(
    root: &Path,
    dir: &Path,
    wanted: &std::collections::BTreeSet<PathBuf>,
) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let path = e.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            remove_unwanted(root, &path, wanted)?;
            let _ = std::fs::remove_dir(&path); // only when empty
        } else if !wanted.contains(&rel) {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// Rewrites, in every `Cargo.toml` of the copy `src` of `repo`, the relative `path = "..."`
/// dependencies that point outside the repository to their absolute paths: in the copy they
/// would point next to the cache instead. Paths inside the repository stay relative (they are
/// in the copy too).
pub(super) fn absolute_paths(src: &Path, repo: &Path) -> Result<()> {
    for manifest in manifests(src) {
        let rel = manifest.strip_prefix(src).unwrap_or(&manifest);
        let dir_in_repo = repo.join(rel.parent().unwrap_or(Path::new("")));
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("cannot read {}", manifest.display()))?;
        if let Some(new_text) = rewrite_paths(&text, &dir_in_repo, repo) {
            std::fs::write(&manifest, new_text)
                .with_context(|| format!("cannot write {}", manifest.display()))?;
        }
    }
    Ok(())
}

/// `text` (a manifest in `dir` of `repo`) with its relative `path = "..."` values that resolve
/// outside `repo` made absolute; `None` when there are none.
pub(super) fn rewrite_paths(text: &str, dir: &Path, repo: &Path) -> Option<String> {
    let repo = repo.canonicalize().ok()?;
    let re = regex::Regex::new(r#"(\bpath\s*=\s*)"([^"]+)""#).expect("a valid pattern");
    let mut changed = false;
    let out = re.replace_all(text, |c: &regex::Captures| {
        let value = &c[2];
        let resolved = dir.join(value).canonicalize().ok();
        match resolved {
            Some(abs) if !Path::new(value).is_absolute() && !abs.starts_with(&repo) => {
                changed = true;
                let quoted = serde_json::to_string(&abs.display().to_string()).unwrap_or_default();
                format!("{}{quoted}", &c[1])
            }
            _ => c[0].to_string(),
        }
    });
    changed.then(|| out.into_owned())
}

/// Every `Cargo.toml` under `dir`, outside `target/` and `.git/`.
fn manifests(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            let name = e.file_name();
            match e.file_type() {
                Ok(t) if t.is_dir() && name != "target" && name != ".git" => stack.push(path),
                Ok(t) if t.is_file() && name == MANIFEST => out.push(path),
                _ => {}
            }
        }
    }
    out.sort();
    out
}
