//! Embeds the git revision, the compiler version, and how the build was made (frame pointers,
//! debug info, optimisation, target features), which every run's manifest records and which
//! decide whether profiles can be trusted.

use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    // `serprof before-after` builds copies of the source without a `.git` of their own and
    // names the revision it built in `SERPROF_BUILD_REV`, which `serprof::main!` reads where it
    // expands (the measuring crate): this script never reads it, so that serprof's library is
    // the same in every side of a crate of one's own and compiles once. In such a copy git
    // finds no repository (before-after sets `GIT_CEILING_DIRECTORIES`): `nogit`.
    let rev = output("git", &["rev-parse", "--short=7", "HEAD"]).unwrap_or_else(|| "nogit".into());
    // Without optional locks, `git status` leaves the index as it is: refreshed, its newer
    // modification time would make cargo run this script again on the next build, and
    // rebuild the harness each time.
    let dirty = output(
        "git",
        &[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=no",
        ],
    )
    .is_some();
    let rev = format!("{rev}{}", if dirty { "+dirty" } else { "" });
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SERPROF_GIT_REV={rev}");
    println!("cargo:rustc-env=SERPROF_RUSTC={rustc_version}");
    build_flags();
    for path in watched() {
        println!("cargo:rerun-if-changed={path}");
    }
}

/// What the revision and its `+dirty` mark depend on: git's own files for HEAD, the branch it
/// names, the packed refs and the index, asked of git (in a worktree `.git` is a file and they
/// live elsewhere), and the workspace's sources (an edit makes the tree dirty). Only paths that
/// exist: cargo reruns a build script on every build when one is missing, which would rebuild
/// the harness each time in a copy without `.git`.
fn watched() -> Vec<String> {
    let branch = output("git", &["symbolic-ref", "-q", "HEAD"]);
    let git_files = ["HEAD", "index", "packed-refs"].map(String::from);
    let mut paths: Vec<String> = branch
        .into_iter()
        .chain(git_files)
        .filter_map(|name| {
            output(
                "git",
                &["rev-parse", "--path-format=absolute", "--git-path", &name],
            )
        })
        .collect();
    let sources = [
        "src",
        "Cargo.toml",
        "../api/src",
        "../engines/src",
        "../Cargo.lock",
    ];
    paths.extend(sources.map(String::from));
    paths.retain(|p| std::path::Path::new(p).exists());
    paths
}

/// How this build is made: the same rustflags apply to every crate of a build (serprof's and
/// the crate that depends on it), and the profile's debug setting to serprof's own code.
fn build_flags() {
    let flags: Vec<String> = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .split('\x1f')
        .map(str::to_string)
        .collect();
    let frame_pointers = flags
        .windows(2)
        .any(|w| w[0] == "-C" && w[1] == "force-frame-pointers=yes")
        || flags.iter().any(|f| f == "-Cforce-frame-pointers=yes");
    let debug = std::env::var("DEBUG").unwrap_or_default();
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    println!(
        "cargo:rustc-env=SERPROF_FRAME_POINTERS={}",
        if frame_pointers { "yes" } else { "no" }
    );
    println!("cargo:rustc-env=SERPROF_DEBUG_INFO={debug}");
    println!("cargo:rustc-env=SERPROF_OPT_LEVEL={opt}");
    println!("cargo:rustc-env=SERPROF_TARGET_FEATURES={features}");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
}
