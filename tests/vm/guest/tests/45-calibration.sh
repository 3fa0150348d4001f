# udev's LIBINPUT_CALIBRATION_MATRIX, as hwdb sets it for panels mounted rotated and libinput applies it,
# turns gestured's coordinates with the panel when the configuration sets no geometry for the device.
# The sentinel drags from 80%,80% to 20%,20% of the device's axes; under the 90° matrix [0 -1 1 1 0 0]
# (x' = 1 - y, y' = x) it lands at (0.2, 0.8) on screen and moves right and up, where unrotated it lands
# at (0.8, 0.8) and moves left and up.
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
rule=/run/udev/rules.d/99-gestured-test-calibration.rules

mark=$(monitor_lines)
if require_gestured udev-calibration-matrix; then
    mkdir -p /run/udev/rules.d
    printf '%s\n' 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="Wacom ISDv4 E6 Finger", ENV{LIBINPUT_CALIBRATION_MATRIX}="0 -1 1 1 0 0"' > "$rule"
    udevadm control --reload
    journal_before=$(journal_count "using udev's LIBINPUT_CALIBRATION_MATRIX 0.0 -1.0 1.0 1.0 0.0 0.0")
    if create_device "$REC/$wacom"; then
        id=$(basename "$DEV_NODE")
        gestured_has "$mark" "$DEV_NODE"
        start=$(monitor_lines)
        evemu-play "$DEV_NODE" < "$REC/$wacom.sentinel.events"
        if wait_for 20 "the sentinel pan to end on $id" at_least 1 count_since "$start" "$id" end; then
            events=$(monitor_since "$start" | grep '"type":"gesture"' | grep "\"device\":\"$id\"")
            begin_x=$(printf '%s\n' "$events" | grep '"phase":"begin"' | head -1 | sed -E 's/.*"position":\{"x":([-0-9.]+),.*/\1/')
            end_t=$(printf '%s\n' "$events" | grep '"phase":"end"' | head -1 | sed -E 's/.*"translation":\{"x":([-0-9.]+),"y":([-0-9.]+)\}.*/\1 \2/')
            journal_after=$(journal_count "using udev's LIBINPUT_CALIBRATION_MATRIX 0.0 -1.0 1.0 1.0 0.0 0.0")
            if awk -v bx="$begin_x" -v t="$end_t" 'BEGIN { split(t, v, " "); exit !(bx < 0.3 && v[1] > 0.3 && v[2] < -0.3) }' \
                    && [ "$journal_after" -gt "$journal_before" ]; then
                pass udev-calibration-matrix "begin at x=$begin_x, moved ($end_t) as the rotated screen sees it; the journal names the matrix"
            else
                fail udev-calibration-matrix "begin x=$begin_x, end translation ($end_t), journal lines $journal_before -> $journal_after"
            fi
        else
            fail udev-calibration-matrix "no gesture ended on the device with the udev matrix"
        fi
        destroy_device "$DEV_PID" "$DEV_NODE"
    fi
    rm -f "$rule"
    udevadm control --reload
fi
