#!/usr/bin/env python3
"""Regenerates the README's tables and pictures from a run folder.

    scripts/readme-figures.py [RUN_DIR]

With RUN_DIR (a folder `serprof run` wrote, e.g. snapshots/latest): copies what the figures are
made of into docs/figures/run/ (run.json, and each formats and bytes configuration's
result.json without its per-sample lists), and the flame graphs the README shows into
docs/figures/. Without it, reads docs/figures/run/ again.

Then writes docs/figures/formats.md and docs/figures/bytes.md (the tables) and puts the same
tables into README.md between the lines `<!-- figures:NAME -->` and `<!-- /figures -->`.
Every number in the README's tables comes from here.
"""

import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIG = os.path.join(ROOT, "docs", "figures")
KEPT = os.path.join(FIG, "run")
STUDIES = ("formats", "bytes")
# Flame graphs the README links: (study/config, recording, file name in docs/figures).
PICTURES = [
    ("bytes/json-decimal", "cpu.svg", "bytes-json-decimal.svg"),
    ("bytes/json-base64-table", "cpu.svg", "bytes-json-base64-table.svg"),
    ("formats/serde_json", "alloc.svg", "formats-serde_json-alloc.svg"),
]


def die(msg):
    print(f"readme-figures: {msg}", file=sys.stderr)
    sys.exit(2)


def slim(result):
    """A result.json without the per-sample lists (they are most of its size)."""
    t = result.get("time_ns")
    if t:
        t.pop("batches", None)
        for p in t.get("processes", []):
            p.pop("batches", None)
            p.pop("slots", None)
    return result


def keep(run):
    if not os.path.isfile(os.path.join(run, "run.json")):
        die(f"{run} is not a run folder (no run.json)")
    if os.path.isdir(KEPT):
        shutil.rmtree(KEPT)
    os.makedirs(KEPT)
    shutil.copy(os.path.join(run, "run.json"), os.path.join(KEPT, "run.json"))
    for study in STUDIES:
        sdir = os.path.join(run, study)
        if not os.path.isdir(sdir):
            die(f"{run} has no {study} study: run `serprof run` (all studies) or `--study {study}`")
        for config in sorted(os.listdir(sdir)):
            src = os.path.join(sdir, config, "result.json")
            if os.path.isfile(src):
                os.makedirs(os.path.join(KEPT, study, config))
                with open(src) as f:
                    r = slim(json.load(f))
                with open(os.path.join(KEPT, study, config, "result.json"), "w") as f:
                    json.dump(r, f, indent=1)
    for name, recording, out in PICTURES:
        src = os.path.join(run, name, recording)
        if os.path.isfile(src):
            shutil.copy(src, os.path.join(FIG, out))
        else:
            print(f"readme-figures: {src} is missing; {out} is left as it was", file=sys.stderr)


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def num(x, digits=0):
    return "" if x is None else f"{x:,.{digits}f}"


OPS = ("serialize", "deserialize", "access", "validated-access")


def load(study):
    sdir = os.path.join(KEPT, study)
    rows = []
    for config in sorted(os.listdir(sdir)):
        with open(os.path.join(sdir, config, "result.json")) as f:
            rows.append(json.load(f))
    return rows


def split(config):
    """`postcard.serialize` -> ("postcard", "serialize"); a round trip's operation is ""."""
    for op in OPS:
        if config.endswith("." + op):
            return config[: -len(op) - 1], op
    return config, ""


def cell(r):
    """A row's median time, or why there is none."""
    if r is None:
        return ""
    t = r.get("time_ns")
    return fmt_ns(t["median"]) if t else "failed"


def note(m):
    s = m.get("settings", {})
    cpu = m.get("machine", {}).get("cpu_model", "?")
    return (
        f"{s.get('processes', '?')} lock-step timing children per configuration, thread CPU time, "
        f"one {m.get('machine', {}).get('cpus', '?')}-CPU {cpu} machine"
    )


