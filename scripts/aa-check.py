#!/usr/bin/env python3
"""The honest-interval check: how often does serprof call identical code different?

Runs K A/A comparisons two ways and counts the ones whose 95% interval excludes 1:

  ab:   serprof ab formats/serde_json formats/serde_json
        (the same configuration as A and B, in interleaved child processes)
  run:  serprof run --config formats/serde_json --config bytes/serde_json-base64 --no-cpu --no-alloc
        then serprof compare of the two (they are the same engine code: serde_json with base64
        byte arrays), whose interval comes from the run's paired timing processes

With honest 95% intervals, about 5% of the comparisons should exclude 1. This is a benchmark of
serprof's statistics, not a test: it takes minutes and its answer depends on the machine.

  scripts/aa-check.py [--k 20] [--which ab,run] [--serprof target/release/serprof] [-- extra run args]

Build first (cargo build --release -p serprof). Prints one line per comparison and a summary.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run_json(cmd):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.exit(f"aa-check: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--k", type=int, default=20, help="comparisons per kind (default 20)")
    p.add_argument("--which", default="ab,run", help="ab, run or both (default ab,run)")
    p.add_argument("--serprof", default=os.path.join(here, "..", "target", "release", "serprof"))
    p.add_argument("extra", nargs="*", help="more arguments for the study runs")
    args = p.parse_args()
    exe = args.serprof
    if not os.access(exe, os.X_OK):
        sys.exit(f"aa-check: {exe} is not built: cargo build --release -p serprof")
    kinds = [k.strip() for k in args.which.split(",") if k.strip()]
    for k in kinds:
        if k not in ("ab", "run"):
            sys.exit(f"aa-check: --which takes ab and/or run, not {k!r}")
    tmp = tempfile.mkdtemp(prefix="serprof-aa-")
    summary = {}
    for kind in kinds:
        false_diffs, ratios = 0, []
        started = time.time()
        for i in range(args.k):
            if kind == "ab":
                doc = run_json([exe, "ab", "formats/serde_json", "formats/serde_json",
                                "--out", tmp, "--json"])
                ratio, ci = doc["ratio"], doc["ci95"]
            else:
                doc = run_json([exe, "run", "--config", "formats/serde_json",
                                "--config", "bytes/serde_json-base64", "--no-cpu", "--no-alloc",
                                "--out", tmp, "--json", "--quiet", *args.extra])
                run_dir = doc["run_dir"]
                cmp = run_json([exe, "compare", os.path.join(run_dir, "formats", "serde_json"),
                                os.path.join(run_dir, "bytes", "serde_json-base64"),
                                "--out", os.path.join(tmp, f"cmp-{i}"), "--json"])
                t = cmp["comparisons"][0]["time"]
                ratio, ci = t["ratio"], t["ci95"]
            differs = not (ci[0] <= 1.0 <= ci[1])
            false_diffs += differs
            ratios.append(ratio)
            print(f"{kind} {i + 1:>3}/{args.k}: ratio {ratio:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]"
                  f"{'  DIFFERENT (false)' if differs else ''}", flush=True)
        rate = false_diffs / max(args.k, 1)
        summary[kind] = (false_diffs, args.k, rate, time.time() - started,
                         min(ratios), max(ratios))
    print()
    for kind, (n, k, rate, secs, lo, hi) in summary.items():
        print(f"{kind}: {n} of {k} A/A comparisons called different ({100 * rate:.0f}%; "
              f"target about 5%, at most 10%); ratios {lo:.4f} to {hi:.4f}; {secs:.0f} s")


if __name__ == "__main__":
    main()
