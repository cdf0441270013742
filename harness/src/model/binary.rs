//! The binary a run is measured by: serprof's own, or a user's crate that calls
//! `serprof::main!`; its revision; and how it was built (the flags that decide whether its
//! profiles can be trusted).

use serde::{Deserialize, Serialize};

/// The package and binary target that measure (they build their own side in `before-after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binary {
    /// The cargo package (`CARGO_PKG_NAME` where `serprof::main!` expands).
    pub package: &'static str,
    /// The binary target (`CARGO_BIN_NAME`).
    pub bin: &'static str,
    /// The package's folder when it was built (`CARGO_MANIFEST_DIR`).
    pub manifest_dir: &'static str,
    /// The revision `before-after` gave its build (`SERPROF_BUILD_REV` where `serprof::main!`
    /// expands, so that only the measuring crate, not serprof's library, compiles again for
    /// each side), `None` in any other build.
    pub built_rev: Option<&'static str>,
}

impl Binary {
    /// serprof's own binary.
    pub const SERPROF: Binary = Binary {
        package: "serprof",
        bin: "serprof",
        manifest_dir: env!("CARGO_MANIFEST_DIR"),
        built_rev: None,
    };

    /// Whether this is serprof's own binary (whose revision is serprof's).
    pub fn is_serprof(&self) -> bool {
        self.package == Binary::SERPROF.package && self.manifest_dir == Binary::SERPROF.manifest_dir
    }
}

/// The revision serprof itself was built from (`+dirty` when its tree had changes).
const SERPROF_REV: &str = env!("SERPROF_GIT_REV");

/// The revision of the binary that measures: the one `before-after` gave its build, serprof's
/// own for serprof's binary, else the user's repository's HEAD, read from the package's folder
/// (`nogit` when it has none).
pub(super) fn git_rev_of(b: &Binary) -> String {
    if let Some(rev) = b.built_rev.filter(|r| !r.is_empty()) {
        return rev.to_string();
    }
    if b.is_serprof() {
        return SERPROF_REV.to_string();
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(b.manifest_dir)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=7", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!("{rev}{}", if dirty { "+dirty" } else { "" })
        }
        _ => "nogit".into(),
    }
}

/// How the build was made. The rustflags are the build's, for every crate in it; debug info
/// and the optimisation level are those of serprof's own code (its package's profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// `-C force-frame-pointers=yes` was in the build's rustflags: allocation stacks (walked
    /// by frame pointers) can be sampled.
    pub frame_pointers: bool,
    /// The profile had debug info: flame graphs have inlined frames and source files.
    pub debug_info: bool,
    /// The profile's optimisation level.
    pub opt_level: String,
    /// The target features the code was compiled for (`avx2`, `pclmulqdq`, ...).
    pub target_features: Vec<String>,
    /// The allocators `run --allocators` can choose in it (`system` and the features it was
    /// built with); empty from a program that does not say.
    #[serde(default)]
    pub allocators: Vec<String>,
}

impl BuildInfo {
    /// This binary's.
    pub fn this() -> BuildInfo {
        BuildInfo {
            frame_pointers: env!("SERPROF_FRAME_POINTERS") == "yes",
            debug_info: env!("SERPROF_DEBUG_INFO") == "true",
            opt_level: env!("SERPROF_OPT_LEVEL").to_string(),
            target_features: env!("SERPROF_TARGET_FEATURES")
                .split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect(),
            allocators: super::allocator::Allocator::ALL
                .into_iter()
                .filter(|a| a.compiled())
                .map(|a| a.name().to_string())
                .collect(),
        }
    }

    /// What the build lacks for honest profiles, one line each, with the fix.
    pub fn shortcomings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.frame_pointers {
            out.push("built without frame pointers: allocation stacks are not sampled (counts still are); add `rustflags = [\"-C\", \"force-frame-pointers=yes\"]` under [build] in .cargo/config.toml, or `-C force-frame-pointers=yes` to a RUSTFLAGS set in the environment (it replaces the config's flags)".to_string());
        }
        if !self.debug_info {
            out.push("built without debug info: flame graphs lack inlined frames and source files; add `debug = \"limited\"` (or more) under [profile.release] in Cargo.toml".to_string());
        }
        #[cfg(target_arch = "x86_64")]
        if !self.target_features.iter().any(|f| f == "avx2")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("pclmulqdq")
        {
            out.push("built without AVX2 and PCLMULQDQ although this CPU has them: sonic-rs runs its portable fallback instead of the SIMD code its authors ship; add \"-C\", \"target-cpu=x86-64-v3\", \"-C\", \"target-feature=+pclmulqdq\" to rustflags in .cargo/config.toml".to_string());
        }
        if self.opt_level == "0" {
            out.push(
                "built without optimisation: times measure a debug build; run with --release"
                    .to_string(),
            );
        }
        out
    }
}

/// How a side's layouts differ from the binary cargo linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "driver", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum LayoutMode {
    /// Code, read-only data and data each moved by a random multiple of 16 bytes below 4 KiB
    /// (a padding object linked first), the order of everything kept: what an edit above the
    /// measured code does to it. Needs only an assembler (`cc -c`); any linker.
    Shift,
    /// Every section in a random order (the linker's `--shuffle-sections`): layouts far apart,
    /// hot functions split up. LLD or mold only.
    Shuffle,
    /// Both: the padding object of `shift` and the section order of `shuffle`, so that each
    /// layout moves the order of functions (what an edit to a crate whose generic code is
    /// instantiated in it can do to exactly the code measured) and their offsets. With a
    /// linker that cannot shuffle (GNU ld, gold), `shift` alone, and the record says so.
    #[default]
    Both,
}

impl LayoutMode {
    /// Its name, as `--layout-mode` and the record spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutMode::Shift => "shift",
            LayoutMode::Shuffle => "shuffle",
            LayoutMode::Both => "both",
        }
    }

    /// Whether its layouts link the padding object first.
    pub fn pads(self) -> bool {
        matches!(self, LayoutMode::Shift | LayoutMode::Both)
    }

    /// Whether its layouts shuffle the sections.
    pub fn shuffles(self) -> bool {
        matches!(self, LayoutMode::Shuffle | LayoutMode::Both)
    }
}

/// One layout of a build: its binary linked again, by `mode` with `seed` (a before-after
/// side's, or a run's with `--layouts`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// `shift` (code, read-only data and data moved by `shifts` bytes) or `shuffle` (every
    /// section in the order the linker's shuffle with `seed` gives).
    pub mode: LayoutMode,
    pub seed: u64,
    /// The bytes of padding before the code, the read-only data and the data (`shift`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shifts: Option<[u64; 3]>,
    pub exe: String,
}
