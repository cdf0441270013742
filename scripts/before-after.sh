#!/usr/bin/env bash
# before-after.sh REV_BEFORE [REV_AFTER] [serprof before-after args...]
#
# A thin wrapper: builds serprof (release) and runs
# `serprof before-after REV_BEFORE [REV_AFTER] ARGS...`, which builds both sides in one shared
# cache, times them in alternating processes on one CPU, counts their instructions and compares
# them. See `serprof before-after --help` and docs/guide/before-after.md.
#
# Example:
#   scripts/before-after.sh HEAD~1 HEAD --config 'bytes/*'
set -euo pipefail
if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
fi
cd "$(git rev-parse --show-toplevel)"
cargo build --release -q -p serprof
exec target/release/serprof before-after "$@"
