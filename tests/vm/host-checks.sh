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

# libinput record (tests/vm/guest/tests/32-libinput-record.sh): `gesturectl replay` of libinput's recording
# and of evemu-record's recording of the same frames give the same events, every field (times from each
# stream's first gesture event: each tool counts time from its own start).
for yml in "$work"/librecord-*.yml; do
    [ -e "$yml" ] || continue
    name=${yml##*/librecord-}; name=${name%.yml}
    evemu=$work/librecord-$name.evemu
    [ -s "$evemu" ] || continue
    if [ ! -x "$ctl" ]; then result "libinput-record-exact:$name" FAIL "gesturectl not staged"; continue; fi
    if ! "$ctl" replay "$yml" > "$work/librecord-$name.host-yml.jsonl" 2> "$work/librecord-$name.host-yml.err"; then
        result "libinput-record-exact:$name" FAIL "gesturectl replay of the libinput recording: $(head -c 300 "$work/librecord-$name.host-yml.err" | tr '\n' ' ')"
        continue
    fi
    "$ctl" replay "$evemu" > "$work/librecord-$name.host-evemu.jsonl" 2>/dev/null
    jq -s -c "$exact | .[]" "$work/librecord-$name.host-yml.jsonl" > "$work/librecord-$name.exact-yml.jsonl"
    jq -s -c "$exact | .[]" "$work/librecord-$name.host-evemu.jsonl" > "$work/librecord-$name.exact-evemu.jsonl"
    events=$(wc -l < "$work/librecord-$name.exact-yml.jsonl")
    if [ "$events" -gt 0 ] && cmp -s "$work/librecord-$name.exact-yml.jsonl" "$work/librecord-$name.exact-evemu.jsonl"; then
        result "libinput-record-exact:$name" PASS "$events events, $(jq -s -r "$summary" "$work/librecord-$name.host-yml.jsonl"): identical from both recordings"
    else
        diff "$work/librecord-$name.exact-evemu.jsonl" "$work/librecord-$name.exact-yml.jsonl" > "$work/librecord-$name.exact.diff"
        result "libinput-record-exact:$name" FAIL "$events events from the libinput recording, $(wc -l < "$work/librecord-$name.exact-evemu.jsonl") from evemu's; $work/librecord-$name.exact.diff: $(head -3 "$work/librecord-$name.exact.diff" | tr '\n' ' ' | cut -c1-300)"
    fi
done

report ""
report "lisgd and gestured on the same replays (both listening at once; the sentinel swipe left out; CPU time"
report "each process spent during the replay, from /proc/PID/schedstat; /proc/PID/stat ticks in $work/*.cpu):"
report "$(cat "$table")"

# percentiles FILE — "COUNT MEDIAN P99 MAX" in ms of the second column of the lines (µs), or nothing.
percentiles() {
    awk '{print $2}' "$1" 2>/dev/null | sort -n | awk '{v[NR] = $1} END {
        if (NR == 0) exit
        m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.99 + 0.999999)]; if (p == "") p = v[NR]
        printf "%d %.3f %.3f %.3f", NR, m / 1000, p / 1000, v[NR] / 1000 }'
}

