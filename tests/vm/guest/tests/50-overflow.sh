# A burst that overflows the kernel's per-client buffer with a gesture in flight: a finger goes down and a
# pan begins; the daemon is stopped (SIGSTOP) while the same finger moves on through 3000 frames and lifts,
# so evdev drops events and queues SYN_DROPPED. After SIGCONT the daemon must say so, cancel the pan in
# flight (never end it: it did not see how it ended), report no other gesture from the burst, and
# recognize the next gesture as usual.
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
mark=$(monitor_lines)
if require_gestured overflow-syn-dropped && create_device "$REC/$wacom"; then
    id=$(basename "$DEV_NODE")
    pid=$(gestured_pid)
    gestured_has "$mark" "$DEV_NODE"
    dropped_before=$(journal_count "$id.*SYN_DROPPED")
    start=$(monitor_lines)
    evemu-play "$DEV_NODE" < "$REC/$wacom.hold.events"
    wait_for 20 "the held finger's pan to begin" at_least 1 count_since "$start" "$id" begin \
        || fail overflow-gesture-in-flight "no pan began before the burst"
    # The daemon is stopped for as long as the burst takes to play, under TCG longer than the unit's
    # watchdog (WatchdogSec=2s), which would kill it: service watchdogs are off meanwhile (the watchdog has
    # its own check, passthrough:watchdog-frees-a-stopped-panel).
    systemctl service-watchdogs no
    kill -STOP "$pid"
    evemu-play "$DEV_NODE" < "$REC/$wacom.burst.events"
    kill -CONT "$pid"
    systemctl service-watchdogs yes
    burst_end=$(monitor_lines)
    evemu-play "$DEV_NODE" < "$REC/$wacom.sentinel.events"
    if wait_for 30 "gestured to report the dropped events" at_least $(( dropped_before + 1 )) journal_count "$id.*SYN_DROPPED"; then
        pass overflow-syn-dropped "journal: $(journalctl -b -u gestured.service -o cat --no-pager | grep SYN_DROPPED | tail -1)"
    else
        fail overflow-syn-dropped "no SYN_DROPPED warning in the journal: the burst did not overflow, or the daemon did not notice"
    fi
    # The sentinel's pan ends; before it, nothing but a cancelled pan (or nothing) may come from the burst.
    if wait_for 30 "the sentinel pan to end" at_least 1 count_since "$start" "$id" end; then
        monitor_since "$start" | grep '"type":"gesture"' | grep "\"device\":\"$id\"" > "$WORK/overflow.jsonl"
        ids=$(grep -oE '"id":[0-9]+' "$WORK/overflow.jsonl" | sort -u -t: -k2n | cut -d: -f2)
        last=$(echo "$ids" | tail -1)
        wrong=""
        for g in $ids; do
            events=$(grep "\"id\":$g," "$WORK/overflow.jsonl")
            kind=$(grep -oE '"gesture":"[a-z-]+"' <<< "$events" | head -1)
            phases=$(grep -oE '"phase":"[a-z]+"' <<< "$events" | cut -d'"' -f4 | uniq | tr '\n' ' ')
            if [ "$g" = "$last" ]; then
                [[ $phases =~ ^begin\ (update\ )?end\ $ ]] && [ "$kind" = '"gesture":"pan"' ] || wrong="$wrong sentinel $g: $kind $phases;"
            else
                [[ $phases =~ (^|\ )end\  ]] && wrong="$wrong gesture $g from the burst ended: $kind $phases;"
                [[ $phases =~ cancel ]] || wrong="$wrong gesture $g from the burst not cancelled: $kind $phases;"
            fi
        done
        n=$(echo "$ids" | wc -w)
        [ "$n" -ge 2 ] || wrong="$wrong the pan in flight during the burst is missing ($n gesture(s) in all);"
        if [ -z "$wrong" ]; then
            pass overflow-no-wrong-gestures "the pan in flight cancelled ($(( n - 1 )) gesture(s) before the sentinel, none ended); then the sentinel pan begin..end"
        else
            fail overflow-no-wrong-gestures "$wrong (events in $WORK/overflow.jsonl)"
        fi
    else
        fail overflow-no-wrong-gestures "the gesture after the burst never ended"
    fi
    check overflow-daemon-runs-on "same process $pid, active" eval '[ "$(gestured_pid)" = "$pid" ] && systemctl is-active --quiet gestured.service'
    destroy_device "$DEV_PID" "$DEV_NODE"
fi
