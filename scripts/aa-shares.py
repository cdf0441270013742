#!/usr/bin/env python3
"""How far CPU shares move between two recordings of the same code (A/A), so that a
before/after lists a CPU-share move only past a threshold whose false-alarm rate is known.

    scripts/aa-shares.py [--runs K] [--config GLOB ...] [--serprof PATH] [--out DIR]

Runs `serprof run --no-alloc --processes 1` K times over the selection (each run makes one CPU
recording per configuration, in its own pinned process), then compares every pair of runs per
configuration with `serprof compare --json` and takes the functions it lists as moved (its rule:
a share moved by >= 2 points and |z| > 3 on the sample counts). Every such move between two
recordings of one binary is a false alarm. Prints, per threshold T, the share of A/A comparisons
that would still raise one (some listed move with |change| >= T), and the largest move seen.
`serprof before-after` lists CPU-share moves only past `CPU_ALARM_PP`
(harness/src/analyze/before_after.rs), chosen from this table.

Needs a quiet machine (nothing else compiling or measuring): load moves shares too.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_CONFIGS = [
    "bytes/*",
    "formats/serde_json",
    "formats/sonic-rs",
    "formats/postcard",
    "formats/rmp-serde",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=6, help="recordings per configuration (default 6)")
    ap.add_argument("--config", action="append", help="a --config glob (repeat; default: bytes and four formats)")
    ap.add_argument("--serprof", default="target/release/serprof", help="the serprof binary")
    ap.add_argument("--out", help="where the runs go (default: a temporary folder)")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args()
    if args.runs < 2:
        print("aa-shares.py: --runs must be at least 2", file=sys.stderr)
        return 2
    if not os.access(args.serprof, os.X_OK):
        print(f"aa-shares.py: {args.serprof} is not executable; cargo build --release first", file=sys.stderr)
        return 2
    configs = args.config or DEFAULT_CONFIGS
    out = args.out or tempfile.mkdtemp(prefix="serprof-aa-shares-")
    runs = []
    for k in range(args.runs):
        print(f"aa-shares: run {k + 1}/{args.runs}", file=sys.stderr)
        cmd = [args.serprof, "run", "--quiet", "--json", "--no-alloc", "--processes", "1",
               "--out", os.path.join(out, f"run-{k}")]
        for c in configs:
            cmd += ["--config", c]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            print(f"aa-shares.py: serprof run failed: {done.stderr.strip()}", file=sys.stderr)
            return 1
        doc = json.loads(done.stdout)
        runs.append((doc["run_dir"], [f"{r['study']}/{r['config']}" for r in doc["results"] if not r.get("error")]))
    names = sorted(set.intersection(*[set(n) for _, n in runs]))
    largest = []  # per comparison: the largest listed |move| (0 when none)
    worst = (0.0, "", "")
    for name in names:
        for (a, _), (b, _) in itertools.combinations(runs, 2):
            cmp_out = tempfile.mkdtemp(prefix="cmp-", dir=out)
            done = subprocess.run([args.serprof, "compare", "--json", "--out", cmp_out,
                                   os.path.join(a, name), os.path.join(b, name)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"aa-shares.py: compare failed: {done.stderr.strip()}", file=sys.stderr)
                return 1
            moved = json.loads(done.stdout)["comparisons"][0].get("moved") or []
            top = max((abs(m["delta_pp"]) for m in moved), default=0.0)
            largest.append(top)
            if top > worst[0]:
                f = max(moved, key=lambda m: abs(m["delta_pp"]))["function"]
                worst = (top, name, f)
    n = len(largest)
    thresholds = [2, 3, 4, 5, 6, 7, 8, 10, 12, 15]
    rows = [{"threshold_pp": t, "false_alarms": sum(1 for x in largest if x >= t), "comparisons": n} for t in thresholds]
    if args.json:
        print(json.dumps({"configs": names, "runs": args.runs, "comparisons": n, "rows": rows,
                          "largest_pp": worst[0], "largest_in": worst[1], "largest_function": worst[2],
                          "out": out}, indent=2))
        return 0
    print(f"A/A comparisons: {n} ({len(names)} configurations x {args.runs * (args.runs - 1) // 2} pairs of {args.runs} recordings)")
    print(f"{'threshold':>10} {'false alarms':>13} {'rate':>7}")
    for r in rows:
        print(f"{r['threshold_pp']:>8} pt {r['false_alarms']:>13} {100 * r['false_alarms'] / max(n, 1):>6.1f}%")
    print(f"largest A/A move: {worst[0]:.1f} points ({worst[2]} in {worst[1]})")
    print(f"runs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
