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
    let rev = output("git", &["rev-parse", "--short=7", "HEAD"]).unwrap_or_else(|| "nogit".into());
    let dirty = output("git", &["status", "--porcelain", "--untracked-files=no"]).is_some();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!(
        "cargo:rustc-env=SERPROF_GIT_REV={rev}{}",
        if dirty { "+dirty" } else { "" }
    );
    println!("cargo:rustc-env=SERPROF_RUSTC={rustc_version}");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/index");
}