# What gestured costs (tests/vm/guest/tests/35-cost.sh): CPU per frame against lisgd on the same replays,
# latency against a plain reader of the device (the floor), idle memory beside lisgd.
if [ -s "$work/cost-updates.cpu" ] || [ -s "$work/cost-no-updates.cpu" ]; then
    report ""
    report "What gestured costs on the same replays (3 EP0430M09 recordings x4 and the sentinel, lisgd listening too,"
    report "one client connected; CPU from /proc/PID/schedstat; in the TCG guest, so only the ratios carry over):"
    for mode in updates no-updates relay; do
        read -r frames g_ns l_ns g_switches l_switches f_ns f_switches < "$work/cost-$mode.cpu" 2>/dev/null || continue
        goal=$(case $mode in updates) echo " (goal <= 1.0x)" ;; no-updates) echo " (goal <= 0.5x)" ;; esac)
        line=$(awk -v f="$frames" -v g="$g_ns" -v l="$l_ns" -v goal="$goal" -v gs="${g_switches:-}" -v ls="${l_switches:-}" 'BEGIN {
            printf "%.1f us/frame, lisgd %.1f us/frame: %.2fx lisgd%s", g / f / 1000, l / f / 1000, (l > 0 ? g / l : 0), goal
            if (gs != "" && ls != "") printf "; wake-ups per frame %.2f, lisgd %.2f", gs / f, ls / f }')
        case $mode in
            updates) report "  gestured, client with every update: $line over $frames frames" ;;
            no-updates) report "  gestured, client with updates off : $line over $frames frames" ;;
            relay) report "  the relay in gestured's place (reads each frame, sends its client a line; no recognizer): $line over $frames frames" ;;
        esac
        # The floor reader in the same pass: a read and a clock per wake-up, nothing else.
        if [ -n "${f_ns:-}" ]; then
            line=$(awk -v f="$frames" -v fl="$f_ns" -v l="$l_ns" -v g="$g_ns" -v fs="${f_switches:-0}" -v who="$([ "$mode" = relay ] && echo "the relay" || echo gestured)" 'BEGIN {
                printf "%.1f us/frame: %.2fx lisgd, %s %.2fx it; wake-ups per frame %.2f", fl / f / 1000, (l > 0 ? fl / l : 0), who, (fl > 0 ? g / fl : 0), fs / f }')
            report "    a plain reader of the device in the same pass (the floor: woken, read(), the clock): $line"
        fi
    done
    relay_excess50= relay_excess99= updates_excess50= updates_excess99=
    for mode in updates no-updates relay; do
        [ -s "$work/cost-$mode.txt" ] || continue
        read -r fn f50 f99 fmax <<< "$(percentiles "$work/cost-$mode.floor.txt")"
        phase=$([ "$mode" = no-updates ] && echo '(begin|end|cancel)' || echo update)
        grep -E "^$phase " "$work/cost-$mode.txt" > "$work/cost-$mode.latency.txt"
        read -r gn g50 g99 gmax <<< "$(percentiles "$work/cost-$mode.latency.txt")"
        [ -n "${fn:-}" ] && [ -n "${gn:-}" ] || continue
        report "  latency, the frame's kernel timestamp -> read() returning it ($mode pass; both readers at gestured's nice value):"
        report "    floor, a plain reader of the device: median $f50 ms, p99 $f99 ms, max $fmax ms over $fn frames"
        excess=$(awk -v a="$g50" -v b="$f50" -v c="$g99" -v d="$f99" 'BEGIN { printf "median +%.3f ms, p99 +%.3f ms", a - b, c - d }')
        case $mode in
            updates | no-updates)
                report "    gestured's client ($([ "$mode" = updates ] && echo "updates" || echo "begin/end/cancel")):          median $g50 ms, p99 $g99 ms, max $gmax ms over $gn events"
                report "    added by gestured: $excess (goal: median <= 0.5 ms, p99 <= 1 ms, on a quiet machine)" ;;
            relay)
                report "    the relay's client (a line a frame):   median $g50 ms, p99 $g99 ms, max $gmax ms over $gn frames"
                report "    added by the relay, one hop through a process that does nothing else: $excess" ;;
        esac
        if [ "$mode" = updates ]; then
            updates_excess50=$(awk -v a="$g50" -v b="$f50" 'BEGIN { print a - b }'); updates_excess99=$(awk -v a="$g99" -v b="$f99" 'BEGIN { print a - b }')
        elif [ "$mode" = relay ]; then
            relay_excess50=$(awk -v a="$g50" -v b="$f50" 'BEGIN { print a - b }'); relay_excess99=$(awk -v a="$g99" -v b="$f99" 'BEGIN { print a - b }')
        fi
        if [ "$mode" = updates ]; then
            if [ "$gn" -ge 1000 ] && [ "$fn" -ge 1000 ]; then
                result latency PASS "gestured's client median $g50 ms, p99 $g99 ms over $gn updates; floor median $f50 ms, p99 $f99 ms over $fn frames; $excess"
            else
                result latency FAIL "too few measured (need >= 1000 each): $gn updates, $fn floor frames"
            fi
        fi
    done
    if [ -n "$relay_excess50" ] && [ -n "$updates_excess50" ]; then
        report "$(awk -v a="$updates_excess50" -v b="$relay_excess50" -v c="$updates_excess99" -v d="$relay_excess99" 'BEGIN {
            printf "  gestured'"'"'s excess (updates pass) above the relay'"'"'s (relay pass): median %+.3f ms, p99 %+.3f ms", a - b, c - d }')"
    fi
    if [ -s "$work/cost-memory.txt" ]; then
        report "  idle memory, one panel open (KiB, /proc/PID/smaps_rollup; goal for gestured: PSS <= 6144, Private_Dirty <= 1024):"
        while read -r who rss pss dirty; do
            report "$(printf '    %-9s RSS %6d  PSS %6d  Private_Dirty %6d' "$who" "$rss" "$pss" "$dirty")"
        done < "$work/cost-memory.txt"
        report "  the mappings that cost the most (tools/process-memory.sh -v; all of them in $work/cost-memory-detail.txt):"
        awk '/^memory:/ {n = 0; print "    " $0; next} n < 6 && NF >= 4 {print "    " $0; n++}' "$work/cost-memory-detail.txt" >> "$out/report.txt"
    fi
elif [ "$(cat "$rig/tests-to-run")" = "*" ]; then
    result latency FAIL "no cost figures from the guest (tests/vm/guest/tests/35-cost.sh did not run or failed early)"
fi
exit 0
