# Touch arbitration with a pen and palms by size (issue 31, docs/gestures.md "Pen and palm"): a uinput
# touchscreen and a uinput pen made by one passthrough-panel process (--pen), grouped by a udev rule of this
# test (LIBINPUT_DEVICE_GROUP on both), the panel in passthrough. Scripts play touches and the pen in one
# timeline; what the monitor client receives (gestures), what the copy is given (evemu-record) and what
# libinput makes of the copy and the pen together (its own touch arbitration, through the group the copy
# carries) are checked after each, once a sentinel tap played after it has come through.
config=/etc/gestured/gestured.toml
pen_panel_name="gestured pen test panel"
pen_pen_name="gestured pen test pen"
pen_rule=/run/udev/rules.d/99-gestured-test-pen.rules
pen_group=gestured-pen-test

# Scripts in one timeline: E: lines go to the panel, P: lines to the pen (passthrough-panel's play).
# Touches: "d SLOT X Y [MAJOR]" lands a contact (MAJOR: ABS_MT_TOUCH_MAJOR, 10 units a mm; a fingertip's 9 mm
# unless given: a slot keeps its last size in the kernel's state, so each contact says its own), "m SLOT X Y
# [MAJOR]" moves it, "u SLOT" lifts it, "f" ends a touch frame and moves time on 10 ms. The pen, one frame
# each: "pi X Y" comes into proximity, "pd" touches the glass, "pm X Y" moves, "pu" lifts, "po" leaves.
# "w MS" moves time on (an empty frame marks it, so the wait is played). Codes are decimal (mawk):
# ABS_MT_SLOT 47, TRACKING_ID 57, POSITION_X 53, _Y 54, TOUCH_MAJOR 48, BTN_TOUCH 330, BTN_TOOL_PEN 320,
# ABS_X 0, ABS_Y 1, ABS_PRESSURE 24.
pen_script() { # pen_script NAME < commands
    awk 'BEGIN { t = 1000000; id = 300; down = 0 }
        function e(dev, type, code, value) { printf "%s: %d.%06d %04x %04x %d\n", dev, int(t / 1000000), t % 1000000, type, code, value }
        $1 == "d" { e("E", 3, 47, $2); e("E", 3, 57, id++); e("E", 3, 53, $3); e("E", 3, 54, $4); e("E", 3, 48, $5 != "" ? $5 : 90); if (down++ == 0) e("E", 1, 330, 1) }
        $1 == "m" { e("E", 3, 47, $2); e("E", 3, 53, $3); e("E", 3, 54, $4); if ($5 != "") e("E", 3, 48, $5) }
        $1 == "u" { e("E", 3, 47, $2); e("E", 3, 57, -1); if (--down == 0) e("E", 1, 330, 0) }
        $1 == "f" { e("E", 0, 0, 0); t += 10000 }
        $1 == "pi" { e("P", 1, 320, 1); e("P", 3, 0, $2); e("P", 3, 1, $3); e("P", 0, 0, 0); t += 5000 }
        $1 == "pd" { e("P", 1, 330, 1); e("P", 3, 24, 2000); e("P", 0, 0, 0); t += 5000 }
        $1 == "pm" { e("P", 3, 0, $2); e("P", 3, 1, $3); e("P", 0, 0, 0); t += 5000 }
        $1 == "pu" { e("P", 3, 24, 0); e("P", 1, 330, 0); e("P", 0, 0, 0); t += 5000 }
        $1 == "po" { e("P", 1, 320, 0); e("P", 0, 0, 0); t += 5000 }
        $1 == "w" { t += $2 * 1000; e("E", 0, 0, 0) }' > "$WORK/pen-$1.events"
}
# pen_drag STEPS "SLOT X0 Y0 X1 Y1 [MAJOR]"...: touches moving together, a frame a step; with "pen X0 Y0 X1
# Y1" among them the pen moves along too.
pen_drag() {
    local steps=$1 i spec f; shift
    for ((i = 1; i <= steps; i++)); do
        for spec in "$@"; do
            read -r -a f <<< "$spec"
            if [ "${f[0]}" = pen ]; then
                echo "pm $(( f[1] + (f[3] - f[1]) * i / steps )) $(( f[2] + (f[4] - f[2]) * i / steps ))"
            else
                echo "m ${f[0]} $(( f[1] + (f[3] - f[1]) * i / steps )) $(( f[2] + (f[4] - f[2]) * i / steps )) ${f[5]:-}"
            fi
        done
        echo f
    done
}
# Each script ends 0.7 s after the pen left (the arbitration time is 0.5 s), so the sentinel after it is a tap.
pen_end() { echo "w 700"; }
# A palm (40 mm) resting below the pen while it writes a stroke; the pen leaves, then the palm lifts.
{ echo "pi 500 600"; echo "w 20"; echo "d 0 560 760 400"; echo f; echo pd
  pen_drag 30 "0 560 760 600 760 400" "pen 500 600 700 600"; echo pu; echo po; echo "u 0"; echo f; pen_end; } | pen_script palm-while-writing
