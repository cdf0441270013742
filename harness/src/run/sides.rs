//! The two sides of `serprof before-after`: where each side's source comes from (a git revision,
//! or the working tree as it is), which dependencies it builds from a local checkout
//! (`--patch CRATE=PATH`), and its release build in the shared cache.
//!
//! The cache (default `~/.cache/serprof/before-after`, or `$SERPROF_BA_CACHE`, or `--cache`;
//! never inside a folder with a `.cargo/config.toml`, which cargo would merge into the builds):
//! - `target/<key>/`: each side's own `CARGO_TARGET_DIR` (see [`side_target`] for why they
//!   cannot share one), seeded with compiled dependencies from the repository's release build
//!   or another side's folder, so dependencies compile once; the six most recently built are
//!   kept;
//! - `src/<key>/`: a side's source, kept so that a second invocation finds its build fresh.
//!   A revision is extracted with `git archive` (its files carry the commit time, so cargo sees
//!   nothing newer than the last build); the working tree is copied file by file, keeping each
//!   file's modification time, and only files that changed are copied again;
//! - `bin/<key>/serprof`: the side's binary, copied out of `target/release` right after its
//!   build (the next side's build overwrites `target/release/serprof`), under a lock on the
//!   cache so that two invocations cannot swap each other's binaries.
//!
//! The key names the source and the patches, so two sides of one revision and no patch are one
//! build (an A/A comparison), and a test's scratch clone at the same commit finds the build of
//! that commit made by another.
//!
//! A patch is applied without touching the user's files: in the side's own source copy, with
//! `cargo --config 'patch.crates-io.CRATE.path="PATH"'`. Cargo on its own rewrites that copy's
//! `Cargo.lock`, and a patch whose version does not satisfy the graph is only a warning; so the
//! graph is checked with `cargo metadata` first: the crate must be in it, and the patched
//! source must be the one resolved. An `=` pin on the crate in the copy's manifests is changed
//! to the checkout's version when they differ, and the side says so.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::analyze::before_after::{AppliedPatch, Side, SideRecord};
use crate::error::misuse_err;
use crate::misuse;
use crate::protocol::{identity_of, Identity, IdentityError, PROTOCOL};

/// The workspace manifests whose `=` pins a patch may relax.
const MANIFESTS: [&str; 3] = ["Cargo.toml", "engines/Cargo.toml", "harness/Cargo.toml"];

/// A dependency built from a local checkout: `CRATE=PATH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Patch {
    #[serde(rename = "crate")]
    pub krate: String,
    pub path: PathBuf,
}

impl Patch {
    /// Parses `CRATE=PATH`; the path must be a folder with a `Cargo.toml`.
    pub fn parse(text: &str) -> Result<Patch> {
        let Some((krate, path)) = text.split_once('=') else {
            misuse!("--patch {text}: give CRATE=PATH, e.g. --patch base64=../base64");
        };
        let krate = krate.trim();
        if krate.is_empty()
            || !krate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            misuse!("--patch {text}: {krate:?} is not a crate name");
        }
        let dir = PathBuf::from(path);
        if !dir.join("Cargo.toml").is_file() {
            misuse!(
                "--patch {text}: {} is not a crate checkout (no Cargo.toml in it)",
                dir.display()
            );
        }
        let path = dir
            .canonicalize()
            .map_err(|e| misuse_err(format!("--patch {text}: {e}")))?;
        Ok(Patch {
            krate: krate.to_string(),
            path,
        })
    }

    /// The `--config` value that makes cargo use the checkout.
    fn cargo_config(&self) -> String {
        // A JSON string is a valid TOML basic string (the same escapes).
        let path = serde_json::to_string(&self.path.display().to_string()).unwrap_or_default();
        format!("patch.crates-io.{}.path={path}", self.krate)
    }
}

/// Where a side's source comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A git revision as given, and the commit it names.
    Revision { spec: String, sha: String },
    /// The working tree as it is, uncommitted changes and untracked (not ignored) files
    /// included; `head` is the commit it started from.
    WorkingTree { head: String },
}

/// What to build for one side.
#[derive(Debug, Clone)]
pub struct SideSpec {
    /// `before` or `after`.
    pub label: Side,
    pub source: Source,
    pub patches: Vec<Patch>,
}

/// The repository `dir` is in: its top folder. Outside a repository: a misuse.
pub fn repo_root(dir: &Path) -> Result<PathBuf> {
    let out = git(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        misuse_err(
            "before-after needs the serprof git repository: run it inside a clone of serprof",
        )
    })?;
    let root = PathBuf::from(out.trim());
    if !root.join(MANIFESTS[0]).is_file() {
        misuse!(
            "{} is not a serprof repository (no {})",
            root.display(),
            MANIFESTS[0]
        );
    }
    Ok(root)
}

