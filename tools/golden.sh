#!/usr/bin/env bash
# Regenerates the golden replays (Tests/Fixtures/golden) with the gesturectl built in .build/debug.
# Only for an intended change of behaviour: review every changed file against the plotted recording and
# update the review table in Tests/Fixtures/golden/README.md in the same commit.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product gesturectl >/dev/null
bin=$(swift build --show-bin-path)/gesturectl
dir=Tests/Fixtures/golden rec=Tests/Fixtures/recordings
grep -v '^#' "$dir/manifest.tsv" | while IFS=$'\t' read -r golden recording desc config; do
  args=()
  [ "$desc" = - ] || args+=(--device "$rec/$desc")
  [ -z "${config:-}" ] || [ "$config" = - ] || args+=(--config "$dir/configs/$config")
  case "$golden" in
    # The virtual copy's recording (passthrough, offline); the gestures printed are not kept.
    *.evemu) "$bin" replay "${args[@]}" --forward "$dir/$golden" "$rec/$recording" > /dev/null 2>&1 ;;
    *) "$bin" replay "${args[@]}" "$rec/$recording" > "$dir/$golden" 2>/dev/null ;;
  esac
done
git --no-pager diff --stat -- "$dir"
