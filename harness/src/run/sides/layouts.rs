//! Layouts of one build: the measured binary linked again with its functions and data in
//! another order, at the cost of a link.
//!
//! A binary is one sample from the space of program layouts: where each function, constant and
//! table lands decides cache-set and branch-predictor conflicts, which move a configuration's
//! time by a few percent for no reason in the code. Any change moves every address after it,
//! so a before-after that times one layout per side cannot tell a change from its layout
//! effect. So each side is timed over several layouts ([`relink`]), and the interval of a
//! ratio spans them.
//!
//! How a relink costs a link and not a build:
//! - the side's `cargo build` runs with `RUSTC_WORKSPACE_WRAPPER` = [`RUSTC_WRAP`] (a script in
//!   the cache, at a fixed path: cargo hashes the wrapper into the workspace members' units,
//!   never into the dependencies', so the seeded dependencies stay fresh). For the measured
//!   binary's crate alone it adds `-C linker=` [`LINK_KEEP`]; every other invocation runs as
//!   cargo made it, and no flag of any crate changes (`RUSTFLAGS` would replace the user's
//!   `.cargo/config.toml` flags and rebuild every dependency).
//! - [`LINK_KEEP`] runs the real linker (the one cargo configured, else `cc`) with rustc's
//!   arguments, and keeps them with hard links to every input inside the target folder (rustc
//!   deletes its object files after linking; a rebuilt rlib is a new file, so the kept link
//!   holds the old one) in `link/<key>/`;
//! - [`relink`] runs that command again with the output moved and the linker's section
//!   shuffle added: LLD (`-fuse-ld=lld`, the default of Rust's x86_64 Linux target since 1.90,
//!   or `ld.lld`) as `--shuffle-sections=*=SEED`, mold as `--shuffle-sections=SEED`. GNU ld and
//!   gold have no such option: such a side is timed as cargo linked it, and the record says
//!   so. Seeds are nonzero (0 asks LLD for a random one) and recorded. The layouts are linked
//!   with `--strip-debug`: debug sections are not loaded, so the code and data layout is the
//!   same, and the links are smaller and quicker (profiles come from the binary cargo linked).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::analyze::before_after::{Side, SideRecord};
use crate::model::binary::{Layout, LayoutMode};

/// The workspace wrapper: the measured crate links through [`LINK_KEEP`]; `@ALIGN@` is `yes` in
/// the aligned wrapper ([`Tools::rustc_wrap_align`]), which compiles every workspace crate with
/// each function on a 64-byte boundary.
const RUSTC_WRAP: &str = r#"#!/bin/sh
# serprof before-after: cargo's RUSTC_WORKSPACE_WRAPPER for a side's build. The measured
# binary's crate (SERPROF_LINK_CRATE) links through serprof-link, which keeps what the link
# read. With align=yes every workspace crate puts each function on a 64-byte boundary.
align=@ALIGN@
rustc="$1"; shift
extra=
if [ $align = yes ]; then
  case " $* " in
    *" -vV "*|*" --print"*) ;;
    *) extra="-Cllvm-args=-align-all-functions=6" ;;
  esac
fi
if [ -n "$SERPROF_LINK_KEEP" ]; then
  name=no; bin=no; prev=; linker=
  for a in "$@"; do
    case "$prev" in
      --crate-name) [ "$a" = "$SERPROF_LINK_CRATE" ] && name=yes ;;
      --crate-type) [ "$a" = bin ] && bin=yes ;;
      -C) case "$a" in linker=*) linker="${a#linker=}" ;; esac ;;
    esac
    case "$a" in -Clinker=*) linker="${a#-Clinker=}" ;; esac
    prev="$a"
  done
  if [ $name = yes ] && [ $bin = yes ]; then
    SERPROF_LINK_REAL="${linker:-cc}"
    export SERPROF_LINK_REAL
    exec "$rustc" "$@" $extra -C "linker=$SERPROF_LINK_TOOL"
  fi
fi
exec "$rustc" "$@" $extra
"#;