/// The commit `spec` names in `repo`, or a misuse.
pub fn resolve(repo: &Path, spec: &str) -> Result<String> {
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
fn git(dir: &Path, args: &[&str]) -> Result<String> {
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

/// The default cache: `$SERPROF_BA_CACHE`, else `$XDG_CACHE_HOME/serprof/before-after` (or
/// `~/.cache/...`). Not inside the repository: cargo merges the `.cargo/config.toml` of every
/// folder above the one it builds in, so a side built under the repository would get the
/// repository's `rustflags` twice and compile every dependency anew (see [`check_cache`]).
pub fn default_cache() -> PathBuf {
    if let Some(p) = std::env::var_os("SERPROF_BA_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("serprof").join(crate::layout::BEFORE_AFTER_DIR)
}

/// A cache inside a folder with a `.cargo/config.toml` (other than cargo's home) is refused:
/// cargo would merge that file into every side's build.
pub fn check_cache(cache: &Path) -> Result<()> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    for dir in cache.ancestors() {
        for name in ["config.toml", "config"] {
            let file = dir.join(".cargo").join(name);
            if file.is_file() && home.as_deref() != Some(&dir.join(".cargo")) {
                misuse!(
                    "the before-after cache {} is inside {}, whose {} cargo would merge into every side's build: give a --cache outside it",
                    cache.display(),
                    dir.display(),
                    file.display()
                );
            }
        }
    }
    Ok(())
}

/// A stable 64-bit FNV-1a hash, for cache keys.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

impl SideSpec {
    /// The cache key of this side's source and binary.
    fn key(&self, repo: &Path) -> String {
        let base = match &self.source {
            Source::Revision { sha, .. } => format!("rev-{}", &sha[..sha.len().min(12)]),
            Source::WorkingTree { .. } => {
                format!("worktree-{:08x}", fnv(&repo.display().to_string()) as u32)
            }
        };
        if self.patches.is_empty() {
            return base;
        }
        let spec: Vec<String> = self
            .patches
            .iter()
            .map(|p| format!("{}={}", p.krate, p.path.display()))
            .collect();
        format!("{base}-patch-{:08x}", fnv(&spec.join("\n")) as u32)
    }

    /// The side in words.
    fn describe(&self) -> String {
        let base = match &self.source {
            Source::Revision { spec, sha } if spec.starts_with(short(sha)) => short(sha).into(),
            Source::Revision { spec, sha } => format!("{spec} ({})", short(sha)),
            Source::WorkingTree { head } => format!("working tree ({} + changes)", short(head)),
        };
        let patches: Vec<String> = self
            .patches
            .iter()
            .map(|p| format!(" + {} from {}", p.krate, p.path.display()))
            .collect();
        format!("{base}{}", patches.concat())
    }

    fn commit(&self) -> &str {
        match &self.source {
            Source::Revision { sha, .. } => sha,
            Source::WorkingTree { head } => head,
        }
    }
}

/// A side whose source is in the cache, checked and patched, ready to build.
#[derive(Debug, Clone)]
pub struct Staged {
    spec: SideSpec,
    key: String,
    src: PathBuf,
    patches: Vec<AppliedPatch>,
    notes: Vec<String>,
}

impl Staged {
    /// The cache key: two staged sides of one key are one build.
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// Stages one side: its source in the cache, its patches checked against the dependency graph
/// and applied to the copy. Quick (no build), so
/// both sides are staged before either is built: a misuse on the after side costs no build.
/// `say` gets one line per step for the progress output.
pub fn stage(repo: &Path, cache: &Path, spec: &SideSpec, say: &dyn Fn(&str)) -> Result<Staged> {
    let key = spec.key(repo);
    let src = cache.join("src").join(&key);
    std::fs::create_dir_all(cache.join("src"))
        .with_context(|| format!("cannot create {}", cache.display()))?;
    // One source folder at a time, without waiting for another invocation's build.
    let _lock = CacheLock::take(&cache.join("src").join(format!(".{key}.lock")))?;
    say(&format!("{}: source {}", spec.label, spec.describe()));
    match &spec.source {
        Source::Revision { sha, .. } => extract_revision(repo, sha, &src)?,
        Source::WorkingTree { .. } => sync_working_tree(repo, &src)?,
    }
    let mut notes = Vec::new();
    let mut applied = Vec::new();
    let pristine = |manifest: &str| match &spec.source {
        Source::Revision { sha, .. } => git(repo, &["show", &format!("{sha}:{manifest}")]).ok(),
        Source::WorkingTree { .. } => std::fs::read_to_string(repo.join(manifest)).ok(),
    };
    for patch in &spec.patches {
        applied.push(apply_patch(&src, spec.label, patch, &pristine, &mut notes)?);
    }
    if !spec.patches.is_empty() {
        check_patches_used(&src, &spec.patches)?;
    }
    for note in &notes {
        say(&format!("{}: {note}", spec.label));
    }
    Ok(Staged {
        spec: spec.clone(),
        key,
        src,
        patches: applied,
        notes,
    })
}

/// Builds a staged side in the shared target folder and copies its binary out. With
/// `show_cargo`, cargo's own progress goes to stderr.
pub fn build(
    repo: &Path,
    cache: &Path,
    staged: &Staged,
    show_cargo: bool,
    say: &dyn Fn(&str),
) -> Result<SideRecord> {
    let spec = &staged.spec;
    let _lock = CacheLock::take(&cache.join(".build.lock"))?;
    // The source too: a concurrent stage of the same key must not rewrite it mid-build.
    let _source = CacheLock::take(&cache.join("src").join(format!(".{}.lock", staged.key)))?;
    let target = side_target(cache, &staged.key);
    seed_target(repo, cache, &target, say);
    say(&format!(
        "{}: cargo build --release -p serprof (target {})",
        spec.label,
        target.display()
    ));
    let started = Instant::now();
    let mut cmd = Command::new("cargo");
    cmd.current_dir(&staged.src)
        .env("CARGO_TARGET_DIR", &target)
        .env("SERPROF_BUILD_REV", build_rev(spec))
        // A revision older than SERPROF_BUILD_REV asks git for its revision: keep git from
        // finding the repository the cache may sit in (it would name that one's HEAD).
        .env("GIT_CEILING_DIRECTORIES", cache.join("src"))
        .args(["build", "--release", "-p", "serprof"])
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if show_cargo {
        cmd.stderr(Stdio::inherit());
    }
    for p in &spec.patches {
        cmd.arg("--config").arg(p.cargo_config());
    }
    let out = cmd.output().context("cannot run cargo")?;
    let build_seconds = started.elapsed().as_secs_f64();
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("see cargo's output above");
        anyhow::bail!(
            "the {} side ({}) does not build: {first} (source in {})",
            spec.label,
            spec.describe(),
            staged.src.display()
        );
    }
    let built = target.join("release").join("serprof");
    // Its modification time says when it was last built, for pruning.
    let _ = std::fs::File::open(&target).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    prune_targets(cache, &target);
    let bin_dir = cache.join("bin").join(&staged.key);
    std::fs::create_dir_all(&bin_dir)
        .with_context(|| format!("cannot create {}", bin_dir.display()))?;
    let exe = bin_dir.join("serprof");
    let tmp = bin_dir.join(format!(".serprof.tmp{}", std::process::id()));
    std::fs::copy(&built, &tmp)
        .with_context(|| format!("cannot copy {} to {}", built.display(), tmp.display()))?;
    std::fs::rename(&tmp, &exe).with_context(|| format!("cannot write {}", exe.display()))?;
    say(&format!(
        "{}: built in {build_seconds:.0} s: {}",
        spec.label,
        exe.display()
    ));
    // Its protocol, and what the binary says of its revision, unless it could not know (a build
    // script without git says `nogit`): then the revision it was built from.
    let identity = check_protocol(&exe, &spec.describe())?;
    let git_rev = Some(identity.git_rev)
        .filter(|rev| !rev.is_empty() && !rev.starts_with("nogit"))
        .unwrap_or_else(|| build_rev(spec));
    Ok(SideRecord {
        label: spec.label,
        describe: spec.describe(),
        commit: spec.commit().to_string(),
        key: staged.key.clone(),
        source_dir: staged.src.display().to_string(),
        exe: exe.display().to_string(),
        git_rev,
        patches: staged.patches.clone(),
        build_seconds,
        notes: staged.notes.clone(),
    })
}

/// How many side target folders the cache keeps (the least recently built go first).
const KEPT_TARGETS: usize = 6;

/// A side's own target folder: `<cache>/target/<key>`. Sides cannot share one: cargo names the
/// two workspace crates' units the same in every copy of the workspace (their hash and
/// fingerprint do not depend on the folder), so in a shared folder a side whose files are
/// older than another side's last build is "fresh" and gets that side's code. Measured here: a
/// test's after side, whose one change was a function added to a codec, linked the before
/// side's engines and counted exactly the same instructions.
pub fn side_target(cache: &Path, key: &str) -> PathBuf {
    cache.join("target").join(key)
}

/// Whether a file of a target folder belongs to one of serprof's own two crates (their units
/// are the same in every copy of the workspace, so they must never be copied between folders).
fn is_workspace_unit(name: &str) -> bool {
    let name = name.strip_prefix("lib").unwrap_or(name);
    // serprof's binary, and every file of its two crates' units (`serprof-<hash>`,
    // `serprof_engines-<hash>.rlib`, `serprof.d`, ...).
    name.strip_prefix("serprof")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.']))
}

/// Seeds a side's empty target folder with compiled dependencies
/// (`release/{deps,build,.fingerprint}`, copied, serprof's own two crates left out), so that
/// its build compiles only the two workspace crates: cargo's fingerprints of registry crates do
/// not depend on where the target folder is. The source is the repository's own release build,
/// the one this serprof binary belongs to, or another side's folder in the cache. Best effort:
/// without any, or when the copy fails, cargo compiles everything.
fn seed_target(repo: &Path, cache: &Path, target: &Path, say: &dyn Fn(&str)) {
    let to = target.join("release");
    if to.join(".fingerprint").exists() {
        return;
    }
    let own = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.join("release")));
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(cache.join("target"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("release"))
        .filter(|d| d != &to)
        .filter_map(|d| {
            Some((
                std::fs::metadata(d.join(".fingerprint"))
                    .ok()?
                    .modified()
                    .ok()?,
                d,
            ))
        })
        .collect();
    others.sort();
    let Some(from) = std::iter::once(repo.join("target").join("release"))
        .chain(own)
        .chain(others.into_iter().rev().map(|(_, d)| d))
        .find(|d| d.join(".fingerprint").is_dir() && d.join("deps").is_dir())
    else {
        return;
    };
    say(&format!(
        "seeding {} with the dependencies compiled in {}",
        target.display(),
        from.display()
    ));
    if std::fs::create_dir_all(&to).is_err() {
        return;
    }
    for part in ["deps", "build", ".fingerprint"] {
        let ok = Command::new("cp")
            .args(["-a", "--reflink=auto"])
            .arg(from.join(part))
            .arg(&to)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            say("could not copy the dependencies; cargo compiles them");
            let _ = std::fs::remove_dir_all(&to);
            return;
        }
        for e in std::fs::read_dir(to.join(part))
            .into_iter()
            .flatten()
            .flatten()
        {
            if is_workspace_unit(&e.file_name().to_string_lossy()) {
                let p = e.path();
                let _ = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
            }
        }
    }
}