def engines_table(rows, m):
    """The formats study: one line per engine, its operations side by side."""
    by = {}
    for r in rows:
        engine, op = split(r["config"])
        by.setdefault(engine, {})[op] = r
    timed = [e for e in by if (by[e].get("") or {}).get("time_ns")]
    timed.sort(key=lambda e: by[e][""]["time_ns"]["median"])
    fastest = by[timed[0]][""]["time_ns"]["median"] if timed else None
    out = [
        "| engine | round trip [95% CI] | x fastest | serialize | deserialize | payload B | zlib B | zstd B | allocs/op |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for e in timed + sorted(set(by) - set(timed)):
        ops = by[e]
        rt = ops.get("") or {}
        t = rt.get("time_ns")
        z = rt.get("compressed") or {}
        alloc = rt.get("alloc") or {}
        time = (
            f"{fmt_ns(t['median'])} [{fmt_ns(t['ci95'][0])}, {fmt_ns(t['ci95'][1])}]"
            if t
            else "not timed: see its result.json"
        )
        ratio = f"{t['median'] / fastest:.2f}" if t else ""
        out.append(
            f"| `{e}` | {time} | {ratio} | {cell(ops.get('serialize'))} | {cell(ops.get('deserialize'))} "
            f"| {num(rt.get('payload_bytes'))} | {num(z.get('zlib'))} | {num(z.get('zstd'))} "
            f"| {num(alloc.get('allocs_per_op'), 1)} |"
        )
    access = [
        (e, op, ops[op])
        for e, ops in sorted(by.items())
        for op in ("access", "validated-access")
        if op in ops
    ]
    levels = next((r["compressed"] for r in rows if r.get("compressed")), {})
    text = (
        "\n".join(out)
        + "\n\n"
        + note(m)
        + f"; payloads are each Order's, zlib at level {levels.get('zlib_level', '?')} and zstd at level "
        + f"{levels.get('zstd_level', '?')}, each payload compressed on its own.\n"
    )
    if access:
        text += "\nReading the payload in place, without building an Order (every field read):\n\n"
        text += "| configuration | time [95% CI] |\n|---|---:|\n"
        for e, op, r in access:
            t = r.get("time_ns")
            time = f"{fmt_ns(t['median'])} [{fmt_ns(t['ci95'][0])}, {fmt_ns(t['ci95'][1])}]" if t else "failed"
            text += f"| `{e}.{op}` | {time} |\n"
    return text


def table(study):
    rows = load(study)
    with open(os.path.join(KEPT, "run.json")) as f:
        m = json.load(f)
    if study == "formats":
        return engines_table(rows, m)
    timed = [r for r in rows if r.get("time_ns")]
    fastest = min((r["time_ns"]["median"] for r in timed), default=None)
    timed.sort(key=lambda r: r["time_ns"]["median"])
    out = [
        "| configuration | time per round trip [95% CI] | x fastest | payload B | allocs/op | match % |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in timed:
        t = r["time_ns"]
        alloc = r.get("alloc") or {}
        prof = r.get("profile") or {}
        match = prof.get("match_percent")
        out.append(
            f"| `{r['config']}` | {fmt_ns(t['median'])} [{fmt_ns(t['ci95'][0])}, {fmt_ns(t['ci95'][1])}] "
            f"| {t['median'] / fastest:.2f} | {num(r.get('payload_bytes'))} | {num(alloc.get('allocs_per_op'), 1)} "
            f"| {'' if match is None else f'{match:.1f}%'} |"
        )
    for r in rows:
        if not r.get("time_ns"):
            out.append(f"| `{r['config']}` | not timed: see its result.json | | | | |")
    return (
        "\n".join(out)
        + "\n\n"
        + note(m)
        + "; `match %`: the share of CPU samples in the study's question frames.\n"
    )


def main():
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(args) > 1:
        die("give one run folder at most")
    if args:
        keep(os.path.realpath(args[0]))
    elif not os.path.isdir(KEPT):
        die(f"no run folder given and no {KEPT}: give the folder of a full `serprof run`")
    readme_path = os.path.join(ROOT, "README.md")
    with open(readme_path) as f:
        readme = f.read()
    for study in STUDIES:
        t = table(study)
        with open(os.path.join(FIG, f"{study}.md"), "w") as f:
            f.write(t)
        start, end = f"<!-- figures:{study} -->\n", "<!-- /figures -->"
        a = readme.find(start)
        if a < 0:
            continue
        b = readme.find(end, a)
        if b < 0:
            die(f"README.md has {start.strip()} without {end}")
        readme = readme[: a + len(start)] + t + readme[b:]
    with open(readme_path, "w") as f:
        f.write(readme)
    print(f"readme-figures: wrote {FIG}/formats.md, {FIG}/bytes.md and README.md's tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