/// The linker of the measured crate: links as asked, then keeps the command and its inputs.
const LINK_KEEP: &str = r#"#!/bin/sh
# serprof before-after: the linker of the measured binary. Links with the real linker
# (SERPROF_LINK_REAL), then keeps the arguments and hard links to every input inside the
# target folder (SERPROF_LINK_TARGET) in SERPROF_LINK_KEEP, so that serprof can link the same
# inputs again with another layout. A link whose arguments come in a response file is not kept.
keep="$SERPROF_LINK_KEEP"
new="$keep.new.$$"
rm -rf "$new" && mkdir -p "$new/in" || exit 1
n=0; prev=; out=; whole=yes
for a in "$@"; do
  [ "$prev" = -o ] && out="$a"
  prev="$a"
  case "$a" in
    @*) whole=no ;;
    "$SERPROF_LINK_TARGET"/*)
      if [ -f "$a" ]; then
        n=$((n+1)); k="in/$n-${a##*/}"
        ln "$a" "$new/$k" 2>/dev/null || cp "$a" "$new/$k" || whole=no
        a="$k"
      fi ;;
  esac
  printf '%s\n' "$a"
done > "$new/args" || whole=no
"$SERPROF_LINK_REAL" "$@" || { status=$?; rm -rf "$new"; exit $status; }
if [ $whole = yes ]; then
  printf '%s\n' "$SERPROF_LINK_REAL" > "$new/linker"
  printf '%s\n' "$out" > "$new/output"
  rm -rf "$keep" && mv "$new" "$keep"
else
  rm -rf "$new" "$keep"
fi
"#;

/// The wrapper scripts, written into `<cache>/tools/` (rewritten only when their text
/// differs, so that cargo sees the same wrapper from one invocation to the next).
pub(super) struct Tools {
    pub rustc_wrap: PathBuf,
    /// The same, compiling the workspace's crates with functions on 64-byte boundaries
    /// (`-C llvm-args=-align-all-functions=6`). A wrapper of its own: cargo hashes the wrapper
    /// into the units it wraps, so aligned and unaligned units never pass for each other.
    pub rustc_wrap_align: PathBuf,
    pub link_keep: PathBuf,
}

impl Tools {
    pub(super) fn install(cache: &Path) -> Result<Tools> {
        let dir = cache.join("tools");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let tools = Tools {
            rustc_wrap: dir.join("rustc-wrap"),
            rustc_wrap_align: dir.join("rustc-wrap-align"),
            link_keep: dir.join("serprof-link"),
        };
        write_script(&tools.rustc_wrap, &RUSTC_WRAP.replace("@ALIGN@", "no"))?;
        write_script(
            &tools.rustc_wrap_align,
            &RUSTC_WRAP.replace("@ALIGN@", "yes"),
        )?;
        write_script(&tools.link_keep, LINK_KEEP)?;
        Ok(tools)
    }

    /// The environment of a side's `cargo build` that keeps the link of `bin` in `keep`, with
    /// the workspace's functions aligned when `align`.
    pub(super) fn env(
        &self,
        bin: &str,
        keep: &Path,
        target: &Path,
        align: bool,
    ) -> Vec<(String, String)> {
        let s = |p: &Path| p.display().to_string();
        let wrap = match align {
            true => &self.rustc_wrap_align,
            false => &self.rustc_wrap,
        };
        vec![
            ("RUSTC_WORKSPACE_WRAPPER".into(), s(wrap)),
            ("SERPROF_LINK_TOOL".into(), s(&self.link_keep)),
            ("SERPROF_LINK_CRATE".into(), bin.replace('-', "_")),
            ("SERPROF_LINK_KEEP".into(), s(keep)),
            ("SERPROF_LINK_TARGET".into(), s(target)),
        ]
    }
}

