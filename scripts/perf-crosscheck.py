#!/usr/bin/env python3
"""Cross-check serprof's CPU shares against Linux perf on the same workload.

usage: scripts/perf-crosscheck.py CONFIG REGEX [--seconds S] [--serprof PATH]
       scripts/perf-crosscheck.py --top5 [GLOB...] [--serprof PATH] [--samples N]

1. `serprof run --config CONFIG --no-alloc` records the configuration with pprof-rs (sampling on a
   POSIX timer, DWARF unwinding through backtrace-rs), and the inclusive share of samples whose
   stack matches REGEX is computed from its cpu.folded.
2. A CPU worker child of the same configuration (`serprof __worker`, a `record` request for
   the `cpu` recording: the same measured loop) runs under `perf record -e cpu-clock
   --call-graph dwarf` (kernel sampling, perf's own unwinder), and the same share is computed
   from `perf script`, leaving out perf's samples inside pprof-rs's signal handler.

Both shares count only samples inside serprof's measured loop (`roundtrip_loop` /
`serialize_loop`), so verification and dataset generation do not dilute either side.
Prints both shares and their difference in percentage points; exits 1 when they differ by more
than --tolerance points (default 10), 2 on misuse.

--top5: for every `formats` and `bytes` configuration (or those matching the GLOBs), the CPU
worker itself (`serprof __worker --recording cpu`) runs under `perf record -e cpu-clock
--call-graph dwarf`, so pprof-rs and perf sample the same process at the same time. For
serprof's five functions with most self samples inside the measured loop, prints both self
shares and their difference. perf's shares count its samples of the thread that ran the loop,
between the first and the last whose stack reaches it: perf's DWARF unwinder stops after one
frame inside glibc's allocator, so those samples cannot be told by their stacks. perf samples
taken inside pprof-rs's signal handler (the sampler's own work, which pprof-rs cannot see) are
left out and reported. glibc's memcpy and memmove variants (one address, two names) are both
named memmove. Prints the worst difference; exits 1 when it is over --tolerance points, or when
a configuration has no sample in the loop on either side.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LOOP = re.compile(r"serprof_api::workload::values::(roundtrip_loop|serialize_loop|deserialize_loop|access_loop)")


def worker(exe, config, recording, wdir, settings):
    """The command line of a worker child of `exe` making one recording of `config`."""
    ident = subprocess.run([exe, "__protocol"], capture_output=True, text=True)
    if ident.returncode != 0:
        die(f"{exe} does not answer __protocol: {ident.stderr.strip()}")
    protocol = json.loads(ident.stdout)["protocol"]
    request = {"kind": "record", "config": config, "recording": recording, "dir": wdir, "settings": settings}
    return [exe, "__worker", "--protocol", str(protocol), "--request", json.dumps(request)]


def die(msg, code=2):
    print(f"perf-crosscheck: {msg}", file=sys.stderr)
    sys.exit(code)


def perf_samples(perf_data, inline=True):
    """Yields (frames, tid, time) from `perf script`, frames leaf first; without `inline`,
    physical frames only (as serprof's cpu.folded has them)."""
    out = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "comm,tid,time,event,ip,sym"] + ([] if inline else ["--no-inline"]),
        check=True, capture_output=True, text=True, errors="replace",
    ).stdout
    frames, head = [], None
    for line in out.splitlines() + [""]:
        if not line.strip():
            if frames:
                yield frames, head[0], head[1]
            frames, head = [], None
            continue
        if line.startswith((" ", "\t")):
            parts = line.strip().split(" ", 1)
            if len(parts) == 2:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", parts[1].strip())
                frames.append(sym)
        else:
            m = SAMPLE.search(line)
            head = (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)


def perf_stacks(perf_data, inline=True):
    """Yields (frames, weight) from `perf script`, frames leaf first."""
    for frames, _, _ in perf_samples(perf_data, inline):
        yield frames, 1


