#!/usr/bin/env python3
"""Regenerates the README's tables and pictures from a run folder.

    scripts/readme-figures.py [RUN_DIR] [--corpus CORPUS_RUN_DIR]

With RUN_DIR (a folder `serprof run` wrote, e.g. snapshots/latest): copies what the figures are
made of into docs/figures/run/ (run.json, and each formats and bytes configuration's
result.json without its per-sample lists), and the flame graphs the README shows into
docs/figures/. With CORPUS_RUN_DIR (a run of `SERPROF_CORPUS=DIR serprof run --study corpus` with twitter.json in DIR):
the same for the twitter parse rows the README shows, into docs/figures/run/corpus/, with each
row's share of CPU samples in malloc and free (from its cpu.folded) in malloc.json. Without
them, reads docs/figures/run/ again.

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
    # The studies of this run are replaced; the corpus study's kept rows (another run) stay.
    for study in STUDIES:
        if os.path.isdir(os.path.join(KEPT, study)):
            shutil.rmtree(os.path.join(KEPT, study))
    os.makedirs(KEPT, exist_ok=True)
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


# The corpus rows the README shows: twitter.json parsed into DOMs and into typed structs.
CORPUS_ROWS = [
    "twitter.parse.dom-sonic-rs",
    "twitter.parse.dom-simd-json-borrowed",
    "twitter.parse.typed-simd-json",
    "twitter.parse.typed-sonic-rs",
    "twitter.parse.typed-serde_json",
]
CORPUS_PICTURES = [
    ("twitter.parse.typed-sonic-rs", "corpus-twitter-typed-sonic-rs.svg"),
    ("twitter.parse.dom-sonic-rs", "corpus-twitter-dom-sonic-rs.svg"),
]
# Frames of the allocator (glibc malloc and free).
MALLOC_FRAMES = ("malloc", "_int_free", "libc_free", "cfree", "unlink_chunk", "realloc")


def malloc_percent(folded_path):
    """The share of samples in `folded_path` whose stack has an allocator frame."""
    total = hit = 0
    with open(folded_path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not count.isdigit():
                continue
            n = int(count)
            total += n
            if any(m in frame for frame in stack.split(";") for m in MALLOC_FRAMES):
                hit += n
    return 100.0 * hit / total if total else None


def keep_corpus(run):
    sdir = os.path.join(run, "corpus")
    if not os.path.isdir(sdir):
        die(f"{run} has no corpus study: run `SERPROF_CORPUS=DIR serprof run --study corpus` with twitter.json in DIR")
    out = os.path.join(KEPT, "corpus")
    if os.path.isdir(out):
        shutil.rmtree(out)
    shares = {}
    for config in CORPUS_ROWS:
        src = os.path.join(sdir, config, "result.json")
        if not os.path.isfile(src):
            die(f"{src} is missing: the corpus run needs twitter.json")
        os.makedirs(os.path.join(out, config))
        with open(src) as f:
            r = slim(json.load(f))
        with open(os.path.join(out, config, "result.json"), "w") as f:
            json.dump(r, f, indent=1)
        folded = os.path.join(sdir, config, "cpu.folded")
        if os.path.isfile(folded):
            shares[config] = malloc_percent(folded)
    with open(os.path.join(out, "malloc.json"), "w") as f:
        json.dump(shares, f, indent=1)
    with open(os.path.join(run, "run.json")) as f:
        m = json.load(f)
    with open(os.path.join(out, "run.json"), "w") as f:
        json.dump({k: m.get(k) for k in ("git_rev", "start", "machine", "settings")}, f, indent=1)
    for config, name in CORPUS_PICTURES:
        src = os.path.join(sdir, config, "cpu.svg")
        if os.path.isfile(src):
            shutil.copy(src, os.path.join(FIG, name))


def corpus_table():
    cdir = os.path.join(KEPT, "corpus")
    if not os.path.isdir(cdir):
        return None
    with open(os.path.join(cdir, "malloc.json")) as f:
        shares = json.load(f)
    out = [
        "| twitter.json parse | time [95% CI] | MB/s | allocs/op | CPU samples in malloc and free |",
        "|---|---:|---:|---:|---:|",
    ]
    for config in CORPUS_ROWS:
        with open(os.path.join(cdir, config, "result.json")) as f:
            r = json.load(f)
        t = r.get("time_ns")
        doc = r.get("document") or {}
        if not t:
            out.append(f"| `{config}` | not timed: see its result.json | | | |")
            continue
        mbps = doc.get("bytes", 0) / t["median"] * 1e3
        share = shares.get(config)
        mark = "†" if r.get("copies_input") else ""
        out.append(
            f"| `{config}` | {fmt_ns(t['median'])}{mark} [{fmt_ns(t['ci95'][0])}, {fmt_ns(t['ci95'][1])}] "
            f"| {mbps:,.0f} | {num((r.get('alloc') or {}).get('allocs_per_op'))} "
            f"| {'' if share is None else f'{share:.1f}%'} |"
        )
    kept_run = os.path.join(cdir, "run.json")
    if os.path.isfile(kept_run):
        with open(kept_run) as f:
            m = json.load(f)
        measured = f"Measured at commit `{m.get('git_rev', '?')}` on {str(m.get('start', '?'))[:10]} by `serprof run --study corpus`. "
    else:
        measured = "The run this table came from kept no run.json: its commit is not recorded. "
    return (
        "\n".join(out)
        + "\n\n"
        + measured
        + "† simd-json parses in place: each timed parse reads a fresh copy of the document, "
        + "and its figures include the copy.\n"
    )


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
        f"one {m.get('machine', {}).get('cpus', '?')}-CPU {cpu} machine; measured at commit "
        f"`{m.get('git_rev', '?')}` on {str(m.get('start', '?'))[:10]} by `serprof run`"
    )


def method():
    """The README's "How it measures, in short": the settings are the kept run's own."""
    with open(os.path.join(KEPT, "run.json")) as f:
        s = json.load(f).get("settings", {})
    return f"""- **Lock-step timing.** Timing children hold every configuration of the run and take one sample
  of a few milliseconds of each in a shuffled round-robin, so every configuration is measured
  moments after every other, in the same states of the machine; the state shared by
  neighbouring samples is taken out. A figure is the median over {s.get('processes', '?')} children, its interval
  across them; a ratio is the median of the children's ratios.