fn write_script(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// A kept link: the command that linked a side's binary, with its inputs.
#[derive(Debug, Clone)]
pub(crate) struct KeptLink {
    pub dir: PathBuf,
    pub linker: String,
    pub args: Vec<String>,
    /// Where rustc wrote the binary (`target/release/deps/<crate>-<hash>`).
    pub output: PathBuf,
}

/// `mode`, or `shift` when it is `both` and a link's linker cannot shuffle sections (the
/// note says so).
pub(crate) fn linkable(
    mode: LayoutMode,
    kept: &[&KeptLink],
    notes: &mut Vec<String>,
) -> LayoutMode {
    if mode != LayoutMode::Both {
        return mode;
    }
    match kept.iter().map(|k| k.shuffle()).find_map(Result::err) {
        Some(cannot) => {
            notes.push(format!(
                "layouts shift code and data but keep the order of functions: {cannot}"
            ));
            LayoutMode::Shift
        }
        None => mode,
    }
}

/// The padding of a shifted layout: bytes before the code, the read-only data and the data,
/// each a multiple of 16 below 4096, from `seed`.
pub(crate) fn shifts(seed: u64) -> [u64; 3] {
    let mut rng = crate::model::stats::SplitMix64(seed);
    [0; 3].map(|_| (rng.next_u64() % 256) * 16)
}

/// The assembly of a padding object: sections kept by the linker's garbage collection
/// (`R`, SHF_GNU_RETAIN), placed where the object stands in the link order.
fn padding_asm(seed: u64) -> String {
    let [text, rodata, data] = shifts(seed);
    format!(
        "# serprof before-after: layout {seed}, everything after it moved\n\
         .section .text.serprof_pad,\"axR\",@progbits\n.fill {},1,0xcc\n\
         .section .rodata.serprof_pad,\"aR\",@progbits\n.fill {},1,0\n\
         .section .data.serprof_pad,\"awR\",@progbits\n.fill {},1,0\n\
         .section .note.GNU-stack,\"\",@progbits\n",
        text.max(1),
        rodata.max(1),
        data.max(1)
    )
}

/// How a linker shuffles sections, from its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shuffle {
    /// LLD through a compiler driver (`-fuse-ld=lld`): `-Wl,--shuffle-sections=*=SEED`.
    LldDriver,
    /// LLD called directly.
    Lld,
    /// mold through a compiler driver: `-Wl,--shuffle-sections=SEED`.
    MoldDriver,
}

impl KeptLink {
    /// The link kept in `dir`, if a whole one is there.
    pub(crate) fn read(dir: &Path) -> Option<KeptLink> {
        let line = |name: &str| {
            std::fs::read_to_string(dir.join(name))
                .ok()
                .map(|t| t.trim_end_matches('\n').to_string())
        };
        Some(KeptLink {
            dir: dir.to_path_buf(),
            linker: line("linker")?,
            args: line("args")?.lines().map(str::to_string).collect(),
            output: PathBuf::from(line("output")?),
        })
    }

    /// Whether this link made `binary` (cargo's copy or hard link of the output): the same
    /// length and the output not modified since the link was kept.
    pub(crate) fn made(&self, binary: &Path) -> bool {
        let (Ok(out), Ok(bin), Ok(kept)) = (
            std::fs::metadata(&self.output),
            std::fs::metadata(binary),
            std::fs::metadata(self.dir.join("output")),
        ) else {
            return false;
        };
        let modified = |m: &std::fs::Metadata| m.modified().ok();
        out.len() == bin.len() && modified(&out) <= modified(&kept) && modified(&out).is_some()
    }

    /// How this link's linker shuffles sections, or why it cannot.
    pub(crate) fn shuffle(&self) -> Result<Shuffle, LayoutError> {
        let name = Path::new(&self.linker)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let fuse = self
            .args
            .iter()
            .rev()
            .find_map(|a| a.strip_prefix("-fuse-ld="));
        match fuse {
            Some(ld) if ld.ends_with("lld") => return Ok(Shuffle::LldDriver),
            Some(ld) if ld.ends_with("mold") => return Ok(Shuffle::MoldDriver),
            Some(ld) => return Err(LayoutError::NoShuffle { ld: ld.into() }),
            None => {}
        }
        if name.contains("lld") {
            return Ok(Shuffle::Lld);
        }
        Err(LayoutError::SystemLinker { linker: name })
    }

