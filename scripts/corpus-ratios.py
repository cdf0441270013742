#!/usr/bin/env python3
"""The corpus study's engine ratios to sonic-rs's, from one run folder.

    scripts/corpus-ratios.py RUN_DIR [--against sonic-rs]

For each document, operation and value kind (typed, dom), the ratio of every other engine's time
to the `--against` engine's (above 1: that engine is faster), the way serprof takes ratios: the
median of per-round ratios (the timing processes of one round ran closest together in time),
with the smallest and largest round ratio beside it. Prints a Markdown table on stdout; the
published figures are not here (sonic-rs's README has them).
"""

import argparse
import json
import statistics
import sys
from pathlib import Path


def load(run_dir: Path):
    rows = {}
    for result in sorted((run_dir / "corpus").glob("*/result.json")):
        r = json.loads(result.read_text())
        if r.get("error") or not r.get("time_ns"):
            continue
        doc, op, variant = r["config"].split(".", 2)
        by_round = {p["round"]: p["median"] for p in r["time_ns"].get("processes", [])}
        rows[(doc, op, variant)] = (r["time_ns"]["median"], by_round)
    return rows


def kind_engine(variant: str):
    kind, _, engine = variant.partition("-")
    return kind, engine


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--against", default="sonic-rs")
    args = ap.parse_args()
    if not (args.run_dir / "corpus").is_dir():
        print(f"{args.run_dir} has no corpus study (no corpus/ folder)", file=sys.stderr)
        return 2
    rows = load(args.run_dir)
    print("| document | operation | pair (time ratio) | measured | rounds [min, max] |")
    print("|---|---|---|---:|---|")
    for (doc, op, variant), (_, base_rounds) in sorted(rows.items()):
        kind, engine = kind_engine(variant)
        if engine != args.against or kind not in ("typed", "dom"):
            continue
        for (d2, o2, v2), (_, rounds) in sorted(rows.items()):
            k2, e2 = kind_engine(v2)
            if (d2, o2, k2) != (doc, op, kind) or e2 == args.against:
                continue
            pairs = [rounds[r] / base_rounds[r] for r in rounds if r in base_rounds]
            if not pairs:
                continue
            print(
                f"| {doc} | {kind} {op} | {e2} / {args.against} | "
                f"{statistics.median(pairs):.2f} | [{min(pairs):.2f}, {max(pairs):.2f}] |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