# A wrist sliding in from the left edge (a finger's size: no palm by size) while the pen hovers.
{ echo "pi 300 800"; echo "w 20"; echo "d 0 10 900 90"; echo f; pen_drag 20 "0 10 900 600 900 90"; echo "u 0"; echo f
  echo po; pen_end; } | pen_script wrist-from-edge
# The edge swipe 0.1 s after the pen left: none; the same 0.8 s after: an edge swipe.
for gap in 100 800; do
    { echo "pi 300 800"; echo "w 200"; echo po; echo "w $gap"; echo "d 0 10 900"; echo f; pen_drag 20 "0 10 900 600 900"; echo "u 0"; echo f
      pen_end; } | pen_script "swipe-$gap-after"
done
# A 40 mm contact sliding in from the edge, no pen: a palm by its size, no edge swipe.
{ echo "d 0 10 900 400"; echo f; pen_drag 20 "0 10 900 600 900 400"; echo "u 0"; echo f; pen_end; } | pen_script palm-from-edge
# The edge swipe alone, 0.7 s after it is played (after an unplugged pen).
{ echo f; echo "w 700"; echo "d 0 10 900"; echo f; pen_drag 20 "0 10 900 600 900"; echo "u 0"; echo f; pen_end; } | pen_script swipe
# The pen writing (it stays down: it is unplugged while it writes).
{ echo "pi 500 600"; echo pd; for _ in $(seq 10); do echo "pm 520 620"; echo "pm 500 600"; done; } | pen_script writing
{ echo "pi 300 800"; echo "w 20"; echo "d 0 10 900"; echo f; pen_drag 20 "0 10 900 600 900"; echo "u 0"; echo f; echo po; pen_end; } | pen_script swipe-with-pen
# The sentinel (passthrough's): a tap in the middle landing at X 555, rolling to 556.
{ echo "d 0 555 555"; echo f; echo "m 0 556 555"; echo f; echo "u 0"; echo f; } | pen_script sentinel

