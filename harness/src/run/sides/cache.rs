//! The before-after build cache: where it is, each side's own target folder seeded with
//! compiled dependencies, pruning, and the lock two invocations share.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::misuse;

/// The default cache: `$SERPROF_BA_CACHE`, else `$XDG_CACHE_HOME/serprof/before-after` (or
/// `~/.cache/...`). Not inside the repository: cargo merges the `.cargo/config.toml` of every
/// folder above the one it builds in, so a side built under the repository would get the
/// repository's `rustflags` twice and compile every dependency anew (see [`check_cache`]).
pub(crate) fn default_cache() -> PathBuf {
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
/// cargo would merge that file into every side's build; so is a size limit that does not read.
pub(crate) fn check_cache(cache: &Path) -> Result<()> {
    // A limit that does not read is a misuse before anything is built.
    cache_limit()?;
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

/// How many side target folders the cache keeps (the least recently built go first).
const KEPT_TARGETS: usize = 6;

/// A side's own target folder: `<cache>/target/<key>`. Sides cannot share one: cargo names the
/// two workspace crates' units the same in every copy of the workspace (their hash and
/// fingerprint do not depend on the folder), so in a shared folder a side whose files are
/// older than another side's last build is "fresh" and gets that side's code: an after side
/// whose one change is a function added to a codec would link the before side's engines and
/// count exactly the same instructions.
pub(crate) fn side_target(cache: &Path, key: &str) -> PathBuf {
    cache.join("target").join(key)
}

/// Whether a file of a target folder belongs to one of the source's own packages, named in
/// `units` (their units are the same in every copy of the source, so they must never be
/// copied between folders): `<name>-<hash>...`, `lib<name>-<hash>.rlib`, `<name>.d`.
pub(super) fn is_workspace_unit(file: &str, units: &[String]) -> bool {
    let file = file.strip_prefix("lib").unwrap_or(file);
    units.iter().any(|u| {
        file.strip_prefix(u.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
    })
}

/// Seeds a side's empty target folder with compiled dependencies
/// (`release/{deps,build,.fingerprint}`, the source's own packages `units` and the seed's
/// executables left out; the compiled libraries hard-linked, the rest copied),
/// so that its build compiles only those: cargo's fingerprints of registry crates do
/// not depend on where the target folder is. The source is the repository's own release build,
/// the one this serprof binary belongs to, or another side's folder in the cache. Best effort:
/// without any, or when the copy fails, cargo compiles everything.
pub(super) fn seed_target(
    repo: &Path,
    cache: &Path,
    target: &Path,
    (units, build): (&[String], &str),
    say: &dyn Fn(&str),
) {
    // What the folder builds, for the next side's choice of a folder to seed from.
    let _ = std::fs::create_dir_all(target)
        .and_then(|()| std::fs::write(target.join(BUILD_FILE), build_part(build)));
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
    // Another side built with the same target and features compiled the same dependencies
    // (features unify across them): it comes first.
    let same_build = |d: &PathBuf| {
        d.parent()
            .and_then(|k| std::fs::read_to_string(k.join(BUILD_FILE)).ok())
            .is_some_and(|b| b == build_part(build))
    };
    let (alike, unlike): (Vec<_>, Vec<_>) = others
        .into_iter()
        .rev()
        .map(|(_, d)| d)
        .partition(same_build);
    let Some(from) = alike
        .into_iter()
        .chain(std::iter::once(repo.join("target").join("release")))
        .chain(own)
        .chain(unlike)
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
    // Compiled libraries are hard links: a side holds its own units, not another copy of every
    // dependency (rustc writes a library it compiles again to a new file and renames it into
    // place, so a side never changes the seed's).
    if !link_compiled(&from.join("deps"), &to.join("deps"), units) {
        say("could not copy the dependencies; cargo compiles them");
        let _ = std::fs::remove_dir_all(&to);
        return;
    }
    for part in ["build", ".fingerprint"] {
        if !copy_into(&from.join(part), &to) {
            say("could not copy the dependencies; cargo compiles them");
            let _ = std::fs::remove_dir_all(&to);
            return;
        }
        for e in std::fs::read_dir(to.join(part))
            .into_iter()
            .flatten()
            .flatten()
        {
            if is_workspace_unit(&e.file_name().to_string_lossy(), units) {
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

/// Fills `to` with `from`'s files except the source's own `units` and executables: compiled
/// libraries (`.rlib`, `.rmeta`, `.so`) as hard links (copies when `to` is on another file
/// system), dep-info (`.d`, which rustc rewrites in place) copied with its modification time.
/// The executables (`<target>-<hash>`, no extension: the seed's test and binary targets) are
/// no side's dependency, and in a workspace's test build they are gigabytes (each links the
/// whole program with its debug information). Whether it all worked.
fn link_compiled(from: &Path, to: &Path, units: &[String]) -> bool {
    let copy = |src: &Path, dst: &Path| -> std::io::Result<()> {
        std::fs::copy(src, dst)?;
        let modified = std::fs::metadata(src)?.modified()?;
        std::fs::File::options()
            .write(true)
            .open(dst)?
            .set_modified(modified)
    };
    let Ok(entries) = std::fs::read_dir(from) else {
        return false;
    };
    if std::fs::create_dir_all(to).is_err() {
        return false;
    }
    entries.flatten().all(|e| {
        let name = e.file_name();
        let (src, dst) = (e.path(), to.join(&name));
        if is_workspace_unit(&name.to_string_lossy(), units) {
            return true;
        }
        if src.is_dir() {
            return copy_into(&src, to);
        }
        let Some(extension) = src.extension() else {
            return true;
        };
        let library = matches!(extension.to_str(), Some("rlib" | "rmeta" | "so"));
        (library && std::fs::hard_link(&src, &dst).is_ok()) || copy(&src, &dst).is_ok()
    })
}

/// `cp -a` of `src` into the folder `dir` (reflinks where the file system has them); whether
/// it worked.
fn copy_into(src: &Path, dir: &Path) -> bool {
    Command::new("cp")
        .args(["-a", "--reflink=auto"])
        .arg(src)
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success())
}

/// The file in a side's target folder that holds the [`build_part`] of its side's name.
const BUILD_FILE: &str = ".serprof-build";

/// The part of a side's name (`SideSpec::name`) that says what is built (`-bin-...`,
/// `-feat-...`, `-align`), not from which source or with which patches.
fn build_part(key: &str) -> &str {
    [key.find("-bin-"), key.find("-feat-"), key.find("-align")]
        .into_iter()
        .flatten()
        .min()
        .map_or("", |i| &key[i..])
}

/// The cache's size limit by default, in GiB (`SERPROF_BA_CACHE_LIMIT_GIB` sets another).
pub(crate) const DEFAULT_CACHE_LIMIT_GIB: f64 = 12.0;

/// The cache's size limit in bytes: `SERPROF_BA_CACHE_LIMIT_GIB`, else
/// [`DEFAULT_CACHE_LIMIT_GIB`]; a value that is not a positive number is a misuse.
pub(crate) fn cache_limit() -> Result<u64> {
    let gib = match std::env::var("SERPROF_BA_CACHE_LIMIT_GIB") {
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(g) if g > 0.0 && g.is_finite() => g,
            _ => misuse!("SERPROF_BA_CACHE_LIMIT_GIB={v:?} is not a positive number of GiB"),
        },
        Err(_) => DEFAULT_CACHE_LIMIT_GIB,
    };
    Ok((gib * (1u64 << 30) as f64) as u64)
}

/// Bytes on disk under `dirs`, each file counted once however many hard links it has (a side's
/// kept link hard-links its target folder's object files).
fn disk_usage(dirs: &[PathBuf], seen: &mut std::collections::HashSet<(u64, u64)>) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(m) = std::fs::symlink_metadata(&d) else {
            continue;
        };
        if seen.insert((m.dev(), m.ino())) {
            total += m.blocks() * 512;
        }
        if m.is_dir() {
            stack.extend(
                std::fs::read_dir(&d)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
    }
    total
}

/// Removes the least recently built sides, each with what belongs to it (its target folder,
/// its kept link `link/<key>`, whose hard links would otherwise hold the removed folder's files
/// on disk, and its binaries `bin/<key>`), while there are more than [`KEPT_TARGETS`] or the
/// cache holds more than `limit` bytes. Never `keep`, nor the most recently built side besides
/// it (the other side of the before-after being built). A side's staged source (`src/<key>`)
/// stays: a side staged in this run may not be built yet, and a source is small.
pub(super) fn prune_targets(cache: &Path, keep: &Path, limit: u64) {
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(cache.join("target"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|d| d.is_dir() && d != keep)
        .filter_map(|d| Some((std::fs::metadata(&d).ok()?.modified().ok()?, d)))
        .collect();
    dirs.sort();
    // The newest other side stays whatever the limit.
    dirs.pop();
    let parts = |key: &std::ffi::OsStr| -> Vec<PathBuf> {
        ["target", "link", "bin"]
            .iter()
            .map(|p| cache.join(p).join(key))
            .collect()
    };
    // Sides share their dependencies' libraries (hard links): removing one frees only what no
    // other holds, so the cache is measured again after each removal.
    let usage = || {
        disk_usage(
            &["target", "link", "bin", "src"].map(|p| cache.join(p)),
            &mut Default::default(),
        )
    };
    let mut total = usage();
    let mut count = dirs.len() + 2;
    for (_, d) in dirs {
        if count <= KEPT_TARGETS && total <= limit {
            break;
        }
        let Some(key) = d.file_name() else {
            continue;
        };
        for part in parts(key) {
            let _ = std::fs::remove_dir_all(part);
        }
        total = usage();
        count -= 1;
    }
}

/// An exclusive lock (`flock`) on a file of the cache: `src/.<key>.lock` while a side's source
/// is staged or built, `.build.lock` while a side is built and its binary copied out (the next
/// build overwrites `target/release/serprof`).
pub(super) struct CacheLock(std::fs::File);

impl CacheLock {
    pub(super) fn take(path: &Path) -> Result<CacheLock> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeding_never_copies_the_sources_own_units() {
        let units: Vec<String> = ["serprof", "serprof-engines", "serprof_engines", "readings"]
            .map(String::from)
            .into();
        for own in [
            "serprof-4c961156ba844831",
            "serprof-engines-12b1c8903ad5090a",
            "libserprof_engines-10e3e37fcd462518.rlib",
            "serprof_engines-10e3e37fcd462518.d",
            "libserprof-0a1b.rlib",
            "serprof",
            "readings-77aa",
        ] {
            assert!(is_workspace_unit(own, &units), "{own}");
        }
        for dep in [
            "serde-1a2b",
            "libserde_json-3c4d.rlib",
            "sonic-rs-9f",
            "libc-77",
            "serprofx-1",
        ] {
            assert!(!is_workspace_unit(dep, &units), "{dep}");
        }
    }

    #[test]
    fn seeding_links_libraries_and_copies_dep_info() {
        use std::os::unix::fs::MetadataExt;
        let dir = std::env::temp_dir().join(format!("serprof-seed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (from, to) = (dir.join("from"), dir.join("to"));
        std::fs::create_dir_all(&from).unwrap();
        let files = [
            "libserde-1a.rlib",
            "libserde-1a.rmeta",
            "libserde_derive-2b.so",
            "serde-1a.d",
            "libreadings-3c.rlib",
            "before_after-4d",
        ];
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for f in files {
            std::fs::write(from.join(f), f).unwrap();
            std::fs::File::options()
                .write(true)
                .open(from.join(f))
                .and_then(|h| h.set_modified(old))
                .unwrap();
        }
        assert!(link_compiled(&from, &to, &["readings".to_string()]));
        let ino = |p: PathBuf| std::fs::metadata(p).unwrap().ino();
        for lib in &files[..3] {
            assert_eq!(
                ino(from.join(lib)),
                ino(to.join(lib)),
                "{lib} is a hard link"
            );
        }
        let dep_info = to.join("serde-1a.d");
        assert_ne!(ino(from.join("serde-1a.d")), ino(dep_info.clone()));
        assert_eq!(std::fs::read_to_string(&dep_info).unwrap(), "serde-1a.d");
        assert_eq!(
            std::fs::metadata(&dep_info).unwrap().modified().unwrap(),
            old
        );
        assert!(
            !to.join("libreadings-3c.rlib").exists(),
            "the source's own unit"
        );
        assert!(!to.join("before_after-4d").exists(), "an executable");
        assert!(!link_compiled(&dir.join("absent"), &to, &[]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pruning_removes_a_side_with_its_kept_link_and_binary() {
        let cache = std::env::temp_dir().join(format!("serprof-prune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cache);
        let keys: Vec<String> = (0..KEPT_TARGETS + 2).map(|i| format!("side-{i}")).collect();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for (i, key) in keys.iter().enumerate() {
            for part in ["target", "link", "bin", "src"] {
                std::fs::create_dir_all(cache.join(part).join(key)).unwrap();
                std::fs::write(cache.join(part).join(key).join("f"), key).unwrap();
            }
            // Built in the order of their names.
            let when = old + std::time::Duration::from_secs(i as u64);
            std::fs::File::open(cache.join("target").join(key))
                .and_then(|f| f.set_modified(when))
                .unwrap();
        }
        // The oldest is the one being built: never removed.
        let keep = cache.join("target").join(&keys[0]);
        prune_targets(&cache, &keep, u64::MAX);
        let present = |part: &str, key: &str| cache.join(part).join(key).exists();
        assert!(present("target", &keys[0]) && present("link", &keys[0]));
        // Two of the other seven go: six are kept, the one being built included.
        for key in &keys[1..3] {
            for part in ["target", "link", "bin"] {
                assert!(!present(part, key), "{part}/{key} stays");
            }
            assert!(present("src", key), "src/{key} is removed");
        }
        for key in &keys[3..] {
            for part in ["target", "link", "bin", "src"] {
                assert!(present(part, key), "{part}/{key} is removed");
            }
        }
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn pruning_keeps_the_cache_under_its_limit_and_counts_hard_links_once() {
        let cache = tempfile::tempdir().unwrap();
        let cache = cache.path();
        let keys: Vec<String> = (0..4).map(|i| format!("side-{i}")).collect();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let block = vec![7u8; 64 << 10];
        for (i, key) in keys.iter().enumerate() {
            for part in ["target", "bin", "src"] {
                std::fs::create_dir_all(cache.join(part).join(key)).unwrap();
                std::fs::write(cache.join(part).join(key).join("f"), &block).unwrap();
            }
            // The kept link holds hard links to the target folder's files.
            std::fs::create_dir_all(cache.join("link").join(key)).unwrap();
            std::fs::hard_link(
                cache.join("target").join(key).join("f"),
                cache.join("link").join(key).join("f"),
            )
            .unwrap();
            let when = old + std::time::Duration::from_secs(i as u64);
            std::fs::File::open(cache.join("target").join(key))
                .and_then(|f| f.set_modified(when))
                .unwrap();
        }
        let usage = |dirs: &[PathBuf]| disk_usage(dirs, &mut Default::default());
        let side = |k: &str| ["target", "link", "bin"].map(|p| cache.join(p).join(k));
        let dirs = usage(&[cache.join("target").join(&keys[3])]) - (64 << 10);
        assert_eq!(
            usage(&side(&keys[0])),
            2 * (64 << 10) + 3 * dirs,
            "a hard link counts once"
        );
        let all = ["target", "link", "bin", "src"].map(|p| cache.join(p));
        let total = usage(&all);
        // Under the limit once the oldest side goes; the newest (being built) and the one
        // before it (the other side) stay whatever the limit.
        prune_targets(
            cache,
            &cache.join("target").join(&keys[3]),
            total - (64 << 10),
        );
        assert!(!cache.join("target").join(&keys[0]).exists());
        assert!(!cache.join("link").join(&keys[0]).exists());
        assert!(cache.join("target").join(&keys[1]).exists());
        prune_targets(cache, &cache.join("target").join(&keys[3]), 1);
        assert!(!cache.join("target").join(&keys[1]).exists());
        for k in &keys[2..] {
            assert!(cache.join("target").join(k).exists(), "{k} stays");
        }
    }
}
