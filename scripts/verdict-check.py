#!/usr/bin/env python3
"""How often before-after's verdicts are right, on a crate of one's own.

Runs `before-after` in a git repository of a crate that depends on serprof (its binary
built with `cargo build --release`), over scratch commits this script makes and removes:

- `noop`: a comment added at the top of the binary's source, three times uncommitted against
  HEAD and three times committed (HEAD~1 HEAD), and one build against itself twice (HEAD HEAD):
  8 before-afters. Every row called `faster` or `slower` is a false alarm.
- `order`: two commits whose build scripts only reorder the binary's functions
  (`-Wl,--shuffle-sections=*=11`, then `=22`), and in each sitting the second against itself:
  `--sittings` sittings of two before-afters.
- `change`: a commit that puts a `serialize_with` on one field, which spins `--spin` rounds of a
  short loop per value serialized (`--work dependent`: the value written waits for the loop;
  `overlapped`: it does not, and the processor hides most of the loop); `--runs` before-afters
  of HEAD~1 HEAD. Size `--spin` first with `--flag=--layouts=80` (the script prints each row's
  ratio).
- `branch`: a change that costs time and no instructions. A first commit puts a
  `serialize_with` on the same field whose loop of `--rounds` rounds calls one of two
  functions of equal length by a bit of a running xorshift masked by an opaque zero (the branch
  always goes one way); the second commit only makes that mask one (the branch follows the
  data, and the processor mispredicts about half of the rounds). `--runs` before-afters of
  HEAD~1 HEAD with instruction counts (callgrind's branch and cache simulation); each row's
  functions are printed with their instruction and mispredicted-branch deltas.

- `make`: writes the crate the validation page describes into `--crate` (a new folder): serprof
  as a path dependency with sonic-rs and postcard, one type shaped like
  rust_serialization_benchmark's log (an address of four bytes, four strings, a `u16` code and
  a `u64` size), 1,000 logs from a fixed seed, and commits it in a new git repository. Build
  its binary with `cargo build --release` inside it; its commands go to the installed driver
  (or `SERPROF_DRIVER`).

Every before-after's verdicts go to stdout, one line per row, and the tally at the end. The
crate's files are restored afterwards (the scratch commits are reset away; uncommitted changes of
the crate are refused at start). Timing: nothing else should run on the machine meanwhile.

    scripts/verdict-check.py --crate ../logbench --bin logbench make
    scripts/verdict-check.py --crate ../logbench --bin logbench noop
    scripts/verdict-check.py --crate ../logbench --bin logbench change --spin 40 --runs 5
    scripts/verdict-check.py --crate ../logbench --bin logbench branch --rounds 32 --runs 3
"""

import argparse
import json
import os
import subprocess
import sys
import time

SLOW_FN = """
/// Scratch: extra work per value serialized (verdict-check.py).
fn slow_code<S: serde::Serializer>(code: &u16, s: S) -> Result<S::Ok, S::Error> {{
    let mut x = u64::from(*code);
    for i in 0..std::hint::black_box({spin}u64) {{
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }}
    {tail}
}}
"""

# The loop's result is only kept (the processor overlaps the loop with the serializer's work),
# or fed into the value written through an opaque zero (the serializer waits for it).
TAILS = {
    "overlapped": "std::hint::black_box(x);\n    s.serialize_u16(*code)",
    "dependent": "s.serialize_u16(*code ^ (x as u16 & std::hint::black_box(0u16)))",
}

BRANCH_FN = """
static MIXED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0x9e37_79b9_7f4a_7c15);

/// Scratch: a branch per round, by the data when the mask is 1 (verdict-check.py branch).
fn mixed_code<S: serde::Serializer>(code: &u16, s: S) -> Result<S::Ok, S::Error> {{
    use std::sync::atomic::Ordering::Relaxed;
    let mut x = MIXED.fetch_add(0x9e37_79b9, Relaxed) | 1;
    let mask = std::hint::black_box({mask}u64);
    let mut acc = 0u64;
    for _ in 0..{rounds} {{
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        acc = if x & mask != 0 {{ mixed_left(acc, x) }} else {{ mixed_right(acc, x) }};
    }}
    s.serialize_u16(*code ^ (acc as u16 & std::hint::black_box(0u16)))
}}

#[inline(never)]
fn mixed_left(acc: u64, x: u64) -> u64 {{
    acc.wrapping_add(x).rotate_left(7)
}}

#[inline(never)]
fn mixed_right(acc: u64, x: u64) -> u64 {{
    acc.wrapping_sub(x).rotate_left(9)
}}
"""


