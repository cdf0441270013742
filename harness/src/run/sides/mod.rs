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
//! The key names the source and the patches (a hash of one length, so both sides' paths are as
//! long), so two sides of one revision and no patch are one build (an A/A comparison, timed in
//! two disjoint sets of layouts), and a test's scratch clone at the same commit finds the build
//! of that commit made by another. `link/<key>/` keeps the link of a side's binary, from which
//! [`layouts`] links it again in other layouts.
//!
//! A patch is applied without touching the user's files: in the side's own source copy, with
//! `cargo --config 'patch.crates-io.CRATE.path="PATH"'`. Cargo on its own rewrites that copy's
//! `Cargo.lock`, and a patch whose version does not satisfy the graph is only a warning; so the
//! graph is checked with `cargo metadata` first: the crate must be in it, and the patched
//! source must be the one resolved. An `=` pin on the crate in the copy's manifests is changed
//! to the checkout's version when they differ, and the side says so.

mod cache;
mod layouts;
mod patches;
mod source;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result};

pub(crate) use crate::model::binary::LayoutMode;
use cache::{cache_limit, prune_targets, seed_target, CacheLock};
pub(crate) use cache::{check_cache, default_cache, side_target};
use layouts::Tools;
pub(crate) use layouts::{link_layouts, linkable, remove_layout, KeptLink, LayoutError};
pub(crate) use patches::Patch;
use patches::{apply_patch, check_patches_used, metadata};
use source::{absolute_paths, extract_revision, git, rewrite_paths, sync_working_tree};
pub(crate) use source::{repo_root, resolve};

use crate::analyze::before_after::{AppliedPatch, Side, SideRecord};
use crate::misuse;
use crate::model::Binary;
use crate::protocol::{identity_of, Identity, IdentityError, PROTOCOL};

/// Where a side's source comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checkout {
    /// A git revision as given, and the commit it names.
    Revision { spec: String, sha: String },
    /// The working tree as it is, uncommitted changes and untracked (not ignored) files
    /// included; `head` is the commit it started from.
    WorkingTree { head: String },
}

/// What a side builds: a package's binary target, from its folder in the repository, with the
/// features it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BuildTarget {
    /// The cargo package (`-p`).
    pub package: String,
    /// Its binary target (`--bin`).
    pub bin: String,
    /// The package's folder, relative to the repository's top: cargo runs there.
    pub dir: PathBuf,
    /// Only these features (`--no-default-features --features ...`): for serprof's own package,
    /// the engines the selected configurations need, `rsb`, and the studies binary's
    /// [`STUDIES_FEATURE`]; `None`: the package's defaults.
    pub features: Option<Vec<String>>,
    /// The workspace's crates compiled with every function on a 64-byte boundary
    /// (`before-after --align`): a build the user does not ship, whose layouts move less.
    pub align: bool,
}

/// serprof's studies as a measured program without the driver (`harness/src/bin/`): what a side
/// of serprof's own source builds, the running serprof driving its children as it drives a
/// crate of one's own. Its target requires [`STUDIES_FEATURE`].
pub(crate) const STUDIES_BIN: &str = "serprof-studies";

/// The feature [`STUDIES_BIN`] requires (off by default, so that `cargo install` installs the
/// driver alone).
pub(crate) const STUDIES_FEATURE: &str = "studies-bin";

/// The feature serprof's own `serprof` binary requires.
const DRIVER_FEATURE: &str = "driver";

