#!/usr/bin/env bash
# before-after.sh REV_BEFORE REV_AFTER [serprof run args...]
#
# Measures the same selection with serprof built from two git revisions and compares them:
#   1. checks out each revision in a temporary worktree (`git worktree add --detach`);
#   2. builds it with `cargo build --release -p serprof`;
#   3. runs `serprof run --out RESULTS/<side> ARGS...` with that build;
#   4. calls `serprof compare` (the AFTER build) on the two run folders.
# The worktrees are removed on exit, whatever happens (trap); the results stay.
#
# Build cache: one CARGO_TARGET_DIR ($SERPROF_BA_CACHE, default ~/.cache/serprof/before-after)
# shared by both sides and kept across invocations. Dependencies, the bulk of the build, then
# compile once and serve both revisions and later invocations (when Cargo.lock agrees); the
# two workspace crates are rebuilt per worktree anyway (their path is part of cargo's
# fingerprint). The builds run one after the other and each binary is copied out at once,
# since the second build overwrites target/release/serprof. cargo runs inside each worktree
# so that the worktree's .cargo/config.toml (frame pointers) applies.
#
# Environment:
#   SERPROF_BA_RESULTS  where run folders and compare outputs go (default: snapshots/before-after/<stamp>)
#   SERPROF_BA_CACHE    the shared CARGO_TARGET_DIR (default: ~/.cache/serprof/before-after)
#
# Example:
#   scripts/before-after.sh HEAD~1 HEAD --quick --config 'bytes/*'
#
# Exit codes: 0 done; 1 a build, run or compare failed; 2 misuse (this message).

set -euo pipefail

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
}

if [[ $# -lt 2 ]]; then
    usage
fi
case "$1" in -h | --help) usage ;; esac

rev_before=$1
rev_after=$2
shift 2
run_args=("$@")
for arg in "${run_args[@]}"; do
    case "$arg" in
    --out | --out=* | --resume | --resume=*)
        echo "before-after.sh: $arg is set by this script; leave it out" >&2
        exit 2
        ;;
    esac
done

repo=$(git rev-parse --show-toplevel 2>/dev/null) || {
    echo "before-after.sh: run me inside the serprof git repository" >&2
    exit 2
}
cd "$repo"
for rev in "$rev_before" "$rev_after"; do
    if ! git rev-parse --verify --quiet "$rev^{commit}" >/dev/null; then
        echo "before-after.sh: $rev is not a git revision" >&2
        exit 2
    fi
done
sha_before=$(git rev-parse --short "$rev_before^{commit}")
sha_after=$(git rev-parse --short "$rev_after^{commit}")

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=${SERPROF_BA_RESULTS:-$repo/snapshots/before-after/$stamp-$sha_before-$sha_after}
cache=${SERPROF_BA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/serprof/before-after}
mkdir -p "$results" "$cache"
results=$(cd "$results" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/serprof-ba.XXXXXX")
cleanup() {
    local status=$?
    for side in before after; do
        if [[ -d "$work/$side" ]]; then
            git -C "$repo" worktree remove --force "$work/$side" >/dev/null 2>&1 || true
        fi
    done
    git -C "$repo" worktree prune >/dev/null 2>&1 || true
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_and_run() {
    local side=$1 rev=$2
    local tree=$work/$side
    echo "== $side: $rev ($(git rev-parse --short "$rev^{commit}"))" >&2
    git worktree add --detach --quiet "$tree" "$rev"
    (cd "$tree" && CARGO_TARGET_DIR=$cache cargo build --release -p serprof >&2) || {
        echo "before-after.sh: the $side revision $rev does not build (see above)" >&2
        exit 1
    }
    cp "$cache/release/serprof" "$results/serprof-$side"
    # Run from the worktree, so that relative paths inside serprof resolve in its own tree.
    (cd "$tree" && "$results/serprof-$side" run --out "$results/$side" "${run_args[@]}" >&2) || {
        local rc=$?
        # Exit 1 means some configuration failed: still worth comparing the rest.
        if [[ $rc -ne 1 ]]; then
            echo "before-after.sh: serprof run ($side) failed with exit code $rc" >&2
            exit 1
        fi
        echo "before-after.sh: some configurations failed on the $side side (see above)" >&2
    }
}

build_and_run before "$rev_before"
build_and_run after "$rev_after"

run_before=$(cd "$results/before/latest" && pwd -P)
run_after=$(cd "$results/after/latest" && pwd -P)
"$results/serprof-after" compare "$run_before" "$run_after" --out "$results/compare"

echo >&2
echo "before ($sha_before): $run_before" >&2
echo "after  ($sha_after): $run_after" >&2
echo "compare:             $results/compare (compare.json, <study>/<config>/diff.svg)" >&2
