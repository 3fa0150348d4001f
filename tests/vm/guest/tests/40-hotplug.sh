# Hotplug beyond the replays' add/remove: a touchscreen removed mid-gesture gives `cancel` and the daemon
# runs on; the same touchscreen plugged in again works; two touchscreens at once each get their gestures.
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
ep=whot_evemu-devices__EP0430M09.desc

# first_id_since START DEVICE-ID PHASE — the gesture id of the first event with that phase.
first_id_since() {
    monitor_since "$1" | grep '"type":"gesture"' | grep "\"device\":\"$2\"" | grep "\"phase\":\"$3\"" \
        | head -1 | grep -oE '"id":[0-9]+' | cut -d: -f2
}

mark=$(monitor_lines)
if require_gestured hotplug-remove-mid-gesture && create_device "$REC/$wacom"; then
    id=$(basename "$DEV_NODE")
    pid=$(gestured_pid)
    gestured_has "$mark" "$DEV_NODE"
    start=$(monitor_lines)
    evemu-play "$DEV_NODE" < "$REC/$wacom.hold.events"      # the finger stays down: the pan is in flight
    if wait_for 20 "a pan to begin on $id" at_least 1 count_since "$start" "$id" begin; then
        began=$(first_id_since "$start" "$id" begin)
        destroy_device "$DEV_PID" "$DEV_NODE"
        if wait_for 20 "the pan to be cancelled" at_least 1 count_since "$start" "$id" cancel; then
            cancelled=$(first_id_since "$start" "$id" cancel)
            ends=$(count_since "$start" "$id" end)
            if [ "$cancelled" = "$began" ] && [ "$ends" = 0 ]; then
                pass hotplug-remove-mid-gesture "pan $began began, device removed, pan $cancelled cancelled (no end)"
            else
                fail hotplug-remove-mid-gesture "began $began, cancelled $cancelled, $ends end events"
            fi
        else
            fail hotplug-remove-mid-gesture "no cancel after the device went away mid-gesture"
        fi
        gestured_dropped "$mark" "$DEV_NODE"
        if [ "$(gestured_pid)" = "$pid" ] && systemctl is-active --quiet gestured.service \
                && wait_for 10 "the daemon to answer" eval 'gesturectl devices --json >/dev/null 2>&1'; then
            pass hotplug-daemon-runs-on "same process $pid, active, answers gesturectl devices"
        else
            fail hotplug-daemon-runs-on "pid $pid -> $(gestured_pid), $(systemctl is-active gestured.service)"
        fi
    else
        fail hotplug-remove-mid-gesture "no pan began for the held finger"
        destroy_device "$DEV_PID" "$DEV_NODE"
    fi
fi

# The same touchscreen again: a complete gesture, as on the first plug.
sentinel_ends=$(grep -c '"phase":"end"' "$RIG/expected/$wacom.sentinel.jsonl" 2>/dev/null || echo 1)
mark=$(monitor_lines)
if require_gestured hotplug-replug && create_device "$REC/$wacom"; then
    id=$(basename "$DEV_NODE")
    gestured_has "$mark" "$DEV_NODE"
    start=$(monitor_lines)
    evemu-play "$DEV_NODE" < "$REC/$wacom.sentinel.events"
    if wait_for 20 "the sentinel pan to end on $id" at_least 1 count_since "$start" "$id" end; then
        pass hotplug-replug "re-plugged $DEV_NODE: $(count_since "$start" "$id" 'begin') begin, $(count_since "$start" "$id" 'update') updates, $(count_since "$start" "$id" end) end"
    else
        fail hotplug-replug "no gesture ended on the re-plugged device"
    fi
    destroy_device "$DEV_PID" "$DEV_NODE"
fi

# Two touchscreens at once: the same sentinel into both at the same time; each device's gestures arrive
# under its own id, each complete.
mark=$(monitor_lines)
if require_gestured two-touchscreens && create_device "$REC/$wacom"; then
    a_node=$DEV_NODE a_pid=$DEV_PID
    if create_device "$REC/$ep"; then
        b_node=$DEV_NODE b_pid=$DEV_PID
        a=$(basename "$a_node") b=$(basename "$b_node")
        gestured_has "$mark" "$a_node" && gestured_has "$mark" "$b_node"
        start=$(monitor_lines)
        evemu-play "$a_node" < "$REC/$wacom.sentinel.events" & play_a=$!
        evemu-play "$b_node" < "$REC/$ep.sentinel.events" & play_b=$!
        wait "$play_a" "$play_b"
        if wait_for 20 "a gesture to end on each device" eval \
                '[ "$(count_since "$start" "$a" end)" -ge 1 ] && [ "$(count_since "$start" "$b" end)" -ge 1 ]'; then
            pass two-touchscreens "$a: $(count_since "$start" "$a" 'begin|update|end') events, $b: $(count_since "$start" "$b" 'begin|update|end') events, both begin..end"
        else
            fail two-touchscreens "$a ended $(count_since "$start" "$a" end), $b ended $(count_since "$start" "$b" end) gestures"
        fi
        check two-touchscreens-no-cancel "no gesture cancelled while both were touched" \
            eval '[ "$(count_since "$start" "$a" cancel)" = 0 ] && [ "$(count_since "$start" "$b" cancel)" = 0 ]'
        destroy_device "$b_pid" "$b_node"
    else
        fail two-touchscreens "could not make the second device"
    fi
    destroy_device "$a_pid" "$a_node"
fi