# The header line of a sample in `perf script -F comm,tid,time,...`: "COMM TID SECONDS: EVENT:".
SAMPLE = re.compile(r"\s(\d+)\s+(\d+\.\d+):")
# glibc gives one address several names, and the two symbolisers print different ones: memcpy's
# and memmove's variants share their code (both named memmove here), and the allocator's entry
# points have internal aliases (`__GI___libc_malloc`, `__libc_free`) and versioned names
# (`cfree@GLIBC_2.2.5`).
ALIAS = re.compile(r"^__memcpy_")
ENTRY = re.compile(r"^(?:__GI_)?(?:__libc_)?(malloc|free|cfree|realloc|calloc)(?:@\S*)?$")


def canonical(name):
    name = ALIAS.sub("__memmove_", HASH.sub("", name))
    m = ENTRY.match(name)
    return ("free" if m.group(1) == "cfree" else m.group(1)) if m else name


def in_window(samples):
    """perf's samples taken while the measured loop ran: on a thread that ran it, between its
    first and last sample whose stack reaches the loop. perf's DWARF unwinder stops inside
    glibc's allocator (_int_malloc, unlink_chunk, ...) after one frame, so those samples never
    show the loop; the loop is all that thread does in that window, so they are its own."""
    spans = {}
    for frames, tid, t in samples:
        if any(LOOP.search(f) for f in frames):
            lo, hi = spans.get(tid, (t, t))
            spans[tid] = (min(lo, t), max(hi, t))
    # A stack unwound to the thread's start without passing the loop is other work of that
    # thread in the window (the worker reading its own debug info between recordings: gimli,
    # miniz_oxide), never the loop's: it is left out.
    return [(frames, 1) for frames, tid, t in samples
            if tid in spans and spans[tid][0] <= t <= spans[tid][1]
            and (any(LOOP.search(f) for f in frames) or not any(ROOT.search(f) for f in frames))]


# The frames a stack unwound to its thread's start ends in.
ROOT = re.compile(r"^(_start|__libc_start_main|__libc_start_call_main|start_thread|clone3?|__clone3?)$|std::sys::pal::unix::thread::Thread::new::thread_start|std::rt::lang_start")
HASH = re.compile(r"::h[0-9a-f]{16}$|\.(constprop|isra|part|cold)\.\d+$")
HANDLER = re.compile(r"perf_signal_handler|backtrace::backtrace|_Unwind_|__restore_rt")


def loop_self(stacks, window=False):
    """Self counts per leaf function of stacks (leaf first) inside the measured loop; with
    `window`, every stack given counts (they were chosen by `in_window`)."""
    counts, total = {}, 0
    for frames, w in stacks:
        if not window and not any(LOOP.search(f) for f in frames):
            continue
        total += w
        leaf = canonical(frames[0])
        counts[leaf] = counts.get(leaf, 0) + w
    return counts, total