CRATE_TOML = """[package]
name = "{bin}"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
serprof = {{ package = "serprof-bench", path = "{bench}", default-features = false, features = ["sonic-rs", "postcard"] }}
serde = {{ version = "1", features = ["derive"] }}

[profile.release]
debug = "limited"
"""

CRATE_MAIN = """//! Logs shaped like rust_serialization_benchmark's log dataset, measured by serprof
//! (written by serprof's scripts/verdict-check.py make).

use serde::{Deserialize, Serialize};
use serprof::{Operation, Study};

/// An IPv4 address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub x0: u8,
    pub x1: u8,
    pub x2: u8,
    pub x3: u8,
}

/// One line of a web server's access log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Log {
    pub address: Address,
    pub identity: String,
    pub userid: String,
    pub date: String,
    pub request: String,
    pub code: u16,
    pub size: u64,
}

/// A fixed-seed generator (SplitMix64), so every build measures the same logs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn word(&mut self, min: u64, max: u64) -> String {
        let len = min + self.below(max - min + 1);
        (0..len).map(|_| (b'a' + self.below(26) as u8) as char).collect()
    }
}

fn logs() -> Vec<Log> {
    let mut rng = Rng(0x5eed);
    (0..1000)
        .map(|_| Log {
            address: Address {
                x0: rng.below(256) as u8,
                x1: rng.below(256) as u8,
                x2: rng.below(256) as u8,
                x3: rng.below(256) as u8,
            },
            identity: rng.word(1, 10),
            userid: rng.word(1, 10),
            date: format!(
                "{:02}/Oct/2000:{:02}:{:02}:{:02} -0700",
                1 + rng.below(28),
                rng.below(24),
                rng.below(60),
                rng.below(60)
            ),
            request: format!("GET /{}/{}.html HTTP/1.1", rng.word(3, 12), rng.word(3, 12)),
            code: [200, 301, 404, 500][rng.below(4) as usize],
            size: rng.below(100_000),
        })
        .collect()
}

fn studies() -> Vec<Study> {
    vec![Study::new("logs", "Which engine for our access logs?")
        .dataset(logs)
        .operations([Operation::Serialize, Operation::Deserialize])
        .engines(serprof::engines::serde())
        .baseline("serde_json")
        .into()]
}

serprof::main!(studies);
"""


def make_crate(args):
    """Writes the validation page's crate into args.crate and commits it."""
    if os.path.exists(args.crate) and os.listdir(args.crate):
        sys.exit(f"{args.crate} exists and is not empty: give a new folder")
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench")
    os.makedirs(os.path.join(args.crate, "src"), exist_ok=True)
    with open(os.path.join(args.crate, "Cargo.toml"), "w") as f:
        f.write(CRATE_TOML.format(bin=args.bin, bench=os.path.normpath(bench)))
    with open(os.path.join(args.crate, "src", "main.rs"), "w") as f:
        f.write(CRATE_MAIN)
    with open(os.path.join(args.crate, ".gitignore"), "w") as f:
        f.write("/target\n")
    subprocess.run(["git", "init", "-q", args.crate], check=True)
    # The lock file pins what serprof's own lock pins, so the engines are the versions measured.
    lock = os.path.join(os.path.dirname(bench), "Cargo.lock")
    subprocess.run(["cp", lock, os.path.join(args.crate, "Cargo.lock")], check=True)
    # Cargo prunes that lock to this crate's graph on its first look: let it, before the commit.
    subprocess.run(["cargo", "metadata", "--format-version", "1"], cwd=args.crate, check=True,
                   stdout=subprocess.DEVNULL)
    commit(args.crate, "logs measured by serprof")
    print(f"wrote {args.crate}: build it with `cargo build --release` there")


