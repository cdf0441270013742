#!/usr/bin/env python3
"""Cross-check serprof's CPU shares against Linux perf on the same workload.

usage: scripts/perf-crosscheck.py CONFIG REGEX [--seconds S] [--serprof PATH]

1. `serprof run --config CONFIG --no-alloc` records the configuration with pprof-rs (setitimer
   sampling, frame-pointer unwinding) and `serprof hotspots --match REGEX` gives the inclusive
   share of samples whose stack matches REGEX.
2. The same worker child (`serprof __worker --recording timing`, the same measured loop) runs
   under `perf record -e cpu-clock --call-graph dwarf` (kernel sampling, DWARF unwinding: an
   independent sampler and unwinder), and the same share is computed from `perf script`.

Both shares count only samples inside serprof's measured loop (`roundtrip_loop` /
`serialize_loop`), so verification and dataset generation do not dilute either side.
Prints both shares and their difference in percentage points; exits 1 when they differ by more
than --tolerance points (default 10), 2 on misuse.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LOOP = re.compile(r"serprof::measure::workload::(roundtrip_loop|serialize_loop)")


def die(msg, code=2):
    print(f"perf-crosscheck: {msg}", file=sys.stderr)
    sys.exit(code)


def perf_stacks(perf_data):
    """Yields (frames, weight) from `perf script`, frames leaf first."""
    out = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "comm,tid,time,event,ip,sym"],
        check=True, capture_output=True, text=True, errors="replace",
    ).stdout
    frames = []
    for line in out.splitlines() + [""]:
        if not line.strip():
            if frames:
                yield frames, 1
            frames = []
            continue
        if line.startswith((" ", "\t")):
            parts = line.strip().split(" ", 1)
            if len(parts) == 2:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", parts[1].strip())
                frames.append(sym)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config")
    ap.add_argument("regex")
    ap.add_argument("--seconds", type=float, default=8.0, help="length of the perf recording (default 8)")
    ap.add_argument("--serprof", default=None, help="serprof binary (default: target/release/serprof, built if missing)")
    ap.add_argument("--tolerance", type=float, default=10.0, help="allowed difference in points (default 10)")
    args = ap.parse_args()
    try:
        regex = re.compile(args.regex)
    except re.error as e:
        die(f"invalid regex {args.regex!r}: {e}")
    if shutil.which("perf") is None:
        die("perf is not installed (Debian: apt-get install linux-perf)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = args.serprof or os.path.join(root, "target", "release", "serprof")
    if args.serprof is None:
        subprocess.run(["cargo", "build", "--release", "-p", "serprof", "--quiet"], cwd=root, check=True)
    tmp = tempfile.mkdtemp(prefix="serprof-perf-")
    try:
        # 1. serprof's own recording and share.
        run = subprocess.run([exe, "run", "--config", args.config, "--no-alloc", "--quiet", "--json", "--out", tmp],
                             capture_output=True, text=True)
        if run.returncode == 2:
            die(run.stderr.strip())
        doc = json.loads(run.stdout)
        result = doc["results"][0]
        if result.get("error"):
            die(f"{args.config} failed: {result['error']}", 1)
        cfg_dir = os.path.join(doc["run_dir"], result["study"], result["config"])
        folded = open(os.path.join(cfg_dir, "cpu.folded")).read().splitlines()
        total = matched = 0
        for line in folded:
            stack, count = line.rsplit(" ", 1)
            frames = stack.split(";")[1:]
            if not any(LOOP.search(f) for f in frames):
                continue
            total += int(count)
            if any(regex.search(f) for f in frames):
                matched += int(count)
        serprof_share = 100.0 * matched / max(total, 1)
        serprof_samples = total

        # 2. perf on the same measured loop.
        settings = json.load(open(os.path.join(doc["run_dir"], "run.json")))["settings"]
        settings["batches"] = max(1, int(args.seconds * 1000 / settings["batch_ms"]))
        wdir = os.path.join(tmp, "perf-worker")
        os.makedirs(wdir)
        perf_data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "250", "--call-graph", "dwarf,32768", "-o", perf_data, "--",
             exe, "__worker", "--config", args.config, "--recording", "timing", "--dir", wdir,
             "--settings", json.dumps(settings)],
            capture_output=True, text=True)
        if rec.returncode != 0:
            die(f"perf record failed: {rec.stderr.strip()}", 1)
        ptotal = pmatched = unwound_short = 0
        for frames, w in perf_stacks(perf_data):
            if not any(LOOP.search(f) for f in frames):
                unwound_short += w
                continue
            ptotal += w
            if any(regex.search(f) for f in frames):
                pmatched += w
        perf_share = 100.0 * pmatched / max(ptotal, 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    diff = serprof_share - perf_share
    print(f"configuration      {args.config}")
    print(f"regex              /{args.regex}/ (inclusive share of samples in the measured loop)")
    print(f"serprof (pprof-rs) {serprof_share:6.1f}%  of {serprof_samples} samples")
    print(f"perf (dwarf)       {perf_share:6.1f}%  of {ptotal} samples ({unwound_short} outside the loop or not unwound to it)")
    print(f"difference         {diff:+6.1f} points (tolerance {args.tolerance:g})")
    sys.exit(0 if abs(diff) <= args.tolerance else 1)


if __name__ == "__main__":
    main()