- **Thread CPU time**, children pinned to one CPU (chosen by a probe), wall time beside it.
- **CPU profiles**: pprof-rs at {s.get('frequency_hz', '?')} Hz, DWARF unwinding, {num(s.get('cpu_samples'))} samples; **allocations**: a
  counting global allocator gated around the measured loop; **instructions**: callgrind, exact
  and repeatable for one build.
"""


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
    corpus = None
    if "--corpus" in args:
        i = args.index("--corpus")
        if i + 1 >= len(args):
            die("--corpus needs the folder of a corpus run")
        corpus = args[i + 1]
        del args[i : i + 2]
    if len(args) > 1:
        die("give one run folder at most")
    if args:
        keep(os.path.realpath(args[0]))
    elif not os.path.isdir(KEPT):
        die(f"no run folder given and no {KEPT}: give the folder of a full `serprof run`")
    if corpus:
        keep_corpus(os.path.realpath(corpus))
    readme_path = os.path.join(ROOT, "README.md")
    for study in STUDIES:
        t = table(study)
        with open(os.path.join(FIG, f"{study}.md"), "w") as f:
            f.write(t)
        splice(readme_path, study, t)
    t = method()
    with open(os.path.join(FIG, "method.md"), "w") as f:
        f.write(t)
    splice(readme_path, "method", t)
    t = corpus_table()
    if t is None:
        print(f"readme-figures: no {KEPT}/corpus: the corpus table is left as it was", file=sys.stderr)
    else:
        with open(os.path.join(FIG, "corpus.md"), "w") as f:
            f.write(t)
        splice(readme_path, "corpus", t)
    t = rsb_table()
    with open(os.path.join(FIG, "rsb.md"), "w") as f:
        f.write(t)
    splice(os.path.join(ROOT, "docs", "guide", "studies.md"), "rsb", t)
    print(f"readme-figures: wrote {FIG}/formats.md, bytes.md, method.md, rsb.md, README.md's tables and docs/guide/studies.md's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