pen_start() {
    coproc PENP { exec "$RIG/bin/passthrough-panel" "$pen_panel_name" --pen "$pen_pen_name" 2>> "$WORK/pen-panel.stderr"; }
    PEN_PANEL_PID=$PENP_PID
    PEN_PANEL=""; PEN_NODE=""
    read -r -t 30 PEN_PANEL <&"${PENP[0]}" && read -r -t 30 PEN_NODE <&"${PENP[0]}" \
        || { log "passthrough-panel --pen: $(cat "$WORK/pen-panel.stderr")"; return 1; }
    wait_for 20 "udev to finish with $PEN_PANEL" udev_done "$PEN_PANEL" && wait_for 20 "udev to finish with $PEN_NODE" udev_done "$PEN_NODE"
}
pen_cmd() { PEN_REPLY=""; echo "$1" >&"${PENP[1]}" && read -r -t 300 PEN_REPLY <&"${PENP[0]}"; }
pen_stop() {
    local fd=${PENP[1]:-}
    [ -n "$fd" ] && eval "exec $fd>&-"
    wait "$PEN_PANEL_PID" 2>/dev/null
    wait_for 20 "$PEN_PANEL to disappear" test ! -e "$PEN_PANEL"
}
pen_reload() {
    local before
    before=$(journal_count 'configuration reloaded')
    systemctl reload gestured.service
    wait_for 20 "the reload" at_least $(( before + 1 )) journal_count 'configuration reloaded'
}
pen_virtual() {
    gesturectl devices --json 2>/dev/null | tr '{' '\n' | grep "\"path\":\"$PEN_PANEL\"" \
        | grep -oE '"virtual_path":"[^"]*"' | cut -d'"' -f4
}
pen_has_virtual() { local v; v=$(pen_virtual); [ -n "$v" ] && [ -e "$v" ]; }
# The panel's line and its pen lines in `gesturectl devices`.
pen_devices() { gesturectl devices 2>/dev/null | awk -v node="$PEN_PANEL" '$0 ~ "\t" node "\t" { on = 1; print; next } /^\t/ && on { print; next } { on = 0 }'; }
pen_paired_by_group() { pen_devices | grep -qF "$(printf '\tpen %s "%s"\tpaired by group' "$PEN_NODE" "$pen_pen_name")"; }
pen_copy_sentinels() { grep -cE '^E: [0-9.]+ 0003 0035 0*556([[:space:]]|$)' "$WORK/pen-copy.evemu" 2>/dev/null || true; }
# pen_play NAME — plays a script and the sentinel; waits until the copy has the sentinel and the monitor the
# sentinel's tap; keeps the monitor's lines of the device, the copy's capture and libinput's lines from the
# script's start (pen-NAME.monitor, .copy, .libinput).
pen_play() {
    local mark copy_lines li_lines sentinels ok=0
    mark=$(wc -l < "$PEN_MONITOR"); copy_lines=$(wc -l < "$WORK/pen-copy.evemu"); li_lines=$(wc -l < "$WORK/pen-libinput.txt")
    sentinels=$(pen_copy_sentinels)
    pen_cmd "play $WORK/pen-$1.events"
    pen_cmd "play $WORK/pen-sentinel.events"
    wait_for 20 "the copy to be given the sentinel after $1" at_least $(( sentinels + 1 )) pen_copy_sentinels \
        && wait_for 20 "the monitor to get the sentinel's tap after $1" eval 'tail -n +"$(( mark + 1 ))" "$PEN_MONITOR" | grep "\"device\":\"$PEN_ID\"" | grep "\"gesture\":\"tap\"" | grep -q "\"phase\":\"begin\""' \
        || ok=1
    tail -n +"$(( mark + 1 ))" "$PEN_MONITOR" | grep '"type":"gesture"' | grep "\"device\":\"$PEN_ID\"" | grep -v '"gesture":"tap"' > "$WORK/pen-$1.monitor"
    tail -n +"$(( copy_lines + 1 ))" "$WORK/pen-copy.evemu" > "$WORK/pen-$1.copy"
    tail -n +"$(( li_lines + 1 ))" "$WORK/pen-libinput.txt" > "$WORK/pen-$1.libinput"
    return "$ok"
}
# What one script gave: gestures ("kind:phase ..."), touches the copy was given, MT_TOOL_PALM written to it.
pen_gestures() { grep -oE '"gesture":"[a-z-]+","phase":"[a-z]+"' "$WORK/pen-$1.monitor" | sed -E 's/"gesture":"([a-z-]+)","phase":"([a-z]+)"/\1:\2/' | grep -v ':update' | tr '\n' ' '; }
# (the sentinel's touch left out)
pen_copy_touches() { echo $(( $(grep -cE '^E: [0-9.]+ 0003 0039 [0-9]+([[:space:]]|$)' "$WORK/pen-$1.copy" || true) - 1 )); }
pen_copy_palms() { grep -cE '^E: [0-9.]+ 0003 0037 0*2([[:space:]]|$)' "$WORK/pen-$1.copy" || true; }
pen_copy_major() { grep -cE "^E: [0-9.]+ 0003 0030 0*$2([[:space:]]|\$)" "$WORK/pen-$1.copy" || true; }
# libinput's lines of a kind for a node (its sysname) in one script's slice.
pen_li() { grep -cE "^[- ]?$(basename "$2")[[:space:]]+$3[[:space:]]" "$WORK/pen-$1.libinput" || true; }
# The copy's TOUCH_DOWNs libinput reported for a script, the sentinel's (the last) left out.
pen_li_downs() { echo $(( $(pen_li "$1" "$VNODE" TOUCH_DOWN) - 1 )); }

