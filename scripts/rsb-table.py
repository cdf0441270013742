#!/usr/bin/env python3
"""The rsb studies of one run folder in rust_serialization_benchmark's layout, and their ratios
beside rsb's published ones.

    scripts/rsb-table.py RUN_DIR [--rsb README.md] [--against postcard] [--tolerance 0.15]

For each `rsb-*` study of RUN_DIR (a `serprof run --study rsb-log ...` folder), prints in
Markdown rsb's first table (crate, serialize, deserialize, borrow, size, zlib, zstd: each time
the median per operation with its 95% interval, sizes of the whole dataset's payload) and its
zero-copy table (rkyv's in-place reads: unvalidated and validated, which are rsb's `read`).

With `--rsb`, the path of rsb's README (its raw tables: the published figures are read from
it, never written here), a comparison per dataset: each engine's serialize and deserialize time
over the `--against` engine's, here and in rsb, and whether they differ by more than
`--tolerance` (a fraction); and each size beside rsb's.
"""

import argparse
import json
import re
import sys
from pathlib import Path

# serprof's study of each rsb dataset.
STUDIES = {"log": "rsb-log", "mesh": "rsb-mesh", "minecraft_savedata": "rsb-minecraft", "mk48": "rsb-mk48"}
# serprof's engine of each rsb crate that both run, where the names differ.
ENGINE_OF = {"bitcode": "bitcode-derive"}
# Which of rsb's variants of a cell is the call serprof makes (rkyv: validated, then
# deserialized; prost: the value converted to messages and back inside the operation).
VARIANT = {"rkyv": ["validated upfront with error"], "prost": ["populate + encode", "decode + convert"]}
UNITS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(run_dir: Path, study: str):
    rows = {}
    for result in sorted((run_dir / study).glob("*/result.json")):
        r = json.loads(result.read_text())
        rows[r["config"]] = r
    return rows


def time_text(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def cell(r) -> str:
    if r is None:
        return "†"
    if r.get("error") or not r.get("time_ns"):
        return "failed"
    t = r["time_ns"]
    lo, hi = t.get("ci95") or (t["median"], t["median"])
    return f"{time_text(t['median'])} [{time_text(lo)}, {time_text(hi)}]"


def engines_of(rows):
    seen = []
    for name in rows:
        engine = name.split(".", 1)[0]
        if engine not in seen:
            seen.append(engine)
    return seen


def sizes(r):
    if r is None or not r.get("payload_bytes"):
        return ("", "", "")
    c = r.get("compressed") or {}
    return (f"{r['payload_bytes']:.0f}", f"{c.get('zlib', 0):.0f}", f"{c.get('zstd', 0):.0f}")


def table(rows) -> str:
    out = [
        "| Crate | Serialize | Deserialize | Borrow | Size | Zlib | Zstd |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for e in engines_of(rows):
        ser, de = rows.get(f"{e}.serialize"), rows.get(f"{e}.deserialize")
        borrow = rows.get(f"{e}.borrow")
        version = (ser or de or {}).get("engine_version", "")
        out.append(f"| {e} {version} | {cell(ser)} | {cell(de)} | {cell(borrow)} | " + " | ".join(sizes(ser or de)) + " |")
    zero = [e for e in engines_of(rows) if f"{e}.access" in rows or f"{e}.validated-access" in rows]
    if zero:
        out += ["", "| Crate | Read (unvalidated) | Read (validated upfront) |", "|---|--:|--:|"]
        for e in zero:
            out.append(f"| {e} | {cell(rows.get(e + '.access'))} | {cell(rows.get(e + '.validated-access'))} |")
    return "\n".join(out)


def parse_time(text: str, crate: str):
    """The time of one cell of rsb's raw table, in ns: the variant serprof measures when the
    cell has several, else the first; None for a dagger."""
    spans = re.findall(r'<span title="([^"]+)">\*([\d.]+) (\S+?)\\\*\*</span>', text)
    if spans:
        want = VARIANT.get(crate, [])
        pick = next((s for s in spans if s[0] in want), spans[0])
        return float(pick[1]) * UNITS[pick[2]]
    m = re.search(r"([\d.]+) (ns|µs|ms|s)\b", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse_size(text: str):
    m = re.match(r"\s*(\d+)", text)
    return int(m.group(1)) if m else None


def rsb_tables(readme: Path):
    """Each dataset's raw rows: {crate: {column: value}}."""
    text = readme.read_text()
    tables = {}
    for dataset in STUDIES:
        start = text.index(f"## `{dataset}`")
        raw = text.index("| Crate |", start)
        lines = text[raw:].splitlines()
        header = [h.strip() for h in lines[0].strip("|").split("|")]
        rows = {}
        for line in lines[2:]:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            m = re.search(r"\]\[([^\]]+)\]", cells[0])
            crate = m.group(1)
            row = {}
            for h, c in zip(header[1:], cells[1:]):
                row[h] = parse_size(c) if h in ("Size", "Zlib", "Zstd") else parse_time(c, crate)
            rows[crate] = row
        tables[dataset] = rows
    return tables


def ratio(rows, engine, op, against):
    r, base = rows.get(f"{engine}.{op}"), rows.get(f"{against}.{op}")
    if not r or not base or not r.get("time_ns") or not base.get("time_ns"):
        return None
    return r["time_ns"]["median"] / base["time_ns"]["median"]


def comparison(dataset, rows, published, against, tolerance) -> str:
    out = [
        f"| crate | serialize / {against} here | in rsb | off by | deserialize / {against} here | in rsb | off by | size here | size in rsb |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    crate_of = {v: k for k, v in ENGINE_OF.items()}
    base = published.get(crate_of.get(against, against), {})
    within = total = 0
    for crate, row in sorted(published.items()):
        engine = ENGINE_OF.get(crate, crate)
        if f"{engine}.serialize" not in rows or engine == against:
            continue
        cells = []
        for op, col in (("serialize", "Serialize"), ("deserialize", "Deserialize")):
            here = ratio(rows, engine, op, against)
            theirs = row.get(col) / base[col] if row.get(col) and base.get(col) else None
            if here is None or theirs is None:
                cells += ["", f"{theirs:.2f}" if theirs else "†", ""]
                continue
            off = here / theirs - 1
            total += 1
            flag = "" if abs(off) <= tolerance else " **"
            within += abs(off) <= tolerance
            cells += [f"{here:.2f}", f"{theirs:.2f}", f"{off:+.0%}{flag}"]
        size_here = sizes(rows.get(f"{engine}.serialize"))[0]
        out.append(f"| {crate} | " + " | ".join(cells) + f" | {size_here} | {row.get('Size') or ''} |")
    out.append("")
    out.append(f"{within} of {total} ratios within {tolerance:.0%} of rsb's (** marks the others).")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--rsb", type=Path, help="rsb's README.md, for the comparison")
    ap.add_argument("--against", default="postcard")
    ap.add_argument("--tolerance", type=float, default=0.15)
    args = ap.parse_args()
    published = rsb_tables(args.rsb) if args.rsb else {}
    found = False
    for dataset, study in STUDIES.items():
        rows = load(args.run_dir, study)
        if not rows:
            continue
        found = True
        print(f"## `{study}` (rsb's `{dataset}`)\n")
        print(table(rows))
        if dataset in published:
            print()
            print(comparison(dataset, rows, published[dataset], args.against, args.tolerance))
        print()
    if not found:
        print(f"rsb-table: no rsb-* study in {args.run_dir}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
