#!/usr/bin/env python3
"""The rsb studies of one run folder in rust_serialization_benchmark's layout, and their ratios
beside rsb's published ones.

    scripts/rsb-table.py RUN_DIR [--rsb README.md] [--against postcard] [--tolerance 0.15]

For each `rsb-*` study of RUN_DIR (a `serprof run --study rsb-log ...` folder), prints in
Markdown rsb's first table (crate, serialize, deserialize, borrow, size, zlib, zstd: each time
the median per operation with its 95% interval, sizes of the whole dataset's payload) and its
zero-copy table (the in-place reads, `ENGINE.access` unvalidated and `ENGINE.validated-access`,
which are rsb's `read`, and the in-place update, `ENGINE.update`, rsb's `update`; with `--rsb`,
each beside rsb's time of it).

With `--rsb`, the path of rsb's README (its raw tables: the published figures are read from
it, never written here), a comparison per dataset: each engine's serialize and deserialize time
over the `--against` engine's, here and in rsb, and whether they differ by more than
`--tolerance` (a fraction); and each size beside rsb's. Where rsb's cell has several variants,
each engine is compared with the one it measures (ROWS below).

Under each comparison, every ratio off by more than the tolerance gets its evidence: which side
moved (the crate's time here over its time in rsb, against the median of that over all the
dataset's crates, for the crate and for the reference: a ratio is off because the crate moved,
the reference moved, or both), and the row's profile as `serprof hotspots --json` reads it (its
top self frames and its findings; `--serprof EXE` names the binary, by default `serprof` on
PATH, then target/release/serprof). The count line also gives the ratios against the median
crate instead of the reference, which no single crate's own difference can move.
"""

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

# serprof's study of each rsb dataset.
STUDIES = {"log": "rsb-log", "mesh": "rsb-mesh", "minecraft_savedata": "rsb-minecraft", "mk48": "rsb-mk48"}
# The configurations of an engine's messages (`Engine::messages`): rsb's encode and decode of a
# Protobuf crate.
MESSAGES = {"serialize": "encode-message", "deserialize": "decode-message"}
# serprof's rows of each rsb crate both run, where they are not the crate's engine of the same
# name: the engine, the variant of each of rsb's cells it measures where rsb publishes several
# (rkyv: validated, then deserialized, and unvalidated; prost and protobuf: the value converted
# to messages and back inside the operation, and their message configurations without the
# conversion; bilrost: encode into a Vec, and bilrost-prepend its prepend; capnp: unpacked, and
# capnp-packed its packed variant, of its size too), and, where it is not the operation's own,
# the configuration that measures each operation (None: none). A cell without a variant named
# here is read as its first, unlabelled time.
ROWS = {
    "bitcode": [("bitcode-derive", {})],
    "simd-json": [("simd-json-derive", {})],
    "rkyv": [
        ("rkyv", {"Deserialize": "validated upfront with error"}),
        ("rkyv", {"Deserialize": "unvalidated"}, {"serialize": None, "deserialize": "unvalidated-deserialize"}),
    ],
    "prost": [
        ("prost", {"Serialize": "populate + encode", "Deserialize": "decode + convert"}),
        ("prost", {"Serialize": "encode", "Deserialize": "decode"}, MESSAGES),
    ],
    "protobuf": [
        ("protobuf", {"Serialize": "populate + encode", "Deserialize": "decode + convert"}),
        ("protobuf", {"Serialize": "encode", "Deserialize": "decode"}, MESSAGES),
    ],
    "bilrost": [("bilrost", {"Serialize": "encode"}), ("bilrost-prepend", {"Serialize": "prepend"})],
    "capnp": [("capnp", {}), ("capnp-packed", {"Serialize": "packed", "Size": "packed"})],
}
COLUMNS = (("serialize", "Serialize"), ("deserialize", "Deserialize"))
# rsb's names of a validated read: rkyv and flatbuffers validate the whole payload first,
# capnp each pointer as it follows it.
VALIDATED = ["validated upfront with error", "validated on-demand with error"]
# The reads of serprof's engines that are a variant of another crate's in rsb's zero-copy table:
# the crate, and the variant of its Read each in-place configuration measures.
READS = {"capnp-packed": ("capnp", {"validated-access": ["packed"]})}
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
        serialize, deserialize = cell(ser), cell(de)
        # An engine's second configuration of an operation, in the same cell.
        for name, label in (("encode-message", "encode"),):
            if f"{e}.{name}" in rows:
                serialize += f"; {label} {cell(rows[f'{e}.{name}'])}"
        for name, label in (("unvalidated-deserialize", "unvalidated"), ("decode-message", "decode")):
            if f"{e}.{name}" in rows:
                deserialize += f"; {label} {cell(rows[f'{e}.{name}'])}"
        out.append(f"| {e} {version} | {serialize} | {deserialize} | {cell(borrow)} | " + " | ".join(sizes(ser or de)) + " |")
    return "\n".join(out)