def git(crate, *args):
    return subprocess.run(["git", "-C", crate, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(crate, message):
    git(crate, "add", "-A")
    git(crate, "-c", "user.email=verdict-check@serprof", "-c", "user.name=verdict-check",
        "commit", "-q", "-m", message)


def before_after(args, revs, extra=(), instructions=False):
    counts = [] if instructions else ["--no-instructions"]
    cmd = [os.path.join(args.crate, "target", "release", args.bin), "before-after", *revs,
           "--no-cpu", "--no-alloc", *counts, "--json", "--quiet",
           "--out", args.out, *args.flag, *extra]
    for c in args.config:
        cmd += ["--config", c]
    started = time.time()
    done = subprocess.run(cmd, cwd=args.crate, capture_output=True, text=True)
    try:
        record = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"before-after failed ({done.returncode}): {done.stderr.strip()[-3000:]}")
    rows = []
    for r in record["rows"]:
        t = r["comparison"].get("time") or {}
        called = [f for f in r.get("functions", []) if f.get("called")]
        rows.append({
            "config": r["config"], "verdict": r["verdict"], "ratio": t.get("ratio"),
            "ci95": t.get("ci95"), "spread": [t.get("before_layout_spread"),
                                              t.get("after_layout_spread")],
            "called": called, "profiled": bool(r.get("functions")),
            "functions": r.get("functions", [])})
    wall = time.time() - started
    print(f"# {' '.join(revs)} {' '.join(extra)}: measure_seconds {record['measure_seconds']:.0f}, "
          f"wall {wall:.0f} s", flush=True)
    for r in rows:
        lo, hi = r["ci95"] or [float("nan")] * 2
        sp = " / ".join("-" if s is None else f"{100 * s:.1f}%" for s in r["spread"])
        print(f"  {r['config']:<32} {r['ratio']:.3f} [{lo:.3f}, {hi:.3f}] {r['verdict']:<8} "
              f"spread {sp}", flush=True)
        for f in r["called"][:3]:
            print(f"      called: {function_line(f)}", flush=True)
        if instructions:
            for f in r["functions"][:3]:
                print(f"      {'called' if f.get('called') else 'listed'}: {function_line(f)}; "
                      f"instructions {f.get('instructions_delta', '-')}, mispredicted "
                      f"{f.get('branch_mispredicts_delta', '-')}, D1 misses "
                      f"{f.get('d1_misses_delta', '-')} per operation", flush=True)
    return rows, record["measure_seconds"]


def function_line(f):
    ratio = "new" if f.get("time_ratio") is None else f"{f['time_ratio']:.3f}"
    ci = f.get("time_ci95")
    interval = "unbounded" if ci is None else f"{ci[0]:.3f}, {ci[1]:.3f}"
    return f"{f['name']} {ratio} [{interval}], {100 * f['contribution']:+.1f}% of the row"


def tally(name, results):
    rows = [r for rs, _ in results for r in rs]
    called = [r for r in rows if r["verdict"] in ("faster", "slower")]
    secs = [s for _, s in results]
    print(f"{name}: {len(called)} of {len(rows)} rows called; measure_seconds "
          f"{min(secs):.0f}-{max(secs):.0f}", flush=True)
    profiled = [r for r in rows if r["profiled"]]
    if profiled:
        naming = [r for r in profiled if r["called"]]
        print(f"{name}: {len(naming)} of {len(profiled)} profiled rows call a function", flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--crate", required=True, help="the crate's git repository")
    p.add_argument("--bin", required=True, help="its binary's name (target/release/NAME)")
    p.add_argument("--src", default="src/main.rs", help="the source file the edits go in")
    p.add_argument("--config", action="append", default=[],
                   help="--config of every before-after (repeat)")
    p.add_argument("--flag", action="append", default=[],
                   help="another flag of every before-after (repeat; --flag=--align)")
    p.add_argument("--out", default="/tmp/verdict-check", help="before-after's --out")
    p.add_argument("--sittings", type=int, default=4)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--spin", type=int, default=40)
    p.add_argument("--work", choices=sorted(TAILS), default="dependent",
                   help="change: how the spinning loop meets the serializer")
    p.add_argument("--field", default="pub code: u16,",
                   help="the field line that gets the serialize_with")
    p.add_argument("--rounds", type=int, default=32, help="branch: rounds per value")
    p.add_argument("what", choices=["make", "noop", "order", "change", "branch"])
    args = p.parse_args()
    args.crate = os.path.abspath(args.crate)
    if args.what == "make":
        make_crate(args)
        return
    if git(args.crate, "status", "--porcelain", "--untracked-files=no"):
        sys.exit(f"{args.crate} has uncommitted changes: commit or stash them first")
    start = git(args.crate, "rev-parse", "HEAD")
    src = os.path.join(args.crate, args.src)
    original = open(src).read()
    try:
        if args.what == "noop":
            results = []
            with open(src, "w") as f:
                f.write("// A comment above the measured code.\n" + original)
            for _ in range(3):
                results.append(before_after(args, ["HEAD"]))
            commit(args.crate, "scratch: a comment")
            for _ in range(3):
                results.append(before_after(args, ["HEAD~1", "HEAD"]))
            for _ in range(2):
                results.append(before_after(args, ["HEAD", "HEAD"]))
            tally("noop", results)
        elif args.what == "order":
            build = os.path.join(args.crate, "build.rs")
            revs = []
            for seed in (11, 22):
                with open(build, "w") as f:
                    f.write("fn main() {\n    println!(\"cargo:rustc-link-arg-bins="
                            f"-Wl,--shuffle-sections=*={seed}\");\n}}\n")
                commit(args.crate, f"scratch: functions in order {seed}")
                revs.append(git(args.crate, "rev-parse", "HEAD"))
            pairs, selves = [], []
            for _ in range(args.sittings):
                pairs.append(before_after(args, revs))
                selves.append(before_after(args, [revs[1], revs[1]]))
            tally("order-only pair", pairs)
            tally("one build against itself", selves)
        elif args.what == "branch":
            text = original.replace(args.field, "#[serde(serialize_with = \"mixed_code\")]\n    "
                                    + args.field, 1)
            if text == original:
                sys.exit(f"no line {args.field!r} in {src}")
            for mask in (0, 1):
                with open(src, "w") as f:
                    f.write(text + BRANCH_FN.format(mask=mask, rounds=args.rounds))
                commit(args.crate, f"scratch: mixed_code's branch mask {mask}")
            results = [before_after(args, ["HEAD~1", "HEAD"], instructions=True)
                       for _ in range(args.runs)]
            tally(f"branch ({args.rounds} rounds)", results)
        else:
            text = original.replace(args.field, "#[serde(serialize_with = \"slow_code\")]\n    "
                                    + args.field, 1)
            if text == original:
                sys.exit(f"no line {args.field!r} in {src}")
            with open(src, "w") as f:
                f.write(text + SLOW_FN.format(spin=args.spin, tail=TAILS[args.work]))
            commit(args.crate, f"scratch: slow_code spins {args.spin} ({args.work})")
            results = [before_after(args, ["HEAD~1", "HEAD"]) for _ in range(args.runs)]
            rows = tally(f"change (spin {args.spin})", results)
            for config in sorted({r["config"] for r in rows}):
                mine = [r for r in rows if r["config"] == config]
                slower = sum(r["verdict"] == "slower" for r in mine)
                ratios = " ".join(f"{r['ratio']:.3f}" for r in mine)
                print(f"  {config}: slower in {slower} of {len(mine)} ({ratios})")
                firsts = [r["called"][0]["name"] if r["called"] else "-" for r in mine]
                if any(r["profiled"] for r in mine):
                    print(f"    first function called: {'; '.join(firsts)}")
    finally:
        git(args.crate, "reset", "-q", "--hard", start)
        with open(src, "w") as f:
            f.write(original)
        build = os.path.join(args.crate, "build.rs")
        if not git(args.crate, "ls-files", "build.rs") and os.path.exists(build):
            os.remove(build)


if __name__ == "__main__":
    main()
