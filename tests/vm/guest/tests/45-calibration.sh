# udev's LIBINPUT_CALIBRATION_MATRIX, as hwdb sets it for panels mounted rotated and libinput applies it,
# turns gestured's coordinates with the panel when the configuration sets no geometry for the device.
# The sentinel drags from 80%,80% to 20%,20% of the device's axes; under the 90° matrix [0 -1 1 1 0 0]
# (x' = 1 - y, y' = x) it lands at (0.2, 0.8) on screen and moves right and up, where unrotated it lands
# at (0.8, 0.8) and moves left and up.
#
# Then the orientation set at run time turns the screen on top of that matrix: at 270 ((x, y) -> (y, 1 - x))
# the two cancel out and the sentinel is unrotated again. A device plugged back starts at orientation 0:
# the matrix alone applies again.
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
rule=/run/udev/rules.d/99-gestured-test-calibration.rules

# sentinel_motion START ID — plays the sentinel on $DEV_NODE and sets BEGIN_X (where it landed on screen)
# and END_T ("x y": its translation at the end). Returns 1 when no gesture ended.
sentinel_motion() {
    evemu-play "$DEV_NODE" < "$REC/$wacom.sentinel.events"
    wait_for 20 "the sentinel pan to end on $2" at_least 1 count_since "$1" "$2" end || return 1
    local events
    events=$(monitor_since "$1" | grep '"type":"gesture"' | grep "\"device\":\"$2\"")
    BEGIN_X=$(printf '%s\n' "$events" | grep '"phase":"begin"' | head -1 | sed -E 's/.*"position":\{"x":([-0-9.]+),.*/\1/')
    END_T=$(printf '%s\n' "$events" | grep '"phase":"end"' | head -1 | sed -E 's/.*"translation":\{"x":([-0-9.]+),"y":([-0-9.]+)\}.*/\1 \2/')
}
# rotated_by_the_matrix / unrotated — where the sentinel went, as described above.
rotated_by_the_matrix() { awk -v bx="$BEGIN_X" -v t="$END_T" 'BEGIN { split(t, v, " "); exit !(bx < 0.3 && v[1] > 0.3 && v[2] < -0.3) }'; }
unrotated() { awk -v bx="$BEGIN_X" -v t="$END_T" 'BEGIN { split(t, v, " "); exit !(bx > 0.7 && v[1] < -0.3 && v[2] < -0.3) }'; }

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
        if sentinel_motion "$start" "$id"; then
            journal_after=$(journal_count "using udev's LIBINPUT_CALIBRATION_MATRIX 0.0 -1.0 1.0 1.0 0.0 0.0")
            if rotated_by_the_matrix && [ "$journal_after" -gt "$journal_before" ]; then
                pass udev-calibration-matrix "begin at x=$BEGIN_X, moved ($END_T) as the rotated screen sees it; the journal names the matrix"
            else
                fail udev-calibration-matrix "begin x=$BEGIN_X, end translation ($END_T), journal lines $journal_before -> $journal_after"
            fi
        else
            fail udev-calibration-matrix "no gesture ended on the device with the udev matrix"
        fi

        # gesturectl orientation 270 on top of the matrix: announced to the monitor, and the screen unrotated.
        start=$(monitor_lines)
        said=$(gesturectl orientation --device "$id" 270 2>&1)
        if [ "$said" = "$id	Wacom ISDv4 E6 Finger	orientation 270" ] \
                && wait_for 20 "device-changed for $id" eval "monitor_since $start | grep '\"type\":\"device-changed\"' | grep -q '\"id\":\"$id\".*\"orientation\":270'" \
                && sentinel_motion "$(monitor_lines)" "$id" && unrotated; then
            pass orientation-on-udev-matrix "gesturectl said '$said'; device-changed announced; begin at x=$BEGIN_X, moved ($END_T): the 270 turn undoes the 90 matrix"
        else
            fail orientation-on-udev-matrix "gesturectl said '$said'; begin x=${BEGIN_X:-?}, end translation (${END_T:-?}); monitor: $(monitor_since "$start" | grep -v '"type":"gesture"' | tr '\n' ' ')"
        fi
        destroy_device "$DEV_PID" "$DEV_NODE"
        gestured_dropped "$mark" "$DEV_NODE"

        # Plugged back: orientation 0 again (announced so), the matrix alone applies.
        mark=$(monitor_lines)
        if create_device "$REC/$wacom"; then
            id=$(basename "$DEV_NODE")
            gestured_has "$mark" "$DEV_NODE"
            BEGIN_X="" END_T=""
            if monitor_since "$mark" | grep '"type":"device-added"' | grep "\"path\":\"$DEV_NODE\"" | grep -q '"orientation":0' \
                    && sentinel_motion "$(monitor_lines)" "$id" && rotated_by_the_matrix; then
                pass orientation-forgotten-on-replug "$DEV_NODE added at orientation 0; begin at x=$BEGIN_X, moved ($END_T) by the matrix alone"
            else
                fail orientation-forgotten-on-replug "begin x=${BEGIN_X:-?}, end translation (${END_T:-?}); added as: $(monitor_since "$mark" | grep '"type":"device-added"' | tr '\n' ' ')"
            fi
            destroy_device "$DEV_PID" "$DEV_NODE"
        fi
    fi
    rm -f "$rule"
    udevadm control --reload
fi
