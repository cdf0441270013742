#!/usr/bin/env python3
"""Regenerates the README's tables and pictures from a run folder.

    scripts/readme-figures.py [RUN_DIR]

With RUN_DIR (a folder `serprof run` wrote, e.g. snapshots/latest): copies what the figures are
made of into docs/figures/run/ (run.json, and each formats and bytes configuration's
result.json without its per-sample lists), and the flame graphs the README shows into
docs/figures/. Without it, reads docs/figures/run/ again.

Then writes docs/figures/formats.md and docs/figures/bytes.md (the tables) and puts the same
tables into README.md between the lines `<!-- figures:NAME -->` and `<!-- /figures -->`, and
docs/figures/rsb.md (the formats study's order next to rust_serialization_benchmark's) into
docs/guide/studies.md the same way. Every number in those tables comes from here.
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


# rust_serialization_benchmark (github.com/djkoloski/rust_serialization_benchmark), commit
# 60c1cd50, its `log` dataset: the engines it and serprof both have, fastest first, as its
# published results order them (serialize: "serialize", or protobuf's and prost's
# "populate + encode"; deserialize: "deserialize", prost's and protobuf's "decode + convert",
# rkyv's validated one; capnp and flatbuffers have no deserialize column there).
RSB_COMMIT = "60c1cd50"
RSB_SERIALIZE = [
    "bitcode", "wincode", "speedy", "rkyv", "nanoserde", "msgpacker", "bincode", "bilrost",
    "postcard", "minicbor", "bincode1", "capnp", "borsh", "flatbuffers", "rmp-serde", "prost",
    "simd-json", "protobuf", "ciborium", "serde_json",
]
RSB_DESERIALIZE = [
    "bitcode", "speedy", "wincode", "rkyv", "bincode1", "borsh", "bincode", "nanoserde",
    "postcard", "msgpacker", "bilrost", "minicbor", "rmp-serde", "prost", "protobuf",
    "simd-json", "serde_json", "ciborium",
]


def rsb_table():
    """Each common engine's rank here and in rsb, per direction. For an engine serprof also runs
    with serde_bytes (`ENGINE+bytes`), the faster of the two counts (rsb's data has no byte
    arrays, and serde_bytes is how a serde user writes them)."""
    rows = load("formats")
    best = {}
    for r in rows:
        engine, op = split(r["config"])
        base = engine.split("+")[0]
        t = r.get("time_ns")
        if op not in ("serialize", "deserialize") or not t:
            continue
        cur = best.get((base, op))
        if cur is None or t["median"] < cur[0]:
            best[(base, op)] = (t["median"], engine)

    def ranks(order, op):
        ours = sorted((e for e in order if (e, op) in best), key=lambda e: best[(e, op)][0])
        return {e: i + 1 for i, e in enumerate(ours)}, {
            e: i + 1 for i, e in enumerate(x for x in order if (x, op) in best)
        }

    ser_here, ser_rsb = ranks(RSB_SERIALIZE, "serialize")
    de_here, de_rsb = ranks(RSB_DESERIALIZE, "deserialize")
    engines = sorted(set(ser_here) | set(de_here), key=lambda e: (ser_here.get(e, 99), e))
    out = [
        "| engine | serialize here | rank here | rank in rsb | deserialize here | rank here | rank in rsb |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for e in engines:
        def part(op, here, there):
            if e not in here:
                return "| | | "
            ns, name = best[(e, op)]
            shown = fmt_ns(ns) + ("" if name == e else f" (`{name}`)")
            return f"| {shown} | {here[e]} | {there[e]} "
        out.append(f"| `{e}` " + part("serialize", ser_here, ser_rsb) + part("deserialize", de_here, de_rsb) + "|")
    return (
        "\n".join(out)
        + f"\n\nRanks among the engines both have; rsb: commit {RSB_COMMIT}, `log` dataset. "
        + "Here: the formats study's serialize and deserialize rows of one run (the faster of `ENGINE` and `ENGINE+bytes`).\n"
    )


def splice(path, name, text):
    """Puts `text` between `<!-- figures:NAME -->` and `<!-- /figures -->` in the file at `path`."""
    with open(path) as f:
        doc = f.read()
    start, end = f"<!-- figures:{name} -->\n", "<!-- /figures -->"
    a = doc.find(start)
    if a < 0:
        return
    b = doc.find(end, a)
    if b < 0:
        die(f"{path} has {start.strip()} without {end}")
    with open(path, "w") as f:
        f.write(doc[: a + len(start)] + text + doc[b:])


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
    for study in STUDIES:
        t = table(study)
        with open(os.path.join(FIG, f"{study}.md"), "w") as f:
            f.write(t)
        splice(readme_path, study, t)
    t = rsb_table()
    with open(os.path.join(FIG, "rsb.md"), "w") as f:
        f.write(t)
    splice(os.path.join(ROOT, "docs", "guide", "studies.md"), "rsb", t)
    print(f"readme-figures: wrote {FIG}/formats.md, bytes.md, rsb.md, README.md's tables and docs/guide/studies.md's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
