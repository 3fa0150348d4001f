# What gestured costs beside lisgd and beside the floor (issue 11's figures, printed in the report): one
# touchscreen, three real recordings replayed four times each (then the sentinel), in three passes:
#   1. gestured with one client subscribed to everything, updates included (gesture-latency SOCKET);
#   2. gestured with one client subscribed with updates off (gesture-latency SOCKET --no-updates): begin,
#      end and cancel only, the same work lisgd does, acting when a gesture is over;
#   3. the relay (gesture-latency --relay NODE SOCKET) with its client in gestured's place: the least a
#      process between the panel and a client can do (read each frame, send a line of an update's size), so
#      the cost of the hop itself, in latency and in CPU (gestured, with no client then, still reads the panel);
# with lisgd listening to the same replays each time, and a plain reader of the device (gesture-latency
# --device NODE --held) timestamping every frame as it reads it: the floor any reader of the panel pays, in
# latency and in CPU (it keeps its lines until the pass is over, so a frame costs it a read and a clock).
# The readers, the relay and the clients run at gestured's priority. The
# monitor client of 20-gestured.sh is stopped meanwhile, so gestured serves exactly the one client.
# Each pass must give at least 1000 frames to the floor reader and (with updates, and the relay's) 1000
# updates to the client.
# Then the idle memory of both daemons (/proc/PID/smaps_rollup). The host turns the files into the report
# (tests/vm/host-checks.sh): CPU per frame and the ratios to lisgd, latency median and p99 above the floor.
cost_desc=whot_evemu-devices__EP0430M09.desc
cost_names=(ep-1f-drag-up-down ep-2f-scroll-down ep-4f-drag-down)
cost_rounds=4

