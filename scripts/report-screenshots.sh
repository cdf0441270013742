#!/usr/bin/env bash
# Screenshots of a run's report.html in headless Chromium, at desktop and phone width: the
# pictures in docs/ come from here.
#
#   scripts/report-screenshots.sh RUN_DIR [OUT_DIR] [DESKTOP_HEIGHT] [PHONE_HEIGHT]
#
# RUN_DIR is a run folder (snapshots/latest works); OUT_DIR defaults to docs/. Writes
# OUT_DIR/report-desktop.png (1200 px wide) and OUT_DIR/report-phone.png (390 px wide). For a
# before-after folder (snapshots/before-after/latest): OUT_DIR/before-after-desktop.png.
set -euo pipefail

run_dir=${1:?usage: scripts/report-screenshots.sh RUN_DIR [OUT_DIR] [DESKTOP_HEIGHT] [PHONE_HEIGHT]}
out_dir=${2:-docs}
desktop_height=${3:-2200}
phone_height=${4:-2400}

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "report-screenshots: chromium not installed (apt-get install chromium)" >&2
    exit 2
fi
report=$(cd "$run_dir" && pwd -P)/report.html
# A before-after folder has its page instead of a report.
if [ -f "$run_dir/before-after.html" ]; then
    report=$(cd "$run_dir" && pwd -P)/before-after.html
fi
if [ ! -f "$report" ]; then
    echo "report-screenshots: no report.html in $run_dir (write it with: serprof report $run_dir)" >&2
    exit 2
fi
mkdir -p "$out_dir"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

shoot() { # WIDTH HEIGHT FILE
    "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$profile" --virtual-time-budget=3000 \
        --window-size="$1,$2" --screenshot="$3" "file://$report" >/dev/null 2>&1
    echo "$3"
}
if [[ "$report" == */before-after.html ]]; then
    shoot 1200 "$desktop_height" "$out_dir/before-after-desktop.png"
else
    shoot 1200 "$desktop_height" "$out_dir/report-desktop.png"
    shoot 390 "$phone_height" "$out_dir/report-phone.png"
fi