    /// The command that links these inputs again into `out` in layout `seed` (nonzero) of
    /// `mode`, without debug sections; a shifted layout links `padding` (an object) first.
    pub(crate) fn command(
        &self,
        mode: LayoutMode,
        seed: u64,
        out: &Path,
        padding: &Path,
    ) -> Result<Command, LayoutError> {
        assert_ne!(seed, 0, "seed 0 asks the linker for a random layout");
        let mut args = self.args.clone();
        let Some(o) = args.iter().position(|a| a == "-o") else {
            return Err(LayoutError::NoOutput);
        };
        if o + 1 >= args.len() {
            return Err(LayoutError::NoOutputPath);
        }
        args[o + 1] = out.display().to_string();
        if mode.pads() {
            // Before the first input of rustc's: after the C runtime's start files, which the
            // compiler driver puts first, before all of Rust's code and data.
            let first = args
                .iter()
                .position(|a| a.starts_with("in/"))
                .ok_or(LayoutError::NoInput)?;
            args.insert(first, padding.display().to_string());
        }
        if mode.shuffles() {
            // After any shuffle of the link's own (a build script's): the linker applies them
            // in turn, so the order is this seed's shuffle of that one's.
            args.push(match self.shuffle()? {
                Shuffle::LldDriver => format!("-Wl,--shuffle-sections=*={seed}"),
                Shuffle::MoldDriver => format!("-Wl,--shuffle-sections={seed}"),
                Shuffle::Lld => format!("--shuffle-sections=*={seed}"),
            });
        }
        let strip = match self.shuffle() {
            Ok(Shuffle::Lld) => "--strip-debug",
            _ => "-Wl,--strip-debug",
        };
        args.push(strip.into());
        Ok(self.linker_command(args))
    }

    fn linker_command(&self, args: Vec<String>) -> Command {
        let mut cmd = Command::new(&self.linker);
        cmd.args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    }
}

/// Why a side cannot be linked again in other layouts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LayoutError {
    /// The compiler driver was told to use a linker that cannot shuffle.
    #[error("the binary is linked with {ld} (-fuse-ld={ld}), which cannot shuffle sections")]
    NoShuffle { ld: String },
    /// The system linker (GNU ld) links it.
    #[error("the binary is linked by {linker} with the system linker (GNU ld has no --shuffle-sections; LLD and mold have)")]
    SystemLinker { linker: String },
    /// The kept link has no `-o`.
    #[error("the kept link names no output (-o)")]
    NoOutput,
    /// The kept link's `-o` is its last argument.
    #[error("the kept link's -o has no path")]
    NoOutputPath,
    /// Nothing of the target folder is linked.
    #[error("the kept link has no input of the target folder")]
    NoInput,
    /// The side's binary path has no folder.
    #[error("the {side} side's binary has no folder")]
    NoFolder { side: Side },
    /// Linking one layout failed (`why`: the linker's first line, or what else went wrong).
    #[error("the {side} side: {why}")]
    Link { side: Side, why: String },
    /// The thread linking a side panicked.
    #[error("a link panicked")]
    Panicked,
}

