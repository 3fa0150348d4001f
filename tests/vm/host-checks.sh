#!/usr/bin/env bash
# After the guest has powered off: the checks that compare what the guest's clients received with
# `gesturectl replay` on the host, the lisgd/gestured table and the latency figures.
# Usage: host-checks.sh RUN_DIR   (RUN_DIR/rig is what the guest got, RUN_DIR/out what it wrote)
# Appends to out/results.tsv (PASS/FAIL lines) and out/report.txt, like the guest's own checks.
set -uo pipefail
run=$1
rig=$run/rig
out=$run/out
work=$out/work
ctl=$rig/stage/usr/bin/gesturectl
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

result() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$out/results.tsv"; }
report() { printf '%s\n' "$*" >> "$out/report.txt"; }

# What a gesture stream means, independent of timing: per gesture, in order, its kind, fingers, edge, how
# it began and finished, and (on end) whether it committed and the swipe direction. Input: JSON lines.
meaning='[.[] | select(.type == "gesture")] | group_by(.id) | map({gesture: .[0].gesture, fingers: .[0].fingers,
          edge: .[0].edge, first: .[0].phase, last: .[-1].phase, committed: .[-1].committed,
          direction: .[-1].direction})'
# Every field of every event, with gesture ids numbered from 0 in order of appearance, the device left out
# and times in microseconds since the stream's first gesture event (the live stream runs on
# CLOCK_MONOTONIC, a recording on its own clock).
exact='[.[] | select(.type == "gesture")] | (.[0].time) as $t0 | (map(.id) | unique) as $ids
       | map(.id as $i | .id = ($ids | index($i)) | del(.device) | .time = ((.time - $t0) * 1e6 | round))'

# One word per gesture for the table: "pan 2f right", "pan 1f uncommitted", "pan 3f cancel", "edge-swipe left".
summary='[.[] | select(.type == "gesture")] | group_by(.id) | map(
           .[0].gesture + " " + (.[0].fingers | tostring) + "f"
           + (if .[-1].phase == "cancel" then " cancel"
              elif .[0].gesture == "edge-swipe" then " " + .[0].edge + (if .[-1].committed then "" else " uncommitted" end)
              elif .[-1].committed then (if .[-1].direction then " " + .[-1].direction else " committed" end)
              else " uncommitted" end)) | join(", ")'

table=$work/side-by-side.txt
printf '%-22s | %-26s | %-44s | %9s | %9s\n' recording "lisgd recognized" "gestured recognized" "lisgd ms" "gestured ms" > "$table"
printf '%s\n' "$(printf '%.0s-' {1..122})" >> "$table"