# cost_events NAME — the recording's events file, from recordings.list.
cost_events() { recordings | awk -v n="$1" '$1 == n {print $3}'; }
# finished_in FILE — gestures that end or cancel in a gesture-latency output.
finished_in() { grep -cE '^(end|cancel) ' "$1" 2>/dev/null || true; }
# updates_in FILE — update lines in a gesture-latency output (the relay's client: one per frame).
updates_in() { grep -c '^update ' "$1" 2>/dev/null || true; }
# The relay's socket (the relay pass).
relay_socket=/run/vmtest-relay.sock
# held_blocks — how many times the floor reader (--held) has written its lines (one "held N" line each).
held_blocks() { grep -c '^held ' "$WORK/cost-floor.txt" 2>/dev/null || true; }
# held_written N — whether the floor reader has written its lines N times; if not, asks it (again): a
# SIGUSR1 that lands just before the reader blocks in read() waits for the next frame, and after a pass
# none comes. An extra request only adds an empty block ("held 0") after the pass's.
held_written() { [ "$(held_blocks)" -ge "$1" ] && return 0; kill -USR1 "$floor_pid" 2>/dev/null; return 1; }
# context_switches PID — times the process was switched out, voluntarily (it waited: one per wake-up) or
# not (preempted), from /proc/PID/status.
context_switches() { awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }' "/proc/$1/status"; }
# sched_trace_start DAEMON CLIENT FLOOR LISGD NAME / sched_trace_stop PREFIX — with VM_SCHED_TRACE=1, a kernel
# trace of the pass (tracefs, CLOCK_MONOTONIC like the frames' timestamps): every wake-up and switch of any
# task, and the system calls of the four processes named (DAEMON: gestured, or the relay, as NAME says). PREFIX.trace is the trace, PREFIX.pids the
# processes; tools/sched-trace.py on the host breaks each frame's latency down from them (docs/testing.md).
tracefs=/sys/kernel/tracing
sched_trace_start() {
    [ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs" || return 0
    echo 0 > "$tracefs/tracing_on"
    echo > "$tracefs/trace"
    echo mono > "$tracefs/trace_clock"
    echo 16384 > "$tracefs/buffer_size_kb"
    echo "daemon=$1 client=$2 floor=$3 lisgd=$4 name=$5" > "$WORK/sched-pids"
    echo "common_pid == $1 || common_pid == $2 || common_pid == $3 || common_pid == $4" > "$tracefs/events/raw_syscalls/filter"
    for event in sched/sched_waking sched/sched_wakeup sched/sched_switch raw_syscalls/sys_enter raw_syscalls/sys_exit; do
        echo 1 > "$tracefs/events/$event/enable"
    done
    echo 1 > "$tracefs/tracing_on"
}
sched_trace_stop() {
    [ -d "$tracefs/events" ] || return 0
    echo 0 > "$tracefs/tracing_on"
    cat "$tracefs/trace" > "$1.trace"
    mv "$WORK/sched-pids" "$1.pids"
    echo 0 > "$tracefs/events/enable"
    echo > "$tracefs/trace"
    echo 1408 > "$tracefs/buffer_size_kb"
}
# smaps_rollup PID — "RSS PSS PRIVATE_DIRTY" in KiB, from tools/process-memory.sh (also what the host's
# gestured-socket-bench reports).
smaps_rollup() { sh "$RIG/bin/process-memory.sh" "$1" | sed -n 's/.* rss_kib=\([0-9]*\) pss_kib=\([0-9]*\) private_dirty_kib=\([0-9]*\).*/\1 \2 \3/p'; }

if require_gestured cost:updates; then
    # Gestures per round as `gesturectl replay` counts them on the host, and the sentinel's.
    want=0
    for name in "${cost_names[@]}"; do
        want=$(( want + cost_rounds * $(grep -cE '"phase":"(end|cancel)"' "$RIG/expected/$name.jsonl") ))
    done
    want=$(( want + $(grep -cE '"phase":"(end|cancel)"' "$RIG/expected/$cost_desc.sentinel.jsonl") ))

    kill "$monitor_pid" 2>/dev/null; wait "$monitor_pid" 2>/dev/null
    if create_device "$REC/$cost_desc"; then
        node=$DEV_NODE
        rm -f /run/lisgd.out; touch /run/lisgd.out
        systemd-run --quiet --unit=lisgd-cost -p Type=simple lisgd -d "$node" "${lisgd_args[@]}"
        lisgd_pid=$(systemctl show -p MainPID --value lisgd-cost)
        pid=$(gestured_pid)
        # The floor reader and gestured's client run at gestured's priority (Nice=-10 in its unit), the same
        # for both, so that the excess is the hop through gestured and not a difference of priority: a floor
        # reader given less would wait behind gestured for the CPU and flatter it; a client given less than
        # the floor reader would wait behind lisgd and the player, and be flattered by nothing.
        daemon_nice=$(awk '{print $19}' "/proc/$pid/stat")
        nice -n "${daemon_nice:-0}" "$RIG/bin/gesture-latency" --device "$node" --held > "$WORK/cost-floor.txt" 2> "$WORK/cost-floor.stderr" &
        floor_pid=$!
        ready=1
        wait_for 20 "lisgd to open $node" has_fd_open "$lisgd_pid" "$node" || ready=0
        wait_for 20 "the floor reader to open $node" file_has_line "$WORK/cost-floor.stderr" opened || ready=0
        wait_for 20 "gestured to open $node" has_fd_open "$pid" "$node" || ready=0
        frames_per_pass=0
        for name in "${cost_names[@]}"; do
            frames_per_pass=$(( frames_per_pass + cost_rounds * $(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC/$(cost_events "$name")") ))
        done
        frames_per_pass=$(( frames_per_pass + $(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC/$cost_desc.sentinel.events") ))

        for mode in updates no-updates relay; do
            check_name=cost:$mode
            if [ "$ready" != 1 ]; then fail "$check_name" "lisgd, the floor reader or gestured did not open $node"; continue; fi
            out=$WORK/cost-$mode.txt
            # measured: the process whose CPU is compared with lisgd's (gestured, or the relay in its pass).
            measured=$pid
            if [ "$mode" = relay ]; then
                rm -f "$relay_socket"
                nice -n "${daemon_nice:-0}" "$RIG/bin/gesture-latency" --relay "$node" "$relay_socket" \
                    > /dev/null 2> "$WORK/cost-relay-daemon.stderr" &
                measured=$!
                if ! wait_for 20 "the relay to listen" file_has_line "$WORK/cost-relay-daemon.stderr" listening; then
                    fail "$check_name" "the relay did not start: $(cat "$WORK/cost-relay-daemon.stderr")"
                    kill "$measured" 2>/dev/null; continue
                fi
            fi
            nice -n "${daemon_nice:-0}" "$RIG/bin/gesture-latency" \
                $(case $mode in updates) echo /run/gestured/gestured.sock ;; no-updates) echo /run/gestured/gestured.sock --no-updates ;; relay) echo "$relay_socket" ;; esac) \
                > "$out" 2> "$WORK/cost-$mode.stderr" &
            client_pid=$!
            if ! wait_for 20 "the $mode client to subscribe" file_has_line "$WORK/cost-$mode.stderr" subscribed; then
                fail "$check_name" "gesture-latency did not subscribe: $(cat "$WORK/cost-$mode.stderr")"
                kill "$client_pid" 2>/dev/null; [ "$measured" != "$pid" ] && kill "$measured" 2>/dev/null; continue
            fi
            : > /run/lisgd.out
            held_before=$(held_blocks)
            perf_pid=
            if [ -f "$RIG/profile" ] && command -v perf >/dev/null; then
                perf record -q -e cpu-clock -F 4000 -g -p "$measured,$lisgd_pid" -o "$WORK/perf-$mode.data" 2> "$WORK/perf-$mode.stderr" &
                perf_pid=$!
                perf stat -e 'syscalls:sys_enter_*',context-switches,cpu-clock --per-thread -p "$measured,$lisgd_pid" \
                    -o "$WORK/perf-$mode.stat.txt" 2>> "$WORK/perf-$mode.stderr" &
                perf_stat_pid=$!
                sleep 1
            fi
            if [ -f "$RIG/sched-trace" ]; then sched_trace_start "$measured" "$client_pid" "$floor_pid" "$lisgd_pid" "$([ "$mode" = relay ] && echo relay || echo gestured)"; fi
            g0=$(cpu_ns "$measured"); l0=$(cpu_ns "$lisgd_pid"); f0=$(cpu_ns "$floor_pid")
            gs0=$(context_switches "$measured"); ls0=$(context_switches "$lisgd_pid"); fs0=$(context_switches "$floor_pid")
            for ((round = 0; round < cost_rounds; round++)); do
                for name in "${cost_names[@]}"; do evemu-play "$node" < "$REC/$(cost_events "$name")"; done
            done
            evemu-play "$node" < "$REC/$cost_desc.sentinel.events"
            done_g=1; done_l=1
            if [ "$mode" = relay ]; then
                # The relay sends a line for every frame.
                wait_for 30 "the relay's client to see $frames_per_pass frames" at_least "$frames_per_pass" updates_in "$out" || done_g=0
            else
                wait_for 30 "gestured's client to see $want gestures finish" at_least "$want" finished_in "$out" || done_g=0
            fi
            wait_for 30 "lisgd to recognize the sentinel" file_has_line /run/lisgd.out '^1-DRUL$' || done_l=0
            g_ns=$(( $(cpu_ns "$measured") - g0 )); l_ns=$(( $(cpu_ns "$lisgd_pid") - l0 )); f_ns=$(( $(cpu_ns "$floor_pid") - f0 ))
            if [ -f "$RIG/sched-trace" ]; then sched_trace_stop "$WORK/sched-$mode"; fi
            g_switches=$(( $(context_switches "$measured") - gs0 )); l_switches=$(( $(context_switches "$lisgd_pid") - ls0 ))
            f_switches=$(( $(context_switches "$floor_pid") - fs0 ))
            # Now (its CPU taken) the floor reader writes the pass's lines.
            wait_for 20 "the floor reader to write the pass's frames" held_written "$(( held_before + 1 ))" || true
            if [ -n "$perf_pid" ]; then
                kill -INT "$perf_pid" "$perf_stat_pid"; wait "$perf_pid" "$perf_stat_pid" 2>/dev/null
                # The installed binary is stripped; the staged one is the same build with its symbols.
                perf buildid-cache --add "$RIG/stage/usr/bin/gestured" 2>> "$WORK/perf-$mode.stderr"
                for sort in comm,dso comm,dso,sym; do
                    perf report -i "$WORK/perf-$mode.data" --no-children --stdio --sort "$sort" \
                        --percent-limit 0.3 -g none > "$WORK/perf-$mode.${sort//,/-}.txt" 2>&1
                done
                perf report -i "$WORK/perf-$mode.data" --no-children --stdio --sort comm,sym \
                    --percent-limit 2 -g caller,0.5,callee --comm gestured > "$WORK/perf-$mode.gestured-callers.txt" 2>&1
            fi
            awk -v n="$held_before" '/^held / { block++; next } block == n' "$WORK/cost-floor.txt" > "$WORK/cost-$mode.floor.txt"
            floor_frames=$(wc -l < "$WORK/cost-$mode.floor.txt")
            kill "$client_pid" 2>/dev/null; wait "$client_pid" 2>/dev/null
            if [ "$measured" != "$pid" ]; then kill "$measured" 2>/dev/null; wait "$measured" 2>/dev/null; rm -f "$relay_socket"; fi
            echo "$frames_per_pass $g_ns $l_ns $g_switches $l_switches $f_ns $f_switches" > "$WORK/cost-$mode.cpu"
            if [ "$mode" = relay ]; then
                seen="the relay's client read $(updates_in "$out") of $frames_per_pass frames"
            else
                seen="gestured's client saw $(finished_in "$out") of $want gestures finish ($(updates_in "$out") updates)"
            fi
            check "$check_name" "$frames_per_pass frames replayed, the floor reader read $floor_frames; $seen; lisgd recognized the sentinel: $([ "$done_l" = 1 ] && echo yes || echo no); CPU ns $([ "$mode" = relay ] && echo relay || echo gestured) $g_ns, lisgd $l_ns, floor reader $f_ns" \
                eval '[ "$done_g" = 1 ] && [ "$done_l" = 1 ] && [ "$floor_frames" -ge 1000 ] && { [ "$mode" = no-updates ] || [ "$(updates_in "$out")" -ge 1000 ]; }'
        done

        # Idle: nothing touches the panel; both daemons hold it open, gestured has no client.
        sleep 1
        read -r g_rss g_pss g_dirty <<< "$(smaps_rollup "$(gestured_pid)")"
        read -r l_rss l_pss l_dirty <<< "$(smaps_rollup "$lisgd_pid")"
        echo "gestured $g_rss $g_pss $g_dirty" > "$WORK/cost-memory.txt"
        echo "lisgd $l_rss $l_pss $l_dirty" >> "$WORK/cost-memory.txt"
        # What each mapped file costs, for the report.
        sh "$RIG/bin/process-memory.sh" -v "$(gestured_pid)" "$lisgd_pid" > "$WORK/cost-memory-detail.txt" 2>&1
        check cost:memory "idle, one panel open, KiB: gestured RSS $g_rss PSS $g_pss Private_Dirty $g_dirty; lisgd RSS $l_rss PSS $l_pss Private_Dirty $l_dirty" \
            eval '[ -n "$g_pss" ] && [ -n "$l_pss" ]'

        systemctl stop lisgd-cost
        kill "$floor_pid" 2>/dev/null; wait "$floor_pid" 2>/dev/null
        destroy_device "$DEV_PID" "$node"
    else
        fail cost:updates "evemu-device made no device"
    fi
    # The monitor again, appending, for the checks after this file.
    gesturectl monitor --json >> "$MONITOR" 2>> "$WORK/monitor.stderr" &
    monitor_pid=$!
    wait_for 20 "gesturectl monitor to subscribe again" eval '[ "$(grep -c "\"type\":\"subscribed\"" "$MONITOR")" -ge 2 ]' \
        || fail cost:monitor-again "gesturectl monitor did not subscribe again: $(tail -2 "$WORK/monitor.stderr")"
fi

# Instructions per frame of gestured and of lisgd, each under callgrind, on the same replays (the three
# recordings once each and the sentinel), gestured with one client subscribed with updates off: the
# deterministic comparison that TCG's timing noise cannot give. Each program runs twice under callgrind,
# once idle (started, the panel open, its client subscribed, stopped) and once with the replays, and the
# difference of the two runs' instruction totals, over the frames replayed, is its cost per frame: start-up
# and exit cancel out. gestured runs as a second instance beside the service, on a socket of its own.
cg_socket=/run/vmtest-callgrind.sock
# callgrind_total FILE — the instructions callgrind counted (its "totals:" or "summary:" line).
callgrind_total() { awk '/^(summary|totals):/ { print $2; exit }' "$1" 2>/dev/null; }
# callgrind_run NAME REPLAY — one run of both programs under callgrind on node $node; REPLAY 1 plays the
# recordings, 0 none. Leaves $WORK/callgrind-NAME-{gestured,lisgd}.out.
callgrind_run() {
    local name=$1 replay=$2 g l c
    rm -f "$cg_socket" /run/lisgd.out; touch /run/lisgd.out
    valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind-$name-lisgd.out" \
        lisgd -d "$node" "${lisgd_args[@]}" > /dev/null 2> "$WORK/callgrind-$name-lisgd.stderr" &
    l=$!
    valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind-$name-gestured.out" \
        /usr/bin/gestured --socket "$cg_socket" > "$WORK/callgrind-$name-gestured.stderr" 2>&1 &
    g=$!
    wait_for 300 "lisgd under callgrind to open $node" has_fd_open "$l" "$node" || { kill "$l" "$g"; wait "$l" "$g"; return 1; }
    wait_for 300 "gestured under callgrind to open $node" has_fd_open "$g" "$node" || { kill "$l" "$g"; wait "$l" "$g"; return 1; }
    wait_for 300 "gestured under callgrind to listen" test -S "$cg_socket" || { kill "$l" "$g"; wait "$l" "$g"; return 1; }
    "$RIG/bin/gesture-latency" "$cg_socket" --no-updates > "$WORK/callgrind-$name-client.txt" 2> "$WORK/callgrind-$name-client.stderr" &
    c=$!
    wait_for 120 "the callgrind pass's client to subscribe" file_has_line "$WORK/callgrind-$name-client.stderr" subscribed \
        || { kill "$l" "$g" "$c"; wait "$l" "$g" "$c"; return 1; }
    local ok=0
    if [ "$replay" = 1 ]; then
        for cg_name in "${cost_names[@]}"; do evemu-play "$node" < "$REC/$(cost_events "$cg_name")"; done
        evemu-play "$node" < "$REC/$cost_desc.sentinel.events"
        wait_for 300 "gestured under callgrind to finish $cg_want gestures" at_least "$cg_want" finished_in "$WORK/callgrind-$name-client.txt" \
            && wait_for 300 "lisgd under callgrind to recognize the sentinel" file_has_line /run/lisgd.out '^1-DRUL$' || ok=1
    else
        sleep 2
    fi
    kill "$c" 2>/dev/null; wait "$c" 2>/dev/null
    # SIGTERM: gestured stops through its signalfd, lisgd by the signal; callgrind writes its file either way.
    kill -TERM "$g" "$l" 2>/dev/null; wait "$g" "$l" 2>/dev/null
    return "$ok"
}
if ! command -v valgrind > /dev/null; then
    fail cost:callgrind "valgrind is not in the guest image (tests/vm/run.sh's GUEST_PACKAGES)"
elif require_gestured cost:callgrind; then
    cg_want=0
    for name in "${cost_names[@]}"; do cg_want=$(( cg_want + $(grep -cE '"phase":"(end|cancel)"' "$RIG/expected/$name.jsonl") )); done
    cg_want=$(( cg_want + $(grep -cE '"phase":"(end|cancel)"' "$RIG/expected/$cost_desc.sentinel.jsonl") ))
    cg_frames=0
    for name in "${cost_names[@]}"; do
        cg_frames=$(( cg_frames + $(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC/$(cost_events "$name")") ))
    done
    cg_frames=$(( cg_frames + $(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC/$cost_desc.sentinel.events") ))
    if create_device "$REC/$cost_desc"; then
        node=$DEV_NODE
        if callgrind_run idle 0 && callgrind_run replay 1; then
            g_idle=$(callgrind_total "$WORK/callgrind-idle-gestured.out"); g_replay=$(callgrind_total "$WORK/callgrind-replay-gestured.out")
            l_idle=$(callgrind_total "$WORK/callgrind-idle-lisgd.out"); l_replay=$(callgrind_total "$WORK/callgrind-replay-lisgd.out")
            line=$(awk -v f="$cg_frames" -v gi="${g_idle:-0}" -v gr="${g_replay:-0}" -v li="${l_idle:-0}" -v lr="${l_replay:-0}" 'BEGIN {
                g = (gr - gi) / f; l = (lr - li) / f
                printf "gestured %.0f, lisgd %.0f instructions per frame: %.2fx lisgd (goal <= 1.0x)", g, l, (l > 0 ? g / l : 0) }')
            echo "$cg_frames ${g_idle:-} ${g_replay:-} ${l_idle:-} ${l_replay:-}" > "$WORK/cost-callgrind.txt"
            report "Under callgrind, updates off, the 3 EP0430M09 recordings once and the sentinel ($cg_frames frames): $line"
            check cost:callgrind "$line (totals idle/replay: gestured $g_idle/$g_replay, lisgd $l_idle/$l_replay)" \
                eval '[ -n "$g_idle" ] && [ -n "$g_replay" ] && [ -n "$l_idle" ] && [ -n "$l_replay" ] && [ "$g_replay" -gt "$g_idle" ] && [ "$l_replay" -gt "$l_idle" ]'
        else
            fail cost:callgrind "a run under callgrind did not finish: $(tail -3 "$WORK"/callgrind-*-gestured.stderr "$WORK"/callgrind-*-lisgd.stderr 2>/dev/null | tr '\n' ' ' | cut -c1-400)"
        fi
        destroy_device "$DEV_PID" "$node"
    else
        fail cost:callgrind "evemu-device made no device"
    fi
fi
