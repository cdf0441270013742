//! Embeds the git revision and the compiler version, which every run's manifest records.

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
    // names the revision it built here.
    let given = std::env::var("SERPROF_BUILD_REV")
        .ok()
        .filter(|s| !s.is_empty());
    let rev = given.clone().unwrap_or_else(|| {
        let rev =
            output("git", &["rev-parse", "--short=7", "HEAD"]).unwrap_or_else(|| "nogit".into());
        let dirty = output("git", &["status", "--porcelain", "--untracked-files=no"]).is_some();
        format!("{rev}{}", if dirty { "+dirty" } else { "" })
    });
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SERPROF_GIT_REV={rev}");
    println!("cargo:rustc-env=SERPROF_RUSTC={rustc_version}");
    println!("cargo:rerun-if-env-changed=SERPROF_BUILD_REV");
    // Only paths that exist: cargo reruns a build script on every build when one is missing,
    // which would rebuild the harness each time in a copy without `.git`.
    for path in ["../.git/HEAD", "../.git/index"] {
        if given.is_none() && std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