def top5(args):
    import fnmatch
    if shutil.which("perf") is None:
        die("perf is not installed (Debian: apt-get install linux-perf)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = args.serprof or os.path.join(root, "target", "release", "serprof")
    listing = json.loads(subprocess.run([exe, "list", "--json"], check=True, capture_output=True, text=True).stdout)
    names = [c["name"] if "/" in c["name"] else f"{s['study']}/{c['name']}"
             for s in listing["studies"] for c in s["configs"]]
    globs = args.configs or ["formats/*", "bytes/*"]
    configs = [n for n in names if any(fnmatch.fnmatch(n, g) for g in globs)]
    if not configs:
        die(f"no configuration matches {globs}")
    tmp = tempfile.mkdtemp(prefix="serprof-perf-")
    worst = worst_rust = (0.0, None)
    empty = []
    try:
        probe = subprocess.run([exe, "run", "--config", configs[0], "--no-alloc", "--no-cpu", "--quick",
                                "--processes", "1", "--quiet", "--json", "--out", tmp], capture_output=True, text=True)
        if probe.returncode == 2:
            die(probe.stderr.strip())
        settings = json.load(open(os.path.join(json.loads(probe.stdout)["run_dir"], "run.json")))["settings"]
        settings.update(cpu=True, cpu_samples=args.samples)
        for config in configs:
            wdir = os.path.join(tmp, config.replace("/", "_"))
            os.makedirs(wdir)
            perf_data = os.path.join(wdir, "perf.data")
            rec = subprocess.run(
                ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(args.frequency), "--call-graph", "dwarf,32768", "-o", perf_data,
                 "--"] + worker(exe, config, "cpu", wdir, settings), capture_output=True, text=True)
            if rec.returncode != 0:
                print(f"{config}: perf record failed: {rec.stderr.strip()[-200:]}")
                empty.append(config)
                continue
            ours = []
            for line in open(os.path.join(wdir, "cpu.folded")).read().splitlines():
                stack, count = line.rsplit(" ", 1)
                ours.append((stack.split(";")[1:][::-1], int(count)))
            s_self, s_total = loop_self(ours)
            window = in_window(list(perf_samples(perf_data, inline=False)))
            in_handler = sum(w for f, w in window if any(HANDLER.search(x) for x in f))
            p_self, p_total = loop_self([(f, w) for f, w in window if not any(HANDLER.search(x) for x in f)], window=True)
            short = sum(w for f, w in window if not any(LOOP.search(x) for x in f))
            print(f"{config}: serprof {s_total} samples, perf {p_total} while the loop ran "
                  f"(+{in_handler} inside pprof-rs's handler; {short} of them not unwound to the loop)")
            if s_total == 0 or p_total == 0:
                # A share of nothing is no agreement: the loop was not found on one side.
                print(f"{config}: no samples in the measured loop on one side; nothing compared")
                empty.append(config)
                continue
            # The same shares over the samples whose leaf is Rust code only (a C symbol has no
            # `::`), on both sides: what remains when perf's lost allocator samples are set aside.
            s_rust = sum(n for f, n in s_self.items() if "::" in f)
            p_rust = sum(n for f, n in p_self.items() if "::" in f)
            print("  serprof    perf    diff | Rust-leaf shares: serprof perf diff")
            for fn, n in sorted(s_self.items(), key=lambda kv: -kv[1])[:5]:
                a = 100.0 * n / max(s_total, 1)
                b = 100.0 * p_self.get(fn, 0) / max(p_total, 1)
                rust = ""
                if "::" in fn:
                    ra = 100.0 * n / max(s_rust, 1)
                    rb = 100.0 * p_self.get(fn, 0) / max(p_rust, 1)
                    rust = f"{ra:6.1f}% {rb:6.1f}% {ra - rb:+6.1f}"
                    if abs(ra - rb) > abs(worst_rust[0]):
                        worst_rust = (ra - rb, f"{config} {fn}")
                print(f"  {a:6.1f}% {b:6.1f}% {a - b:+6.1f} | {rust:>24}  {fn}")
                if abs(a - b) > abs(worst[0]):
                    worst = (a - b, f"{config} {fn}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"worst difference: {worst[0]:+.1f} points ({worst[1]})")
    print(f"worst difference among Rust leaves, renormalised: {worst_rust[0]:+.1f} points ({worst_rust[1]})")
    if empty:
        print(f"not compared (no samples in the loop): {' '.join(empty)}")
    sys.exit(0 if abs(worst[0]) <= args.tolerance and not empty else 1)


def main():
    if "--top5" in sys.argv:
        ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--top5", action="store_true")
        ap.add_argument("configs", nargs="*")
        ap.add_argument("--serprof", default=None)
        ap.add_argument("--samples", type=int, default=1000, help="CPU samples per recording (default 1000)")
        ap.add_argument("--tolerance", type=float, default=5.0, help="allowed difference in points (default 5)")
        ap.add_argument("--frequency", type=int, default=199, help="perf's samples per second (default 199)")
        top5(ap.parse_args())
        return
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
        settings.update(cpu=True, cpu_samples=max(50, int(args.seconds * settings["frequency_hz"])))
        wdir = os.path.join(tmp, "perf-worker")
        os.makedirs(wdir)
        perf_data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "250", "--call-graph", "dwarf,32768", "-o", perf_data, "--",
            ] + worker(exe, args.config, "cpu", wdir, settings),
            capture_output=True, text=True)
        if rec.returncode != 0:
            die(f"perf record failed: {rec.stderr.strip()}", 1)
        ptotal = pmatched = unwound_short = 0
        for frames, w in perf_stacks(perf_data):
            if any(HANDLER.search(f) for f in frames):
                continue
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
