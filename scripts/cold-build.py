#!/usr/bin/env python3
"""How long a crate of one's own takes to build from nothing, with serprof as a dependency.

Copies examples/readings out of the workspace into a scratch folder, points its serprof
dependency at this checkout's `bench/` (serprof without its driver), and times
`cargo build --release` into a fresh target folder (the registry is not cleared: downloads are
not counted). Two dependency sets:

- `default`: the example as it is, every engine (`serprof-bench`'s default features) and the
  ten derive libraries of its type;
- `small`: the smallest documented set, `default-features = false, features = ["postcard",
  "bincode"]`, with the example's derive engines and their libraries taken out (they need
  features the small set does not have).

The build's `--timings` report is kept beside the crate. Nothing else should build meanwhile.

    scripts/cold-build.py default
    scripts/cold-build.py small --keep /tmp/cold-small
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DERIVE_LIBS = ["borsh", "rkyv", "speedy", "wincode", "bitcode", "musli", "nanoserde",
               "msgpacker", "minicbor", "bilrost", "fory"]


def small_main(text):
    """The example's program without the derive engines, their derives and field attributes."""
    out = []
    skipping = False
    libs = "|".join(DERIVE_LIBS)
    for line in text.splitlines():
        stripped = line.strip()
        if skipping:
            skipping = not stripped.startswith("}))")
            continue
        if stripped.startswith(".engine(serprof::engines::rkyv_access("):
            skipping = True
            continue
        if re.match(r"\.engine\(serprof::engines::(%s)\(" % libs, stripped):
            continue
        if re.match(r"(%s)::\w+,$" % libs, stripped):
            continue
        if re.match(r"#\[(n|bilrost)\(", stripped):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("set", choices=["default", "small"])
    p.add_argument("--keep", help="build here (kept) instead of a removed scratch folder")
    args = p.parse_args()
    scratch = args.keep or tempfile.mkdtemp(prefix="serprof-cold-")
    krate = os.path.join(scratch, "readings-cold")
    shutil.rmtree(krate, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "examples/readings"), krate)
    os.makedirs(os.path.join(krate, ".cargo"), exist_ok=True)
    shutil.copy(os.path.join(ROOT, ".cargo/config.toml"), os.path.join(krate, ".cargo/config.toml"))
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(krate, "Cargo.lock"))
    toml = open(os.path.join(krate, "Cargo.toml")).read()
    toml = re.sub(r'\.workspace = true', ' = "0.1.0"', toml)
    toml = toml.replace('edition = "0.1.0"', 'edition = "2021"').replace(
        'license = "0.1.0"', 'license = "MIT OR Apache-2.0"').replace(
        'rust-version = "0.1.0"', 'rust-version = "1.89"')
    bench = os.path.join(ROOT, "bench")
    if args.set == "default":
        dep = f'serprof = {{ package = "serprof-bench", path = "{bench}" }}'
    else:
        dep = (f'serprof = {{ package = "serprof-bench", path = "{bench}", '
               'default-features = false, features = ["postcard", "bincode"] }')
    toml = re.sub(r'^serprof = .*$', dep, toml, flags=re.M)
    if args.set == "small":
        toml = "\n".join(l for l in toml.splitlines()
                         if not any(l.startswith(f"{lib} ") for lib in DERIVE_LIBS)) + "\n"
        main_rs = os.path.join(krate, "src/main.rs")
        text = open(main_rs).read()
        open(main_rs, "w").write(small_main(text))
    # The workspace's release profile: full debug info (symbols for the profiles), 16 units.
    toml += '\n[profile.release]\ndebug = "limited"\nstrip = false\ncodegen-units = 16\n\n[workspace]\n'
    open(os.path.join(krate, "Cargo.toml"), "w").write(toml)
    target = os.path.join(scratch, "target")
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_INCREMENTAL="0")
    started = time.time()
    done = subprocess.run(["cargo", "build", "--release", "--timings"], cwd=krate, env=env)
    took = time.time() - started
    if done.returncode != 0:
        sys.exit(f"cold build ({args.set}) failed after {took:.0f} s; the crate is in {krate}")
    size = subprocess.run(["du", "-sh", target], capture_output=True, text=True).stdout.split()[0]
    print(f"cold build ({args.set}): {took:.0f} s, target folder {size}; the crate: {krate}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