/// Removes the least recently built side target folders beyond [`KEPT_TARGETS`], never `keep`.
fn prune_targets(cache: &Path, keep: &Path) {
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(cache.join("target"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|d| d.is_dir() && d != keep)
        .filter_map(|d| Some((std::fs::metadata(&d).ok()?.modified().ok()?, d)))
        .collect();
    dirs.sort();
    let excess = (dirs.len() + 1).saturating_sub(KEPT_TARGETS);
    for (_, d) in dirs.into_iter().take(excess) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The revision a side's binary reports (`SERPROF_BUILD_REV`, read by the build script: the
/// copy has no `.git` of its own).
fn build_rev(spec: &SideSpec) -> String {
    let dirty = matches!(spec.source, Source::WorkingTree { .. });
    let patched = !spec.patches.is_empty();
    format!(
        "{}{}{}",
        short(spec.commit()),
        if dirty { "+dirty" } else { "" },
        if patched { "+patched" } else { "" }
    )
}

/// An exclusive lock (`flock`) on a file of the cache: `src/.<key>.lock` while a side's source
/// is staged or built, `.build.lock` while a side is built and its binary copied out (the next
/// build overwrites `target/release/serprof`).
struct CacheLock(std::fs::File);

impl CacheLock {
    fn take(path: &Path) -> Result<CacheLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        // SAFETY: flock on a descriptor this struct owns; it is released when the file closes.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            anyhow::bail!(
                "cannot lock {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            );
        }
        Ok(CacheLock(file))
    }
}