impl BuildTarget {
    /// What a side of `binary` builds in `repo`: its package and target. For serprof's own
    /// binary, serprof's studies without the driver ([`STUDIES_BIN`]: the driver's command
    /// line, analysis and renderers are about three quarters of the harness's build), with only
    /// the engines `configs` need (each engine is a feature of its own) and `rsb` for the rsb-*
    /// studies (which then build only those engines too).
    pub(crate) fn of(
        binary: &crate::model::Binary,
        repo: &Path,
        configs: &[crate::model::Planned],
    ) -> Result<BuildTarget> {
        let dir = package_dir(repo, binary)?;
        let (bin, features) = match binary.is_serprof() {
            true => {
                let mut f: Vec<String> = configs
                    .iter()
                    .filter_map(|c| c.info().feature.clone())
                    .chain(["rsb", STUDIES_FEATURE].map(String::from))
                    .collect();
                f.sort();
                f.dedup();
                (STUDIES_BIN, Some(f))
            }
            false => (binary.bin, None),
        };
        Ok(BuildTarget {
            package: binary.package.into(),
            bin: bin.into(),
            dir,
            features,
            align: false,
        })
    }

    /// serprof's own binary, at the top of its repository.
    #[cfg(test)]
    pub(crate) fn serprof(features: Option<Vec<String>>) -> BuildTarget {
        BuildTarget {
            package: "serprof".into(),
            bin: "serprof".into(),
            dir: PathBuf::new(),
            features,
            align: false,
        }
    }
}

/// The folder of `binary`'s package in `repo`, relative to its top: where the binary was built
/// when that is inside `repo`, else where a package of that name is in it (serprof's own binary
/// run in another clone of serprof).
pub(crate) fn package_dir(repo: &Path, binary: &crate::model::Binary) -> Result<PathBuf> {
    let root = repo.canonicalize().unwrap_or_else(|_| repo.to_path_buf());
    let home = Path::new(binary.manifest_dir);
    if let Ok(rel) = home.canonicalize().unwrap_or_default().strip_prefix(&root) {
        return Ok(rel.to_path_buf());
    }
    let (doc, _) = metadata(&root, &[])?;
    let found = doc["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|p| {
            (p["name"].as_str() == Some(binary.package))
                .then(|| {
                    Path::new(p["manifest_path"].as_str()?)
                        .parent()
                        .map(Path::to_path_buf)
                })
                .flatten()
        });
    match found {
        Some(dir) => Ok(dir.strip_prefix(&root).unwrap_or(&dir).to_path_buf()),
        None => misuse!(
            "this binary's package {} is not in the repository {}: run before-after inside the repository of the package it measures",
            binary.package,
            root.display()
        ),
    }
}

/// What to build for one side.
#[derive(Debug, Clone)]
pub(crate) struct SideSpec {
    /// `before` or `after`.
    pub label: Side,
    pub source: Checkout,
    pub patches: Vec<Patch>,
    pub build: BuildTarget,
}

/// A stable 64-bit FNV-1a hash of `text`, for cache keys.
fn fnv(text: &str) -> u64 {
    crate::analyze::sections::fnv(text.as_bytes())
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

impl SideSpec {
    /// The cache key of this side's source and binary: `side-` and 16 hex digits of its
    /// [`Self::name`]. Every side's folders (`src/<key>`, `target/<key>`) have paths of one
    /// length, so the paths a binary embeds (panic locations, `file!()`,
    /// `CARGO_MANIFEST_DIR`, debug info) are as long on both sides and move no address.
    fn key(&self, repo: &Path) -> String {
        format!("side-{:016x}", fnv(&self.name(repo)))
    }

    /// What the key stands for, in words: the source, the patches, the build target.
    fn name(&self, repo: &Path) -> String {
        let base = match &self.source {
            Checkout::Revision { sha, .. } => format!("rev-{}", &sha[..sha.len().min(12)]),
            Checkout::WorkingTree { .. } => {
                format!("worktree-{:08x}", fnv(&repo.display().to_string()) as u32)
            }
        };
        let mut key = base;
        if !self.patches.is_empty() {
            let spec: Vec<String> = self
                .patches
                .iter()
                .map(|p| format!("{}={}", p.krate, p.path.display()))
                .collect();
            key.push_str(&format!("-patch-{:08x}", fnv(&spec.join("\n")) as u32));
        }
        let b = &self.build;
        if (
            b.package.as_str(),
            b.bin.as_str(),
            b.dir.as_os_str().is_empty(),
        ) != ("serprof", "serprof", true)
        {
            let what = format!("{}\n{}\n{}", b.package, b.bin, b.dir.display());
            key.push_str(&format!("-bin-{:08x}", fnv(&what) as u32));
        }
        if let Some(features) = &b.features {
            key.push_str(&format!("-feat-{:08x}", fnv(&features.join(",")) as u32));
        }
        if b.align {
            key.push_str("-align");
        }
        key
    }

    /// The side in words.
    fn describe(&self) -> String {
        let base = match &self.source {
            Checkout::Revision { spec, sha } if spec.starts_with(short(sha)) => short(sha).into(),
            Checkout::Revision { spec, sha } => format!("{spec} ({})", short(sha)),
            Checkout::WorkingTree { head } => format!("working tree ({} + changes)", short(head)),
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
            Checkout::Revision { sha, .. } => sha,
            Checkout::WorkingTree { head } => head,
        }
    }
}

/// A side whose source is in the cache, checked and patched, ready to build.
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    spec: SideSpec,
    key: String,
    /// What the key stands for ([`SideSpec::name`]).
    name: String,
    src: PathBuf,
    patches: Vec<AppliedPatch>,
    notes: Vec<String>,
    /// The names of the source's own units (never seeded).
    workspace_units: Vec<String>,
}

