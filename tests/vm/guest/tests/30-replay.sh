# Replays every recording in recordings.list into a fresh uinput touchscreen (created after the daemon
# started: hotplug) with three listeners on the same replay: gestured (checked through the monitor client),
# lisgd as a service (for the side-by-side table) and evemu-record (what the kernel delivered). After the recording a sentinel (a 1-finger diagonal drag, tests/vm/gen-events.awk)
# is replayed: once a daemon has reported it, the daemon has seen everything before it — a fact to wait for.
# The host compares each daemon's output with `gesturectl replay` (tests/vm/host-checks.sh).

tick_ms=$(( 1000 / $(getconf CLK_TCK) ))


first_device=1
while read -r name desc events <&3; do
    [ "$GESTURED_UP" = 1 ] && mark=$(monitor_lines)
    if ! create_device "$REC/$desc"; then fail "replay:$name" "evemu-device made no device"; continue; fi
    id=$(basename "$DEV_NODE")

    stdbuf -oL evemu-record "$DEV_NODE" > "$WORK/$name.recorded" 2>/dev/null &
    rec_pid=$!
    rm -f /run/lisgd.out; touch /run/lisgd.out
    systemd-run --quiet --unit="lisgd-$name" -p Type=simple lisgd -d "$DEV_NODE" "${lisgd_args[@]}"
    lisgd_pid=$(systemctl show -p MainPID --value "lisgd-$name")
    ok=1
    wait_for 20 "evemu-record to open $DEV_NODE" has_fd_open "$rec_pid" "$DEV_NODE" || ok=0
    wait_for 20 "lisgd to open $DEV_NODE" has_fd_open "$lisgd_pid" "$DEV_NODE" || ok=0
    [ "$ok" = 1 ] || fail "listeners:$name" "evemu-record or lisgd did not open $DEV_NODE"
    gestured_ok=0
    if [ "$GESTURED_UP" = 1 ]; then
        pid=$(gestured_pid)
        # Hotplug: the daemon (started before this device existed) announces it, holds it open, lists it.
        if gestured_has "$mark" "$DEV_NODE"; then
            gestured_ok=1
        else
            fail "hotplug-add:$name" "gestured did not pick up $DEV_NODE (gesturectl devices: $(gesturectl devices 2>&1 | tr '\n' ' '))"
        fi
        if [ "$first_device" = 1 ] && [ "$gestured_ok" = 1 ]; then
            # The service user reads the device without root: its uids, no capabilities, the fd open.
            uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
            caps=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
            user=$(ps -o user= -p "$pid")
            if [ "$user" = gestured ] && [[ ! " $uids " =~ " 0 " ]] && [ "$caps" = 0000000000000000 ]; then
                pass service-user-reads-device "gestured runs as $user (uids $uids, CapEff $caps) and holds $DEV_NODE ($(stat -c '%A %U:%G' "$DEV_NODE")) open"
            else
                fail service-user-reads-device "user $user, uids $uids, CapEff $caps"
            fi
            first_device=0
        fi
        start=$(monitor_lines)
        gestured_before_ticks=$(cpu_ticks "$pid"); gestured_before_ns=$(cpu_ns "$pid")
    else
        fail "gestured:$name" "gestured not installed or not running"
    fi

    lisgd_before_ticks=$(cpu_ticks "$lisgd_pid"); lisgd_before_ns=$(cpu_ns "$lisgd_pid")
    log "$name: $DEV_NODE ready, replaying $events"
    evemu-play "$DEV_NODE" < "$REC/$events"
    evemu-play "$DEV_NODE" < "$REC/$desc.sentinel.events"
    log "$name: replayed"

    # The kernel delivered every touch of the recording and the sentinel (as many BTN_TOUCH presses).
    want=$(( $(count_presses "$REC/$events") + 1 ))
    if wait_for 20 "evemu-record to see $want touches" at_least "$want" count_presses "$WORK/$name.recorded"; then
        pass "evemu-play:$name" "$want touches replayed and delivered by the kernel"
    else
        fail "evemu-play:$name" "evemu-record saw $(count_presses "$WORK/$name.recorded") of $want touches"
    fi

    if wait_for 20 "lisgd to recognize the sentinel" file_has_line /run/lisgd.out '^1-DRUL$'; then
        cp /run/lisgd.out "$WORK/$name.lisgd"
    else
        fail "lisgd:$name" "lisgd ran no command for the sentinel swipe (journalctl -u lisgd-$name)"
    fi
    lisgd_ticks=$(( $(cpu_ticks "$lisgd_pid") - lisgd_before_ticks )); lisgd_ns=$(( $(cpu_ns "$lisgd_pid") - lisgd_before_ns ))

    if [ "$gestured_ok" = 1 ]; then
        # Done when as many gestures have finished (end or cancel) as gesturectl replay reported for the
        # recording and the sentinel on the host.
        finished=$(cat "$RIG/expected/$name.jsonl" "$RIG/expected/$desc.sentinel.jsonl" | grep -cE '"phase":"(end|cancel)"')
        if wait_for 30 "gestured to finish $finished gestures on $id" at_least "$finished" count_since "$start" "$id" 'end|cancel'; then
            pass "gestured:$name" "$finished gestures finished, as many as gesturectl replay reports"
        else
            fail "gestured:$name" "$(count_since "$start" "$id" 'end|cancel') of $finished gestures finished"
        fi
        gestured_ticks=$(( $(cpu_ticks "$pid") - gestured_before_ticks )); gestured_ns=$(( $(cpu_ns "$pid") - gestured_before_ns ))
        monitor_since "$start" | grep '"type":"gesture"' | grep "\"device\":\"$id\"" > "$WORK/$name.gestured.jsonl"
        echo "$lisgd_ticks $lisgd_ns $gestured_ticks $gestured_ns $tick_ms" > "$WORK/$name.cpu"
    else
        echo "$lisgd_ticks $lisgd_ns 0 0 $tick_ms" > "$WORK/$name.cpu"
    fi

    systemctl stop "lisgd-$name"
    kill "$rec_pid" 2>/dev/null; wait "$rec_pid" 2>/dev/null
    destroy_device "$DEV_PID" "$DEV_NODE"
    if [ "$gestured_ok" = 1 ]; then
        gestured_dropped "$mark" "$DEV_NODE" \
            || fail "hotplug-remove:$name" "gestured did not drop $DEV_NODE after it was removed"
    fi
done 3< <(recordings)

# lisgd, a service on a real uinput touchscreen, recognizes a plain one-finger swipe left to right.
check lisgd-recognizes-swipe "1-finger top swipe -> 1-LR" file_has_line "$WORK/wacom-1f-top-swipe.lisgd" '^1-LR$'