impl Drop for CacheLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in `take`.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// The marker of a complete extraction of a revision.
const EXTRACTED: &str = ".serprof-extracted";

/// Extracts `sha` into `dir` with `git archive`, unless a complete extraction is there. A
/// patched side's copy is extracted afresh (its manifests are rewritten).
fn extract_revision(repo: &Path, sha: &str, dir: &Path) -> Result<()> {
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
fn sync_working_tree(repo: &Path, dir: &Path) -> Result<()> {
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
fn remove_unwanted(
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

/// The identity of a side's built binary: its worker protocol must be this serprof's (a
/// binary from before numbered protocols reports none), and its revision names the side.
fn check_protocol(exe: &Path, describe: &str) -> Result<Identity> {
    let ours = PROTOCOL;
    match identity_of(exe) {
        Ok(id) if id.protocol == ours => Ok(id),
        Ok(id) => misuse!(
            "{describe} speaks worker protocol {} and this serprof drives protocol {ours}: run before-after from a build whose protocol is {}",
            id.protocol,
            id.protocol
        ),
        Err(IdentityError::Silent { .. }) => misuse!(
            "{describe} is too old for before-after: its binary reports no worker protocol (it predates protocol {ours})"
        ),
        Err(e) => Err(e.into()),
    }
}

/// `cargo metadata` of the side's source, with these `--config` values.
fn metadata(src: &Path, configs: &[String]) -> Result<(serde_json::Value, String)> {
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
        let first = stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("cargo metadata failed");
        misuse!("cargo metadata in {}: {first}", src.display());
    }
    let doc = serde_json::from_slice(&out.stdout).context("cargo metadata printed no JSON")?;
    Ok((doc, stderr))
}

/// The name and version of the crate in `dir`.
fn checkout_package(dir: &Path) -> Result<(String, String)> {
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
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text.lines().find(|l| l.starts_with("error")).unwrap_or("");
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
fn requirements(doc: &serde_json::Value, krate: &str) -> Vec<String> {
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
fn apply_patch(
    src: &Path,
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
    let (doc, _) = metadata(src, &[])?;
    let in_graph = doc["packages"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["name"].as_str() == Some(&patch.krate)));
    if !in_graph {
        misuse!(
            "--patch {}: {} is not in serprof's dependency graph (see `cargo tree` in the repository)",
            patch.krate,
            patch.krate
        );
    }
    let mut relaxed = Vec::new();
    for manifest in MANIFESTS {
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
    for r in &relaxed {
        notes.push(format!(
            "{} {version} is past serprof's pin: relaxed in the {label} side's copy of the source only ({r})",
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

/// The manifest `text` with an exact pin `krate = "=X"` (or `version = "=X"` in its table)
/// changed to `=version`, and the old X; `None` when it has no such pin or X is `version`.
pub fn relax_pin(text: &str, krate: &str, version: &str) -> Option<(String, String)> {
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
fn check_patches_used(src: &Path, patches: &[Patch]) -> Result<()> {
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

/// Writes `text` to stderr as one progress line (`before-after: ...`).
pub fn stderr_line(text: &str) {
    let _ = writeln!(std::io::stderr(), "before-after: {text}");
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
    fn patches_parse_and_bad_ones_are_misuse() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        let p = Patch::parse(&format!("base64={}", dir.path().display())).unwrap();
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
            let e = Patch::parse(&bad).unwrap_err();
            assert_eq!(crate::error::exit_code_of(&e), 2, "{bad}: {e}");
        }
    }

    #[test]
    fn seeding_never_copies_serprofs_own_units() {
        for own in [
            "serprof-4c961156ba844831",
            "serprof-engines-12b1c8903ad5090a",
            "libserprof_engines-10e3e37fcd462518.rlib",
            "serprof_engines-10e3e37fcd462518.d",
            "libserprof-0a1b.rlib",
            "serprof",
        ] {
            assert!(is_workspace_unit(own), "{own}");
        }
        for dep in [
            "serde-1a2b",
            "libserde_json-3c4d.rlib",
            "sonic-rs-9f",
            "libc-77",
        ] {
            assert!(!is_workspace_unit(dep), "{dep}");
        }
    }

    #[test]
    fn keys_name_the_source_and_the_patches() {
        let repo = Path::new("/r");
        let rev = |sha: &str| SideSpec {
            label: Side::Before,
            source: Source::Revision {
                spec: "HEAD".into(),
                sha: sha.into(),
            },
            patches: Vec::new(),
        };
        let a = rev("0123456789abcdef0123");
        assert_eq!(a.key(repo), "rev-0123456789ab");
        assert_eq!(a.key(repo), rev("0123456789abcdef0123").key(repo));
        let mut patched = rev("0123456789abcdef0123");
        patched.patches.push(Patch {
            krate: "base64".into(),
            path: "/x".into(),
        });
        assert!(patched.key(repo).starts_with("rev-0123456789ab-patch-"));
        assert_ne!(patched.key(repo), a.key(repo));
        assert_eq!(a.describe(), "HEAD (0123456)");
        assert_eq!(patched.describe(), "HEAD (0123456) + base64 from /x");
    }
}