impl Staged {
    /// The cache key: two staged sides of one key are one build.
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

/// Stages one side: its source in the cache, its patches checked against the dependency graph
/// and applied to the copy. Quick (no build), so
/// both sides are staged before either is built: a misuse on the after side costs no build.
/// `say` gets one line per step for the progress output.
pub(crate) fn stage(
    repo: &Path,
    cache: &Path,
    spec: &SideSpec,
    say: &dyn Fn(&str),
) -> Result<Staged> {
    let key = spec.key(repo);
    let src = cache.join("src").join(&key);
    std::fs::create_dir_all(cache.join("src"))
        .with_context(|| format!("cannot create {}", cache.display()))?;
    // One source folder at a time, without waiting for another invocation's build.
    let _lock = CacheLock::take(&cache.join("src").join(format!(".{key}.lock")))?;
    say(&format!("{}: source {}", spec.label, spec.describe()));
    match &spec.source {
        Checkout::Revision { sha, .. } => extract_revision(repo, sha, &src)?,
        Checkout::WorkingTree { .. } => sync_working_tree(repo, &src)?,
    }
    // Relative `path =` dependencies that leave the repository would dangle in the copy.
    absolute_paths(&src, repo)?;
    let mut notes = Vec::new();
    let mut applied = Vec::new();
    let pristine = |manifest: &str| {
        let text = match &spec.source {
            Checkout::Revision { sha, .. } => {
                git(repo, &["show", &format!("{sha}:{manifest}")]).ok()
            }
            Checkout::WorkingTree { .. } => std::fs::read_to_string(repo.join(manifest)).ok(),
        }?;
        let dir = Path::new(manifest).parent().unwrap_or(Path::new(""));
        Some(rewrite_paths(&text, &repo.join(dir), repo).unwrap_or(text))
    };
    let package_dir = src.join(&spec.build.dir);
    for patch in &spec.patches {
        applied.push(apply_patch(
            &src,
            &package_dir,
            spec.label,
            patch,
            &pristine,
            &mut notes,
        )?);
    }
    if !spec.patches.is_empty() {
        check_patches_used(&package_dir, &spec.patches)?;
    }
    let configs: Vec<String> = spec.patches.iter().map(Patch::cargo_config).collect();
    let build = with_existing_features(&package_dir, &configs, &spec.build, &mut notes)?;
    for note in &notes {
        say(&format!("{}: {note}", spec.label));
    }
    let workspace_units = workspace_units(&package_dir, &configs)?;
    Ok(Staged {
        spec: SideSpec {
            build,
            ..spec.clone()
        },
        key,
        name: spec.name(repo),
        src,
        patches: applied,
        notes,
        workspace_units,
    })
}

/// `target` with only the features and binaries its package has: a revision of serprof without
/// the studies binary builds its `serprof` binary with the driver, and one whose package has no
/// engine features is built with every engine, which the side's notes say.
fn with_existing_features(
    package_dir: &Path,
    configs: &[String],
    target: &BuildTarget,
    notes: &mut Vec<String>,
) -> Result<BuildTarget> {
    let Some(wanted) = &target.features else {
        return Ok(target.clone());
    };
    let (doc, _) = metadata(package_dir, configs)?;
    let package = doc["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"].as_str() == Some(target.package.as_str()));
    let has: Vec<String> = package
        .into_iter()
        .flat_map(|p| p["features"].as_object().into_iter().flatten())
        .map(|(k, _)| k.clone())
        .collect();
    let bins: Vec<&str> = package
        .into_iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"))
        })
        .filter_map(|t| t["name"].as_str())
        .collect();
    let mut wanted = wanted.clone();
    let mut target = target.clone();
    if target.bin == STUDIES_BIN && !bins.contains(&STUDIES_BIN) {
        notes.push(format!(
            "this revision has no {STUDIES_BIN} binary: built its serprof binary, driver included"
        ));
        target.bin = Binary::SERPROF.bin.into();
        wanted.retain(|f| f != STUDIES_FEATURE);
        wanted.push(DRIVER_FEATURE.into());
    }
    let target = &target;
    if !has.iter().any(|f| f == "default") {
        notes.push("this revision has no engine features: built with every engine".into());
        return Ok(BuildTarget {
            features: None,
            ..target.clone()
        });
    }
    Ok(BuildTarget {
        features: Some(wanted.iter().filter(|f| has.contains(f)).cloned().collect()),
        ..target.clone()
    })
}