def zero_copy_table(rows, published) -> str:
    """rsb's zero-copy Read of each engine that reads in place, unvalidated and validated, and
    its Update (unvalidated), each beside rsb's time of that variant (when `published`, its
    zero-copy table) and the ratio of the two."""
    ops = (("access", "Read", ["unvalidated"]), ("validated-access", "Read", VALIDATED), ("update", "Update", ["unvalidated"]))
    zero = [e for e in engines_of(rows) if any(f"{e}.{op}" in rows for op, _, _ in ops)]
    if not zero:
        return ""
    out = [
        "| Crate | Read (unvalidated) | in rsb | here / rsb | Read (validated) | in rsb | here / rsb "
        "| Update (unvalidated) | in rsb | here / rsb |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for e in zero:
        crate, picks = READS.get(e, (e, {}))
        theirs_of = published.get(crate) or {}
        cells = []
        for op, column, variants in ops:
            variants = picks.get(op, variants)
            r = rows.get(f"{e}.{op}")
            times = theirs_of.get(column) or {}
            theirs = next((times[v] for v in variants if v in times), None)
            mine = r["time_ns"]["median"] if r and r.get("time_ns") else None
            cells += [
                cell(r),
                time_text(theirs) if theirs else "",
                f"{mine / theirs:.2f}" if mine and theirs else "",
            ]
        out.append(f"| {e} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def parse_time(text: str):
    """The times of one cell of rsb's raw table, in ns, by variant: `""` for the unlabelled
    time, each `<span title=...>` by its title; empty for a dagger."""
    times = {}
    for title, value, unit in re.findall(r'<span title="([^"]+)">\*([\d.]+) (\S+?)\\\*\*</span>', text):
        times[title] = float(value) * UNITS[unit]
    m = re.search(r"([\d.]+) (ns|µs|ms|s)\b", re.sub(r"<span.*?</span>", "", text))
    if m:
        times[""] = float(m.group(1)) * UNITS[m.group(2)]
    return times


def published_time(times, variant):
    """The time of `variant` in a cell, else its unlabelled time, else its first variant."""
    if variant in times:
        return times[variant]
    if "" in times:
        return times[""]
    return next(iter(times.values()), None)


def parse_size(text: str):
    """The sizes of one cell of rsb's raw table, by variant, as `parse_time` gives times."""
    sizes = {title: int(v) for title, v in re.findall(r'<span title="([^"]+)">\*(\d+)\\\*\*</span>', text)}
    m = re.match(r"\s*(\d+)", text)
    if m:
        sizes[""] = int(m.group(1))
    return sizes


def raw_table(lines):
    """The rows of one of rsb's raw tables, from its header line on: {crate: {column: value}}
    (sizes in bytes, times by variant, the crate's version)."""
    header = [h.strip() for h in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        crate = re.search(r"\]\[([^\]]+)\]", cells[0]).group(1)
        v = re.search(r"\[\S+ ([^\]]+)\]\[", cells[0])
        row = {"version": v.group(1) if v else ""}
        for h, c in zip(header[1:], cells[1:]):
            row[h] = parse_size(c) if h in ("Size", "Zlib", "Zstd") else parse_time(c)
        rows[crate] = row
    return rows


def rsb_tables(readme: Path):
    """Each dataset's raw tables: its first ({crate: {column: value}}) and its zero-copy one
    (the same, or empty)."""
    text = readme.read_text()
    tables, zero_copy = {}, {}
    for dataset in STUDIES:
        start = text.index(f"## `{dataset}`")
        end = text.find("\n## `", start + 1)
        section = text[start:] if end < 0 else text[start:end]
        tables[dataset] = raw_table(section[section.index("| Crate |"):].splitlines())
        zero = section.find("#### Zero-copy")
        zero_copy[dataset] = raw_table(section[section.index("| Crate |", zero):].splitlines()) if zero >= 0 else {}
    return tables, zero_copy


def ratio(rows, config, base):
    r, b = rows.get(config), rows.get(base)
    if not r or not b or not r.get("time_ns") or not b.get("time_ns"):
        return None
    return r["time_ns"]["median"] / b["time_ns"]["median"]


def compared(published):
    """Each row here with its rsb crate and rsb's times of the variants it measures: a dict of
    `crate`, `engine`, `label` (what the row is called), `configs` ({operation: configuration
    name, or None}) and `times` ({column: ns})."""
    out = []
    for crate, row in sorted(published.items()):
        for engine, picks, *ops in ROWS.get(crate, [(crate, {})]):
            ops = ops[0] if ops else {}
            configs = {op: (f"{engine}.{ops.get(op, op)}" if ops.get(op, op) else None) for op, _ in COLUMNS}
            renamed = [c for op, c in configs.items() if c and ops.get(op)]
            label = crate if engine == crate else f"{crate} (`{engine}`)"
            if renamed:
                label = f"{crate} (" + ", ".join(f"`{c}`" for c in renamed) + ")"
            times = {col: published_time(row.get(col) or {}, picks.get(col, "")) for _, col in COLUMNS}
            size = published_time(row.get("Size") or {}, picks.get("Size", ""))
            out.append({"crate": crate, "engine": engine, "label": label, "configs": configs, "times": times, "size": size})
    return out


def moved(rows, entries, op, col):
    """Each row's time here over its crate's time in rsb, over the median of that over every
    row both have (the machine's own factor): 1.0 is a row that moved as the machine did. Keyed
    by configuration name."""
    factors = {}
    for e in entries:
        config = e["configs"][op]
        r = rows.get(config) if config else None
        if r and r.get("time_ns") and e["times"].get(col):
            factors[config] = r["time_ns"]["median"] / e["times"][col]
    if not factors:
        return {}
    machine = statistics.median(factors.values())
    return {config: f / machine for config, f in factors.items()}


def profile(serprof, config_dir: Path, top: int = 3) -> str:
    """The row's top self frames (those of 1% or more) and its findings, from `serprof
    hotspots --json`."""
    if serprof is None:
        return "(no serprof binary: --serprof EXE)"
    try:
        out = subprocess.run(
            [serprof, "hotspots", "--json", "--top", str(top), str(config_dir)],
            capture_output=True, text=True, timeout=60,
        )
    except (subprocess.SubprocessError, OSError) as e:
        return f"(no profile: {e})"
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or ["no message"])[0]
        return f"(no profile: {why})"
    try:
        h = json.loads(out.stdout)
    except json.JSONDecodeError as e:
        return f"(no profile: serprof hotspots printed no JSON: {e})"
    frames = ", ".join(
        f"`{short(r['function'])}` {r['self_percent']:.0f}%"
        for r in h.get("rows", [])
        if r["self_percent"] >= 1
    )
    found = ", ".join(f"{d['kind']} {100 * d['share']:.0f}%" for d in h.get("findings", []))
    return f"top self {frames}" + (f"; findings: {found}" if found else "")


def short(function: str) -> str:
    """A frame's name without its hash, at most 70 characters."""
    name = re.sub(r"::h[0-9a-f]{16}$", "", function)
    return name if len(name) <= 70 else name[:67] + "..."


def comparison(dataset, rows, published, against, tolerance, run_dir=None, serprof=None) -> str:
    out = [
        f"| crate | serialize / {against} here | in rsb | off by | deserialize / {against} here | in rsb | off by | size here | size in rsb |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    entries = compared(published)
    crate_of = {e["engine"]: e["crate"] for e in entries}
    base = next((e for e in entries if e["engine"] == against and e["label"] == e["crate"]), None)
    base = base or {"times": {}, "configs": {op: f"{against}.{op}" for op, _ in COLUMNS}}
    within = total = by_median = 0
    off_rows = []
    factor = {op: moved(rows, entries, op, col) for op, col in COLUMNS}
    for e in entries:
        configs, times = e["configs"], e["times"]
        if e["engine"] == against or not any(c in rows for c in configs.values() if c):
            continue
        cells = []
        for op, col in COLUMNS:
            config = configs[op]
            if config is None:
                cells += ["", "", ""]
                continue
            here = ratio(rows, config, base["configs"][op])
            theirs = times[col] / base["times"][col] if times.get(col) and base["times"].get(col) else None
            if here is None or theirs is None:
                cells += [f"{here:.2f}" if here else "", f"{theirs:.2f}" if theirs else "†", ""]
                continue
            off = here / theirs - 1
            total += 1
            flag = "" if abs(off) <= tolerance else " **"
            within += abs(off) <= tolerance
            by_median += abs(factor[op][config] - 1) <= tolerance
            if abs(off) > tolerance:
                off_rows.append((e, op, off))
            cells += [f"{here:.2f}", f"{theirs:.2f}", f"{off:+.0%}{flag}"]
        size_here = sizes(rows.get(configs["serialize"] or configs["deserialize"]))[0]
        out.append(f"| {e['label']} | " + " | ".join(cells) + f" | {size_here} | {e['size'] or ''} |")
    out.append("")
    out.append(
        f"{within} of {total} ratios within {tolerance:.0%} of rsb's (** marks the others); "
        f"against the median crate instead of {against}, {by_median} of {total}."
    )
    if off_rows:
        out += [
            "",
            f"Each ratio off by more than {tolerance:.0%}: the crate's time here over its time in rsb, "
            f"over the median of that over the dataset's crates (1.00 moved as the machine did), "
            f"beside {against}'s; then the row's profile.",
            "",
        ]
        for e, op, off in off_rows:
            crate, engine, config = e["crate"], e["engine"], e["configs"][op]
            base_config = base["configs"][op]
            mine, ref = factor[op].get(config), factor[op].get(base_config)
            side = [(n, x) for n, x, f in ((crate, engine, mine), (against, against, ref)) if f and abs(f - 1) > tolerance]
            which = " and ".join(n for n, _ in side) + " moved" if side else "neither moved by itself"
            where = profile(serprof, run_dir / STUDIES[dataset] / config) if run_dir else ""
            versions = "".join(
                f"; {name} {here_v} here, {theirs_v} in rsb"
                for name, x in side
                for here_v, theirs_v in [(version_here(rows, x), published.get(crate_of.get(x), {}).get("version"))]
                if here_v and theirs_v and here_v != theirs_v
            )
            out.append(f"- `{config}` {off:+.0%}: {crate} {mine:.2f}, {against} {ref:.2f} ({which}{versions}); {where}")
    return "\n".join(out)


def version_here(rows, engine) -> str:
    r = rows.get(f"{engine}.serialize") or rows.get(f"{engine}.deserialize") or {}
    return r.get("engine_version", "")


def find_serprof(given):
    if given:
        return given
    on_path = shutil.which("serprof")
    if on_path:
        return on_path
    local = Path(__file__).resolve().parent.parent / "target" / "release" / "serprof"
    return str(local) if local.exists() else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--rsb", type=Path, help="rsb's README.md, for the comparison")
    ap.add_argument("--against", default="postcard")
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--serprof", help="the serprof binary that reads the off rows' profiles")
    args = ap.parse_args()
    published, zero_copy = rsb_tables(args.rsb) if args.rsb else ({}, {})
    found = False
    for dataset, study in STUDIES.items():
        rows = load(args.run_dir, study)
        if not rows:
            continue
        found = True
        print(f"## `{study}` (rsb's `{dataset}`)\n")
        print(table(rows))
        zero = zero_copy_table(rows, zero_copy.get(dataset, {}))
        if zero:
            print()
            print(zero)
        if dataset in published:
            print()
            serprof = find_serprof(args.serprof)
            print(comparison(dataset, rows, published[dataset], args.against, args.tolerance, args.run_dir, serprof))
        print()
    if not found:
        print(f"rsb-table: no rsb-* study in {args.run_dir}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