while read -r name desc events; do
    case "$name" in ''|'#'*) continue ;; esac
    live=$work/$name.gestured.jsonl
    lisgd_words=$( [ -f "$work/$name.lisgd" ] && sed '$d' "$work/$name.lisgd" | tr '\n' ' ')
    read -r lisgd_ticks lisgd_ns gestured_ticks gestured_ns tick_ms < "$work/$name.cpu" 2>/dev/null \
        || { lisgd_ns=0; gestured_ns=0; }
    if [ ! -s "$live" ]; then      # no gestured output: the guest has already failed this recording
        awk -v n="$name" -v l="${lisgd_words:-(nothing)}" -v lns="${lisgd_ns:-0}" \
            'BEGIN { printf "%-22s | %-26s | %-44s | %9.1f | %9s\n", n, l, "(gestured not running)", lns / 1e6, "-" }' >> "$table"
        continue
    fi

    # 1. The same meaning as `gesturectl replay` of the recording (then the sentinel) on the host.
    if [ -x "$ctl" ] && [ -f "$rig/expected/$name.jsonl" ]; then
        jq -s -c "$meaning" "$rig/expected/$name.jsonl" > "$work/$name.expected-meaning.json"
        jq -s -c "$meaning" "$rig/expected/$desc.sentinel.jsonl" > "$work/$name.sentinel-meaning.json"
        jq -s -c 'add' "$work/$name.expected-meaning.json" "$work/$name.sentinel-meaning.json" > "$work/$name.want.json"
        jq -s -c "$meaning" "$live" > "$work/$name.got.json"
        if cmp -s "$work/$name.want.json" "$work/$name.got.json"; then
            result "gestures-as-replayed:$name" PASS "$(jq -s -r "$summary" "$live") (as gesturectl replay on the host)"
        else
            result "gestures-as-replayed:$name" FAIL "live: $(jq -s -r "$summary" "$live"); gesturectl replay: $(jq -s -r "$summary" "$rig/expected/$name.jsonl" "$rig/expected/$desc.sentinel.jsonl") (files $work/$name.want.json, $work/$name.got.json)"
        fi
    else
        result "gestures-as-replayed:$name" FAIL "no host expectation (gesturectl not staged)"
    fi

    # 2. Exactly what `gesturectl replay` makes of the event stream the kernel delivered (evemu-record's
    #    capture of the same replay): every field, every update, same relative times.
    if grep -qE '^E: [0-9.]+ 0000 0003 ' "$work/$name.recorded" 2>/dev/null; then
        result "gestures-exact:$name" FAIL "the rig's evemu-record capture itself lost events (SYN_DROPPED in $work/$name.recorded): no comparison possible"
    elif [ -x "$ctl" ] && [ -s "$work/$name.recorded" ]; then
        "$ctl" replay "$work/$name.recorded" > "$work/$name.recorded-replay.jsonl" 2>/dev/null
        jq -s -c "$exact | .[]" "$work/$name.recorded-replay.jsonl" > "$work/$name.exact-want.jsonl"
        jq -s -c "$exact | .[]" "$live" > "$work/$name.exact-got.jsonl"
        if cmp -s "$work/$name.exact-want.jsonl" "$work/$name.exact-got.jsonl"; then
            result "gestures-exact:$name" PASS "$(wc -l < "$live") events identical to gesturectl replay of the kernel's stream"
        else
            first=$(diff "$work/$name.exact-want.jsonl" "$work/$name.exact-got.jsonl" | head -3 | tr '\n' ' ' | cut -c1-300)
            diff "$work/$name.exact-want.jsonl" "$work/$name.exact-got.jsonl" > "$work/$name.exact.diff"
            result "gestures-exact:$name" FAIL "differs from gesturectl replay of the captured stream ($work/$name.exact.diff): $first"
        fi
    fi

    # 3. The side-by-side row (the sentinel, last in both, left out).
    gestured_words=$(jq -s -r '[.[] | select(.type == "gesture")] as $all | ($all | map(.id) | unique | last) as $sentinel
                               | [$all[] | select(.id != $sentinel)]' "$live" | jq -r "$summary")
    awk -v n="$name" -v l="${lisgd_words:-(nothing)}" -v g="${gestured_words:-(nothing)}" \
        -v lns="${lisgd_ns:-0}" -v gns="${gestured_ns:-0}" \
        'BEGIN { printf "%-22s | %-26s | %-44s | %9.1f | %9.1f\n", n, l, g, lns / 1e6, gns / 1e6 }' >> "$table"
done < "$rig/guest/recordings.list"

report ""
report "lisgd and gestured on the same replays (both listening at once; the sentinel swipe left out; CPU time"
report "each process spent during the replay, from /proc/PID/schedstat; /proc/PID/stat ticks in $work/*.cpu):"
report "$(cat "$table")"

# Latency: evemu-play writing an event (its kernel timestamp) -> gesture-latency reading the update it caused.
if [ -s "$work/latency.txt" ]; then
    stats=$(awk '{print $1}' "$work/latency.txt" | sort -n | awk '{v[NR] = $1} END {
        if (NR == 0) exit
        m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.99 + 0.999999)]; if (p == "") p = v[NR]
        printf "%d %.2f %.2f %.2f %.2f", NR, m / 1000, p / 1000, v[1] / 1000, v[NR] / 1000 }')
    read -r count median p99 minimum maximum <<< "$stats"
    report ""
    report "latency, evemu-play writing an input event -> a client reading the gesture update it caused (CLOCK_MONOTONIC,"
    report "  in the TCG guest, $count updates): median $median ms, p99 $p99 ms, min $minimum ms, max $maximum ms"
    if [ "$count" -ge 1000 ]; then
        result latency PASS "median $median ms, p99 $p99 ms over $count updates"
    else
        result latency FAIL "only $count updates measured (need >= 1000); median $median ms, p99 $p99 ms"
    fi
fi
exit 0