/// The names under which the packages of the side's own source (its workspace members and
/// path dependencies inside the repository) appear in a target folder: package names and
/// crate names. Their units are never seeded from another folder (cargo names them the same
/// in every copy of the source).
fn workspace_units(package_dir: &Path, configs: &[String]) -> Result<Vec<String>> {
    let (doc, _) = metadata(package_dir, configs)?;
    let root = doc["workspace_root"].as_str().map(PathBuf::from);
    let mut names = Vec::new();
    for p in doc["packages"].as_array().into_iter().flatten() {
        let local = p["source"].is_null()
            && p["manifest_path"]
                .as_str()
                .zip(root.as_ref())
                .is_some_and(|(m, r)| Path::new(m).starts_with(r));
        if !local {
            continue;
        }
        names.extend(p["name"].as_str().map(str::to_string));
        for t in p["targets"].as_array().into_iter().flatten() {
            names.extend(t["name"].as_str().map(|n| n.replace('-', "_")));
            names.extend(t["name"].as_str().map(str::to_string));
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// Builds a staged side in the shared target folder and copies its binary out. With
/// `show_cargo`, cargo's own progress goes to stderr.
pub(crate) fn build(
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
    seed_target(
        repo,
        cache,
        &target,
        (&staged.workspace_units, &staged.name),
        say,
    );
    let b = &spec.build;
    let mut args: Vec<String> = ["build", "--release", "-p", &b.package, "--bin", &b.bin]
        .map(String::from)
        .into();
    if let Some(features) = &b.features {
        args.push("--no-default-features".into());
        if !features.is_empty() {
            args.extend(["--features".into(), features.join(",")]);
        }
    }
    say(&format!(
        "{}: cargo {} (target {})",
        spec.label,
        args.join(" "),
        target.display()
    ));
    let started = Instant::now();
    let keep = cache.join("link").join(&staged.key);
    let built = target.join("release").join(&b.bin);
    let tools = match std::env::var_os("RUSTC_WORKSPACE_WRAPPER").filter(|w| !w.is_empty()) {
        Some(_) if b.align => misuse!(
            "--align compiles the workspace through serprof's RUSTC_WORKSPACE_WRAPPER: unset yours for before-after"
        ),
        Some(_) => None,
        None => Some(Tools::install(cache)?),
    };
    let cargo = || {
        cargo_build(
            staged,
            cache,
            &args,
            &target,
            tools.as_ref(),
            &keep,
            show_cargo,
        )
    };
    cargo()?;
    // The link is kept when the binary was linked by this build; a binary cargo found fresh
    // but whose link is not kept (an older cache) is linked again.
    if tools.is_some() && !KeptLink::read(&keep).is_some_and(|k| k.made(&built)) {
        let _ = std::fs::remove_file(&built);
        if let Some(k) = KeptLink::read(&keep) {
            let _ = std::fs::remove_file(&k.output);
        }
        cargo()?;
    }
    let link = match (&tools, KeptLink::read(&keep)) {
        (None, _) => Err("RUSTC_WORKSPACE_WRAPPER is set, and serprof keeps the link through its own".to_string()),
        (Some(_), Some(k)) if k.made(&built) => Ok(keep.display().to_string()),
        (Some(_), _) => Err("the link was not kept (rustc passed its arguments in a file, or the linker failed to keep them)".to_string()),
    };
    let build_seconds = started.elapsed().as_secs_f64();
    // Its modification time says when it was last built, for pruning.
    let _ = std::fs::File::open(&target).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    prune_targets(cache, &target, cache_limit()?);
    let bin_dir = cache.join("bin").join(&staged.key);
    std::fs::create_dir_all(&bin_dir)
        .with_context(|| format!("cannot create {}", bin_dir.display()))?;
    let exe = bin_dir.join(&b.bin);
    let tmp = bin_dir.join(format!(".{}.tmp{}", b.bin, std::process::id()));
    std::fs::copy(&built, &tmp)
        .with_context(|| format!("cannot copy {} to {}", built.display(), tmp.display()))?;
    std::fs::rename(&tmp, &exe).with_context(|| format!("cannot write {}", exe.display()))?;
    say(&format!(
        "{}: built in {build_seconds:.0} s: {}",
        spec.label,
        exe.display()
    ));
    // Its protocol; the revision is the one it was built from (the binary embeds it without
    // `+dirty`, so that both sides' binaries hold strings of one length).
    check_protocol(&exe, &spec.describe())?;
    let (link, layouts_note) = match link {
        Ok(dir) => (Some(dir), None),
        Err(why) => (None, Some(why)),
    };
    Ok(SideRecord {
        label: spec.label,
        describe: spec.describe(),
        commit: spec.commit().to_string(),
        key: staged.key.clone(),
        source_dir: staged.src.display().to_string(),
        exe: exe.display().to_string(),
        git_rev: side_rev(spec),
        patches: staged.patches.clone(),
        build_seconds,
        notes: staged.notes.clone(),
        link,
        layouts_note,
        layouts: Vec::new(),
    })
}

/// One `cargo build` of a side in its target folder, keeping the measured binary's link in
/// `keep` when `tools` are given.
fn cargo_build(
    staged: &Staged,
    cache: &Path,
    args: &[String],
    target: &Path,
    tools: Option<&Tools>,
    keep: &Path,
    show_cargo: bool,
) -> Result<()> {
    let spec = &staged.spec;
    let b = &spec.build;
    let mut cmd = Command::new("cargo");
    let dir = staged.src.join(&b.dir);
    cmd.current_dir(&dir)
        // As a shell in that folder would: the engines crate's build script finds the side's
        // Cargo.lock from it (engines/build.rs), its target folder being in the cache.
        .env("PWD", &dir)
        .env("CARGO_TARGET_DIR", target)
        .env("SERPROF_BUILD_REV", build_rev(spec))
        // serprof's build script asks git for the revision of the source it compiles (a side's
        // own revision is SERPROF_BUILD_REV, read where `serprof::main!` expands; older
        // revisions' build scripts read it too): keep git from finding the repository the
        // cache may sit in (it would name that one's HEAD).
        .env("GIT_CEILING_DIRECTORIES", cache.join("src"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if show_cargo {
        cmd.stderr(Stdio::inherit());
    }
    for p in &spec.patches {
        cmd.arg("--config").arg(p.cargo_config());
    }
    if let Some(tools) = tools {
        cmd.envs(tools.env(&b.bin, keep, target, b.align));
    }
    let out = cmd.output().context("cannot run cargo")?;
    if !out.status.success() {
        let first =
            patches::cargo_error(&out.stderr).unwrap_or_else(|| "see cargo's output above".into());
        anyhow::bail!(
            "the {} side ({}) does not build: {first} (source in {})",
            spec.label,
            spec.describe(),
            staged.src.display()
        );
    }
    Ok(())
}

/// The revision a side's binary embeds (`SERPROF_BUILD_REV`, read where `serprof::main!`
/// expands: the copy has no `.git` of its own): the commit and `+patched`, never `+dirty`, so
/// that a working tree and its HEAD embed strings of one length.
fn build_rev(spec: &SideSpec) -> String {
    let patched = !spec.patches.is_empty();
    format!(
        "{}{}",
        short(spec.commit()),
        if patched { "+patched" } else { "" }
    )
}

/// The revision the record names a side by: the built revision, `+dirty` for the working tree.
fn side_rev(spec: &SideSpec) -> String {
    let rev = build_rev(spec);
    match spec.source {
        Checkout::WorkingTree { .. } => match rev.split_once('+') {
            Some((commit, rest)) => format!("{commit}+dirty+{rest}"),
            None => format!("{rev}+dirty"),
        },
        Checkout::Revision { .. } => rev,
    }
}

/// The identity of a side's built binary: its worker protocol must be this serprof's (a
/// binary without the `__protocol` command reports none), and its revision names the side.
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

/// Writes `text` to stderr as one progress line (`before-after: ...`).
pub(crate) fn stderr_line(text: &str) {
    let _ = writeln!(std::io::stderr(), "before-after: {text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in binary that prints `identity` when asked `__protocol`.
    fn fake_binary(dir: &Path, identity: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let exe = dir.join("serprof");
        std::fs::write(&exe, format!("#!/bin/sh\necho '{identity}'\n")).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    }

    #[test]
    fn a_side_of_another_protocol_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let other = fake_binary(
            dir.path(),
            &format!(
                r#"{{"protocol":{},"serprof_version":"0.1.0","git_rev":"abc1234"}}"#,
                PROTOCOL - 1
            ),
        );
        let e = check_protocol(&other, "HEAD~9 (abc1234)").unwrap_err();
        assert!(crate::error::exit_code_of(&e) == 2, "a misuse: {e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("speaks worker protocol {}", PROTOCOL - 1))
                && text.contains(&format!("drives protocol {PROTOCOL}")),
            "{text}"
        );
        let silent = fake_binary(dir.path(), "");
        let e = check_protocol(&silent, "HEAD~99 (def5678)").unwrap_err();
        assert!(e.to_string().contains("too old for before-after"), "{e}");
        let same = fake_binary(
            dir.path(),
            &format!(r#"{{"protocol":{PROTOCOL},"serprof_version":"0.1.0","git_rev":"x"}}"#),
        );
        assert_eq!(check_protocol(&same, "HEAD").unwrap().git_rev, "x");
    }

    /// A package named serprof in `dir` with an engine feature, its driver's, and (with
    /// `studies`) the studies binary and its feature.
    fn serprof_package(dir: &Path, studies: bool) {
        std::fs::create_dir_all(dir.join("src/bin")).unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        let mut manifest = String::from(
            "[package]\nname = \"serprof\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [[bin]]\nname = \"serprof\"\npath = \"src/main.rs\"\nrequired-features = [\"driver\"]\n\n",
        );
        let mut features =
            "default = [\"driver\"]\ndriver = []\npostcard = []\nrsb = []\n".to_string();
        if studies {
            std::fs::write(dir.join("src/bin/serprof-studies.rs"), "fn main() {}\n").unwrap();
            manifest.push_str(&format!(
                "[[bin]]\nname = \"{STUDIES_BIN}\"\npath = \"src/bin/serprof-studies.rs\"\n\
                 required-features = [\"{STUDIES_FEATURE}\"]\n\n"
            ));
            features.push_str(&format!("{STUDIES_FEATURE} = []\n"));
        }
        manifest.push_str("[features]\n");
        manifest.push_str(&features);
        manifest.push_str("\n[workspace]\n");
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    }

    #[test]
    fn an_older_serprof_without_the_studies_binary_builds_its_driver() {
        let dir = tempfile::tempdir().unwrap();
        let wanted = BuildTarget {
            bin: STUDIES_BIN.into(),
            ..BuildTarget::serprof(Some(
                ["postcard", "rsb", STUDIES_FEATURE]
                    .map(String::from)
                    .into(),
            ))
        };
        let older = dir.path().join("older");
        serprof_package(&older, false);
        let mut notes = Vec::new();
        let built = with_existing_features(&older, &[], &wanted, &mut notes).unwrap();
        assert_eq!(built.bin, "serprof");
        assert_eq!(
            built.features,
            Some(["postcard", "rsb", DRIVER_FEATURE].map(String::from).into())
        );
        assert!(notes[0].contains("no serprof-studies binary"), "{notes:?}");

        let current = dir.path().join("current");
        serprof_package(&current, true);
        let mut notes = Vec::new();
        let built = with_existing_features(&current, &[], &wanted, &mut notes).unwrap();
        assert_eq!(built, wanted);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn keys_name_the_source_and_the_patches() {
        let repo = Path::new("/r");
        let rev = |sha: &str| SideSpec {
            label: Side::Before,
            source: Checkout::Revision {
                spec: "HEAD".into(),
                sha: sha.into(),
            },
            patches: Vec::new(),
            build: BuildTarget::serprof(None),
        };
        let a = rev("0123456789abcdef0123");
        assert_eq!(a.name(repo), "rev-0123456789ab");
        assert_eq!(a.key(repo), rev("0123456789abcdef0123").key(repo));
        // Every key has one length: a side's paths are as long as any other side's.
        let tree = SideSpec {
            source: Checkout::WorkingTree {
                head: "0123456789abcdef0123".into(),
            },
            ..rev("0123456789abcdef0123")
        };
        assert_ne!(tree.key(repo), a.key(repo));
        assert_eq!(tree.key(repo).len(), a.key(repo).len());
        assert!(tree.name(repo).starts_with("worktree-"));
        let mut patched = rev("0123456789abcdef0123");
        patched.patches.push(Patch {
            krate: "base64".into(),
            path: "/x".into(),
        });
        assert!(patched.name(repo).starts_with("rev-0123456789ab-patch-"));
        assert_ne!(patched.key(repo), a.key(repo));
        assert_eq!(patched.key(repo).len(), a.key(repo).len());
        assert_eq!(a.describe(), "HEAD (0123456)");
        let mut lean = rev("0123456789abcdef0123");
        lean.build.features = Some(vec!["postcard".into()]);
        assert!(lean.name(repo).starts_with("rev-0123456789ab-feat-"));
        let mut theirs = rev("0123456789abcdef0123");
        theirs.build = BuildTarget {
            package: "mine".into(),
            bin: "mine".into(),
            dir: "crates/mine".into(),
            features: None,
            align: false,
        };
        assert!(theirs.name(repo).starts_with("rev-0123456789ab-bin-"));
        let mut aligned = rev("0123456789abcdef0123");
        aligned.build.align = true;
        assert!(aligned.name(repo).ends_with("-align"));
        assert_ne!(aligned.key(repo), a.key(repo));
        assert_eq!(patched.describe(), "HEAD (0123456) + base64 from /x");
    }
}