systemctl reset-failed gestured.service 2>/dev/null
systemctl start gestured.service 2>/dev/null
if wait_for 30 "gestured to be active for the pen checks" systemctl is-active --quiet gestured.service \
        && wait_for 20 "the socket" test -S /run/gestured/gestured.sock; then
    GESTURED_UP=1
fi
if require_gestured pen:paired-by-group; then
    # A monitor client of its own: the one 20-gestured.sh started is gone when an earlier check restarted
    # the daemon (85-passthrough.sh does).
    PEN_MONITOR=$WORK/pen-monitor.jsonl
    gesturectl monitor --json > "$PEN_MONITOR" 2> "$WORK/pen-monitor.stderr" &
    pen_monitor_pid=$!
    wait_for 20 "a monitor client for the pen checks" file_has_line "$PEN_MONITOR" '"type":"subscribed"' || true
    cp "$config" /run/gestured.toml.pen-orig
    {
        cat /run/gestured.toml.pen-orig
        printf '\n[[device]]\nmatch_name = "%s"\npassthrough = true\n' "$pen_panel_name"
    } > "$config"
    pen_reload || true
    # The test's group: the panel and the pen alone (by their phys; the copy's is gestured-passthrough/...,
    # and it gets the panel's group through the shipped rule).
    mkdir -p /run/udev/rules.d
    printf '%s\n' "SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{phys}==\"passthrough-panel/*\", ATTRS{name}==\"gestured pen test *\", ENV{LIBINPUT_DEVICE_GROUP}=\"$pen_group\"" > "$pen_rule"
    udevadm control --reload
    journal_pairs=$(journal_count 'paired by same LIBINPUT_DEVICE_GROUP')
    if pen_start && wait_for 20 "gestured to list a copy of $PEN_PANEL" pen_has_virtual; then
        PEN_ID=$(basename "$PEN_PANEL")
        VNODE=$(pen_virtual)
        wait_for 20 "udev to finish with $VNODE" udev_done "$VNODE" || true
        props() { udevadm info --query=property --name="$1" | grep -E '^(ID_INPUT_TABLET|ID_INPUT_TOUCHSCREEN|LIBINPUT_DEVICE_GROUP)=' | sort | tr '\n' ' '; }
        grouped() { local n; props "$PEN_NODE" | grep -q "ID_INPUT_TABLET=1" || return 1
            for n in "$PEN_PANEL" "$PEN_NODE" "$VNODE"; do props "$n" | grep -q "LIBINPUT_DEVICE_GROUP=$pen_group " || return 1; done; }
        check pen:udev-group "panel: $(props "$PEN_PANEL"); pen: $(props "$PEN_NODE"); copy: $(props "$VNODE")" grouped
        wait_for 20 "gestured to pair $PEN_NODE with $PEN_PANEL" pen_paired_by_group || true
        check pen:paired-by-group "gesturectl devices: $(pen_devices | tr '\t\n' '  '); the log: $(journalctl -b -u gestured.service -o cat --no-pager | grep -F "$PEN_NODE" | tail -2 | tr '\n' ' ')" \
            eval 'pen_paired_by_group && [ "$(journal_count "pen $PEN_NODE .*paired by same LIBINPUT_DEVICE_GROUP")" -gt "$journal_pairs" ]'
        check pen:read-not-grabbed "gestured holds $PEN_NODE open: $(has_fd_open "$(gestured_pid)" "$PEN_NODE" && echo yes || echo no)" \
            has_fd_open "$(gestured_pid)" "$PEN_NODE"

        stdbuf -oL evemu-record "$VNODE" > "$WORK/pen-copy.evemu" 2>/dev/null & pen_rec=$!
        wait_for 10 "evemu-record on $VNODE" file_has_line "$WORK/pen-copy.evemu" '^N:' || true
        stdbuf -oL libinput debug-events --verbose --device "$VNODE" --device "$PEN_NODE" > "$WORK/pen-libinput.txt" 2>&1 &
        pen_li_pid=$!
        wait_for 20 "libinput debug-events to add the copy and the pen" eval '[ "$(grep -c DEVICE_ADDED "$WORK/pen-libinput.txt")" -ge 2 ]' || true
        # Given the copy and the pen alone, libinput pairs them by the group the copy carries (the copy has the
        # panel's name).
        check pen:libinput-arbitration-on-the-copy "libinput: $(grep -m1 'touch-arbitration' "$WORK/pen-libinput.txt")" \
            eval 'grep "touch-arbitration: activated" "$WORK/pen-libinput.txt" | grep -qF "$pen_panel_name"'

        # A palm resting while the pen writes: no gesture; the copy gets the palm as the panel reported it
        # (its size too) and nothing cancelled; libinput on the copy and the pen ignores the palm itself.
        if pen_play palm-while-writing; then
            g=$(pen_gestures palm-while-writing); t=$(pen_copy_touches palm-while-writing); p=$(pen_copy_palms palm-while-writing)
            m=$(pen_copy_major palm-while-writing 400)
            check pen:palm-while-writing "gestures: ${g:-none}; the copy was given $t touch(es), ABS_MT_TOUCH_MAJOR 400 $m time(s), MT_TOOL_PALM $p time(s)" \
                eval '[ -z "$g" ] && [ "$t" -ge 1 ] && [ "$m" -ge 1 ] && [ "$p" = 0 ]'
            prox=$(pen_li palm-while-writing "$PEN_NODE" TABLET_TOOL_PROXIMITY); downs=$(pen_li_downs palm-while-writing)
            check pen:libinput-palm-while-writing "libinput: the pen's TABLET_TOOL_PROXIMITY $prox, the copy's TOUCH_DOWN $downs (its own arbitration)" \
                eval '[ "$prox" -ge 2 ] && [ "$downs" = 0 ]'
        else
            fail pen:palm-while-writing "the sentinel played after it never came through (work/pen-palm-while-writing.*)"
        fi
        # A wrist sliding in from the edge while the pen hovers: no edge swipe, and the copy is given the
        # touch as it came, with no cancel the panel did not send.
        if pen_play wrist-from-edge; then
            g=$(pen_gestures wrist-from-edge); t=$(pen_copy_touches wrist-from-edge); p=$(pen_copy_palms wrist-from-edge)
            check pen:wrist-from-edge "gestures: ${g:-none}; the copy was given $t touch(es), MT_TOOL_PALM $p time(s)" \
                eval '[ -z "$g" ] && [ "$t" -ge 1 ] && [ "$p" = 0 ]'
            downs=$(pen_li_downs wrist-from-edge)
            check pen:libinput-wrist-from-edge "libinput: the copy's TOUCH_DOWN for the wrist $downs (the pen near: its own arbitration)" \
                eval '[ "$downs" = 0 ]'
        else
            fail pen:wrist-from-edge "the sentinel played after it never came through (work/pen-wrist-from-edge.*)"
        fi
        if pen_play swipe-100-after; then
            g=$(pen_gestures swipe-100-after); t=$(pen_copy_touches swipe-100-after)
            check pen:swipe-0.1s-after-the-pen-left "gestures: ${g:-none}; the copy was given $t touch(es)" \
                eval '[ -z "$g" ] && [ "$t" -ge 1 ]'
        else
            fail pen:swipe-0.1s-after-the-pen-left "the sentinel played after it never came through"
        fi
        if pen_play swipe-800-after; then
            g=$(pen_gestures swipe-800-after); t=$(pen_copy_touches swipe-800-after)
            check pen:swipe-0.8s-after-the-pen-left "gestures: ${g:-none}; the copy was given $t touch(es) (an edge swipe's are withheld)" \
                eval '[ "$g" = "edge-swipe:begin edge-swipe:end " ] && [ "$t" = 0 ]'
        else
            fail pen:swipe-0.8s-after-the-pen-left "the sentinel played after it never came through"
        fi
        if pen_play palm-from-edge; then
            g=$(pen_gestures palm-from-edge); t=$(pen_copy_touches palm-from-edge); m=$(pen_copy_major palm-from-edge 400)
            check pen:palm-by-size-from-edge "no pen; a 40 mm contact from the edge: gestures: ${g:-none}; the copy was given $t touch(es), ABS_MT_TOUCH_MAJOR 400 $m time(s)" \
                eval '[ -z "$g" ] && [ "$t" -ge 1 ] && [ "$m" -ge 1 ]'
        else
            fail pen:palm-by-size-from-edge "the sentinel played after it never came through"
        fi

        # pen_arbitration = false: the same swipe with the pen near is an edge swipe.
        printf 'pen_arbitration = false\n' >> "$config"
        pen_reload || true
        wait_for 20 "gesturectl devices to say arbitration is off" eval 'pen_devices | grep -q "pen arbitration off"' || true
        off_line=$(pen_devices | tr '\t\n' '  ')
        if pen_play swipe-with-pen; then
            g=$(pen_gestures swipe-with-pen)
            check pen:arbitration-off "pen_arbitration = false: gesturectl devices: $off_line; the swipe with the pen near: ${g:-none}" \
                eval '[[ $off_line == *"pen arbitration off"* ]] && [ "$g" = "edge-swipe:begin edge-swipe:end " ]'
        else
            fail pen:arbitration-off "the sentinel played after it never came through"
        fi
        sed -i '$d' "$config"   # arbitration on again
        pen_reload || true
        wait_for 20 "gestured to pair the pen again" pen_paired_by_group || true

        # The pen unplugged while it writes: arbitration ends (the swipe after it is an edge swipe); a pen
        # plugged in later is found and paired.
        unpaired=$(journal_count "pen $PEN_NODE unpaired")
        pen_cmd "play $WORK/pen-writing.events"
        old_pen=$PEN_NODE
        pen_cmd unplug-pen
        wait_for 20 "gestured to unpair the unplugged pen" at_least $(( unpaired + 1 )) journal_count "pen $old_pen unpaired" || true
        if pen_play swipe; then
            g=$(pen_gestures swipe)
            check pen:unplugged-while-writing "the pen unplugged while down (log: $(journalctl -b -u gestured.service -o cat --no-pager | grep -F "pen $old_pen unpaired" | tail -1)); the swipe after it: ${g:-none}" \
                eval '[ "$(journal_count "pen $old_pen unpaired")" -gt "$unpaired" ] && [ "$g" = "edge-swipe:begin edge-swipe:end " ]'
        else
            fail pen:unplugged-while-writing "the sentinel played after it never came through"
        fi
        pen_cmd plug-pen; PEN_NODE=$PEN_REPLY
        wait_for 20 "udev to finish with $PEN_NODE" udev_done "$PEN_NODE" || true
        wait_for 20 "gestured to pair the new pen" pen_paired_by_group || true
        check pen:plugged-in-later "a new pen $PEN_NODE: $(pen_devices | tr '\t\n' '  ')" pen_paired_by_group

        kill "$pen_li_pid" 2>/dev/null; wait "$pen_li_pid" 2>/dev/null
        kill "$pen_rec" 2>/dev/null; wait "$pen_rec" 2>/dev/null
        pen_stop
    else
        fail pen:paired-by-group "no panel and pen, or no copy of the panel: $(cat "$WORK/pen-panel.stderr" 2>/dev/null)"
        pen_stop
    fi
    kill "$pen_monitor_pid" 2>/dev/null; wait "$pen_monitor_pid" 2>/dev/null
    cp /run/gestured.toml.pen-orig "$config"
    rm -f "$pen_rule"
    udevadm control --reload
    pen_reload || true
fi