/// Links `kept` again in layout `seed` of `mode` into `out`.
pub(crate) fn relink(kept: &KeptLink, mode: LayoutMode, seed: u64, out: &Path) -> Result<()> {
    let dir = out.parent().context("a layout's path has a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(".link.tmp{}", std::process::id()));
    let padding = dir.join("padding.o");
    if mode.pads() {
        assemble(&padding_asm(seed), &padding)?;
    }
    let mut cmd = kept
        .command(mode, seed, &tmp, &padding)
        .map_err(|why| anyhow::anyhow!("cannot link layout {seed}: {why}"))?;
    let done = cmd.output().context("cannot run the linker")?;
    if !done.status.success() {
        let text = String::from_utf8_lossy(&done.stderr);
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        anyhow::bail!("linking layout {seed} failed: {first}");
    }
    std::fs::rename(&tmp, out).with_context(|| format!("cannot write {}", out.display()))
}

/// Side `i`'s `wanted` layouts of `mode` (seeds from `seed`, [`seed_for`]), linked from its kept
/// link into `layouts/<seed>/` beside its binary; or why they are not (nothing left behind).
pub(crate) fn link_layouts(
    side: &SideRecord,
    kept: &KeptLink,
    i: usize,
    mode: LayoutMode,
    (wanted, seed): (usize, u64),
) -> Result<Vec<Layout>, LayoutError> {
    let exe = Path::new(&side.exe);
    let (Some(dir), Some(name)) = (exe.parent(), exe.file_name()) else {
        return Err(LayoutError::NoFolder { side: side.label });
    };
    let mut linked = Vec::new();
    for set in 0..wanted {
        let s = seed_for(seed, i, set);
        let out = dir.join("layouts").join(s.to_string()).join(name);
        if let Err(e) = relink(kept, mode, s, &out) {
            // What was linked goes with the reason: nothing of this side is timed.
            for l in &linked {
                remove_layout(l);
            }
            return Err(LayoutError::Link {
                side: side.label,
                why: crate::error::one_line(&e),
            });
        }
        linked.push(Layout {
            mode,
            seed: s,
            shifts: mode.pads().then(|| shifts(s)),
            exe: out.display().to_string(),
        });
    }
    Ok(linked)
}

/// Removes one layout's binary and its folder.
pub(crate) fn remove_layout(layout: &Layout) {
    if let Some(dir) = Path::new(&layout.exe).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Assembles `asm` into the object `out` with the C compiler driver.
fn assemble(asm: &str, out: &Path) -> Result<()> {
    let src = out.with_extension("s");
    std::fs::write(&src, asm).with_context(|| format!("cannot write {}", src.display()))?;
    let done = Command::new("cc")
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .context("cannot run cc to assemble a layout's padding")?;
    if !done.status.success() {
        anyhow::bail!(
            "cc cannot assemble a layout's padding: {}",
            String::from_utf8_lossy(&done.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    Ok(())
}

/// The seed of set `set`'s layout of side `side` (0 before, 1 after) in a before-after whose
/// settings' seed is `seed`: distinct for every side and set, never 0, below 2^31.
pub(crate) fn seed_for(seed: u64, side: usize, set: usize) -> u64 {
    let mix = crate::model::stats::SplitMix64(
        seed ^ ((side as u64) << 32) ^ (set as u64).wrapping_mul(0x9e37_79b9),
    )
    .next_u64();
    // Odd seeds for the before side, even for the after side: never the same layout on both.
    let base = (mix >> 34) << 1;
    (base | (1 - side as u64 % 2)).max(2 - side as u64 % 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(linker: &str, args: &[&str]) -> KeptLink {
        KeptLink {
            dir: PathBuf::from("/k"),
            linker: linker.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            output: PathBuf::from("/t/release/deps/x-1"),
        }
    }

    #[test]
    fn each_linker_gets_its_own_shuffle_or_a_reason() {
        let lld = kept("cc", &["in/1-a.o", "-fuse-ld=lld", "-o", "/t/x-1"]);
        assert_eq!(lld.shuffle(), Ok(Shuffle::LldDriver));
        let pad = Path::new("/p.o");
        let args_of = |link: &KeptLink, mode| {
            let cmd = link.command(mode, 7, Path::new("/out/x"), pad).unwrap();
            assert_eq!(cmd.get_current_dir(), Some(Path::new("/k")));
            let args: Vec<String> = cmd
                .get_args()
                .map(|a| a.to_string_lossy().to_string())
                .collect();
            args
        };
        assert_eq!(
            args_of(&lld, LayoutMode::Shuffle),
            [
                "in/1-a.o",
                "-fuse-ld=lld",
                "-o",
                "/out/x",
                "-Wl,--shuffle-sections=*=7",
                "-Wl,--strip-debug"
            ]
        );
        // The default layouts do both: the padding first, and the sections shuffled.
        let lld_in = kept(
            "cc",
            &["crt1.o", "in/1-a.o", "-fuse-ld=lld", "-o", "/t/x-1"],
        );
        assert_eq!(
            args_of(&lld_in, LayoutMode::Both),
            [
                "crt1.o",
                "/p.o",
                "in/1-a.o",
                "-fuse-ld=lld",
                "-o",
                "/out/x",
                "-Wl,--shuffle-sections=*=7",
                "-Wl,--strip-debug"
            ]
        );
        // A shifted layout links the padding before rustc's first input, with any linker.
        let gnu = kept("cc", &["crt1.o", "in/1-a.o", "-o", "/t/x-1"]);
        assert_eq!(
            args_of(&gnu, LayoutMode::Shift),
            [
                "crt1.o",
                "/p.o",
                "in/1-a.o",
                "-o",
                "/out/x",
                "-Wl,--strip-debug"
            ]
        );
        let mold = kept("clang", &["-fuse-ld=mold", "-o", "x"]);
        assert_eq!(mold.shuffle(), Ok(Shuffle::MoldDriver));
        let direct = kept("/usr/bin/ld.lld", &["-o", "x"]);
        assert_eq!(direct.shuffle(), Ok(Shuffle::Lld));
        let gnu = kept("cc", &["-o", "x"]);
        assert!(gnu.shuffle().unwrap_err().to_string().contains("GNU ld"));
        let gold = kept("cc", &["-fuse-ld=gold", "-o", "x"]);
        assert_eq!(
            gold.shuffle(),
            Err(LayoutError::NoShuffle { ld: "gold".into() })
        );
        let no_out = kept("cc", &["-fuse-ld=lld"]);
        assert!(no_out
            .command(LayoutMode::Shuffle, 3, Path::new("y"), pad)
            .is_err());
        assert!(gnu
            .command(LayoutMode::Shuffle, 3, Path::new("y"), pad)
            .is_err());
    }

    /// A crate of one function, built as a side is (the wrappers, a target folder of its own),
    /// then linked again in two layouts of each mode: two binaries of one code that differ in
    /// layout, and both run.
    #[test]
    fn a_kept_link_relinks_into_binaries_of_other_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("toy");
        std::fs::create_dir_all(src.join("src")).unwrap();
        std::fs::write(
            src.join("Cargo.toml"),
            "[package]\nname = \"toy-bin\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
        )
        .unwrap();
        // Six functions of their own, each in its own section (rustc's default), findable by
        // name in the symbol table.
        let fns: String = (0..6)
            .map(|k| {
                format!(
                    "#[no_mangle] #[inline(never)] pub extern \"C\" fn toy_f{k}(x: u64) -> u64 {{ x.wrapping_mul({}) ^ {k} }}\n",
                    31 + 2 * k
                )
            })
            .collect();
        std::fs::write(
            src.join("src/main.rs"),
            format!(
                "{fns}fn main() {{ let n = std::env::args().count() as u64; \
                 println!(\"{{}}\", toy_f0(n) ^ toy_f1(n) ^ toy_f2(n) ^ toy_f3(n) ^ toy_f4(n) ^ toy_f5(n)); }}\n"
            ),
        )
        .unwrap();
        let cache = dir.path().join("cache");
        let tools = Tools::install(&cache).unwrap();
        let target = cache.join("target");
        let keep = cache.join("link").join("toy");
        let build = || {
            let status = Command::new("cargo")
                .args(["build", "--release", "--quiet"])
                .current_dir(&src)
                .env("CARGO_TARGET_DIR", &target)
                .env_remove("RUSTFLAGS")
                .envs(tools.env("toy-bin", &keep, &target, false))
                .status()
                .unwrap();
            assert!(status.success());
        };
        build();
        let binary = target.join("release").join("toy-bin");
        let kept = KeptLink::read(&keep).expect("the link is kept");
        assert!(kept.made(&binary), "{kept:?}");
        assert!(kept.args.iter().any(|a| a.starts_with("in/")), "{kept:?}");
        let run = |exe: &Path| {
            let out = Command::new(exe).output().unwrap();
            assert!(out.status.success(), "{}", exe.display());
            String::from_utf8(out.stdout).unwrap()
        };
        let expected = run(&binary);
        let cargo_order = toy_functions(&binary);
        assert_eq!(cargo_order.len(), 6, "{cargo_order:?}");
        let names = |f: &[(u64, String)]| f.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>();
        let mut modes = vec![LayoutMode::Shift];
        let shuffles = kept.shuffle().is_ok();
        if shuffles {
            modes.extend([LayoutMode::Shuffle, LayoutMode::Both]);
        }
        for mode in modes {
            let outs: Vec<PathBuf> = [1, 2, 3, 4]
                .map(|seed| {
                    let out = cache.join(format!("{}-{seed}/toy-bin", mode.as_str()));
                    relink(&kept, mode, seed, &out).unwrap();
                    out
                })
                .into();
            let [a, b] = [&outs[0], &outs[1]].map(|p| std::fs::read(p).unwrap());
            assert_ne!(a, b, "{mode:?}: two layouts, two different binaries");
            for out in &outs {
                assert_eq!(run(out), expected, "{}", out.display());
            }
            let layouts: Vec<Vec<(u64, String)>> = outs.iter().map(|o| toy_functions(o)).collect();
            let orders: std::collections::BTreeSet<Vec<String>> =
                layouts.iter().map(|l| names(l)).collect();
            let starts: std::collections::BTreeSet<u64> = layouts.iter().map(|l| l[0].0).collect();
            // Offsets: where the first of the functions lands differs between layouts.
            assert!(starts.len() > 1, "{mode:?}: {layouts:?}");
            match mode.shuffles() {
                // Order: four seeds give more than one order of the six functions.
                true => assert!(orders.len() > 1, "{mode:?}: {orders:?}"),
                false => assert_eq!(
                    orders.into_iter().collect::<Vec<_>>(),
                    [names(&cargo_order)]
                ),
            }
        }
        // The default moves both.
        assert_eq!(LayoutMode::default(), LayoutMode::Both);
        assert!(LayoutMode::default().pads() && LayoutMode::default().shuffles());
        if !shuffles {
            eprintln!("skipped the shuffled layouts: this machine's Rust links with a linker that cannot shuffle");
        }
        // A build that changes nothing keeps the link; cargo's binary is still the one it made.
        build();
        assert!(KeptLink::read(&keep).unwrap().made(&binary));
    }

    /// The toy's functions by address: (address, name), lowest first (from `nm`).
    fn toy_functions(exe: &Path) -> Vec<(u64, String)> {
        let out = Command::new("nm").arg(exe).output().expect("nm runs");
        let mut f: Vec<(u64, String)> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let (addr, _, name) = (w.next()?, w.next()?, w.next()?);
                let addr = u64::from_str_radix(addr, 16).ok()?;
                name.starts_with("toy_f").then(|| (addr, name.to_string()))
            })
            .collect();
        f.sort();
        f
    }

    #[test]
    fn shifts_are_multiples_of_16_below_a_page() {
        let mut distinct = std::collections::BTreeSet::new();
        for seed in 1..200 {
            let s = shifts(seed);
            assert!(s.iter().all(|&x| x % 16 == 0 && x < 4096), "{s:?}");
            distinct.insert(s[0]);
        }
        assert!(distinct.len() > 100, "{}", distinct.len());
        assert!(padding_asm(5).contains(".section .text.serprof_pad,\"axR\""));
    }

    #[test]
    fn seeds_differ_by_side_and_set_and_are_never_zero() {
        let mut seen = std::collections::BTreeSet::new();
        for side in 0..2 {
            for set in 0..64 {
                let s = seed_for(42, side, set);
                assert!(s > 0 && s < 1 << 31, "{s}");
                assert_eq!(s % 2, 1 - side as u64, "odd before, even after: {s}");
                seen.insert(s);
            }
        }
        assert_eq!(seen.len(), 128);
        assert_eq!(seed_for(42, 0, 3), seed_for(42, 0, 3));
        assert_ne!(seed_for(42, 0, 3), seed_for(43, 0, 3));
    }
}
