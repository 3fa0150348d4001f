# Touch that points (issue 39, docs/gestures.md "Touch that points"): gestured's virtual pointer beside the
# passthrough copy, seen through libinput as a compositor sees it. Two uinput panels (passthrough-panel
# --size): a phone's (68 x 140 mm) and a 27-inch monitor's (597 x 336 mm), each in passthrough with
# `pointer = "long-press"`, and an app listed as `mode = "mouse"`. One `libinput debug-events` reads the copy
# and the pointer together (one context: the order of its lines is the order a compositor gets them in), and
# each script is checked on its lines:
# - a one-finger long press in each orientation (0/90/180/270, `gesturectl orientation`): the copy's touch is
#   cancelled (TOUCH_CANCEL) before the pointer's BTN_RIGHT press, which comes where the finger is (within
#   0.5 mm, libinput's absolute position turned into the panel's millimetres);
# - a finger that moved past the slop and then rests past the hold time: no click, the touch the app's;
# - touch as a mouse (`gesturectl focus` of the listed app): a drag is absolute motion, BTN_LEFT pressed,
#   motion, released, in that order; a two-finger scroll is absolute motion then wheel events, no button;
#   the copy gets none of these touches;
# - faults mid-drag leave no button down (libinput reports the release; the kernel's key state of the
#   pointer, EVIOCGKEY, where it still exists): the focus changing, the screen turning, a reload, the panel
#   unplugged, systemctl restart, kill -9, SIGSTOP (the watchdog);
# - with passthrough off, no pointer exists.
# And the figure (a benchmark, never asserted): how long after the hold's deadline the click is read from the
# pointer, beside the copy's delay for a forwarded frame, measured here on the same panels.
config=/etc/gestured/gestured.toml
ptr_phone="gestured pointer test phone"
ptr_monitor="gestured pointer test monitor"
ptr_mouse_app=org.example.NoTouch

# Scripts as evemu event files (passthrough-panel's play): "d SLOT X Y" lands a finger, "m SLOT X Y" moves
# it, "u SLOT" lifts it, "f" ends a frame (10 ms), "w MS" lets time pass (an empty frame marks it, which the
# kernel drops: the play only waits). Units: 10 a mm. PTR_DOWN=N: N fingers are down already. Codes are
# decimal (the guest's awk is mawk): ABS_MT_SLOT 47, TRACKING_ID 57, POSITION_X 53, _Y 54, BTN_TOUCH 330.
ptr_script() { # ptr_script NAME < commands
    awk -v down="${PTR_DOWN:-0}" 'BEGIN { t = 1000000; id = 500 }
        function e(type, code, value) { printf "E: %d.%06d %04x %04x %d\n", int(t / 1000000), t % 1000000, type, code, value }
        $1 == "d" { e(3, 47, $2); e(3, 57, id++); e(3, 53, $3); e(3, 54, $4); if (down++ == 0) e(1, 330, 1) }
        $1 == "m" { e(3, 47, $2); e(3, 53, $3); e(3, 54, $4) }
        $1 == "u" { e(3, 47, $2); e(3, 57, -1); if (--down == 0) e(1, 330, 0) }
        $1 == "f" { e(0, 0, 0); t += 10000 }
        $1 == "w" { t += $2 * 1000; e(0, 0, 0) }' > "$WORK/ptr-$1.events"
}

# ptr_play NAME — plays a script into the panel (lib.sh's pt_start made it), waiting until it was written.
ptr_play() { pt_cmd "play $WORK/ptr-$1.events"; }

# ptr_field NODE KEY — a field of the device gestured lists at NODE (`gesturectl devices --json`).
ptr_field() {
    gesturectl devices --json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    for d in m.get("devices", []):
        if d.get("path") == sys.argv[1] and d.get(sys.argv[2]) is not None:
            print(d[sys.argv[2]])' "$1" "$2"
}
ptr_has_pointer() { local p; p=$(ptr_field "$1" pointer_path); [ -n "$p" ] && [ -e "$p" ] && udev_done "$p"; }
ptr_mode_is() { [ "$(ptr_field "$1" pointer_mode)" = "$2" ]; }
# ptr_config PASSTHROUGH [KEY-LINE] — the test's configuration: both panels in passthrough (or not) with a
# long press as a right click (and KEY-LINE), and touch as a mouse for $ptr_mouse_app.
ptr_config() {
    cat /run/gestured.toml.ptr-orig
    local name
    for name in "$ptr_phone" "$ptr_monitor"; do
        printf '\n[[device]]\nmatch_name = "%s"\npassthrough = %s\npointer = "long-press"\n%s\n' "$name" "$1" "${2:-}"
    done
    printf '\n[[pointer]]\napp = "%s"\nmode = "mouse"\n' "$ptr_mouse_app"
}

# ptr_attach — the copy and the pointer of the panel now (VNODE, PNODE), and one libinput debug-events
# reading both into $PTR_LOG (a new file each time); PTR_CV/PTR_PV are their sysnames, libinput's first
# column.
ptr_attach_count=0
ptr_attach() {
    ptr_detach
    wait_for 30 "a copy and a pointer of $PT_NODE" eval 'ptr_has_pointer "$PT_NODE" && [ -e "$(ptr_field "$PT_NODE" virtual_path)" ]' || return 1
    VNODE=$(ptr_field "$PT_NODE" virtual_path); PNODE=$(ptr_field "$PT_NODE" pointer_path)
    wait_for 20 "udev to finish with $VNODE" udev_done "$VNODE" || return 1
    PTR_CV=$(basename "$VNODE"); PTR_PV=$(basename "$PNODE")
    ptr_attach_count=$(( ptr_attach_count + 1 ))
    PTR_LOG=$WORK/ptr-libinput-$ptr_attach_count.txt
    stdbuf -oL libinput debug-events --device "$VNODE" "$PNODE" > "$PTR_LOG" 2>&1 &
    PTR_LI=$!
    wait_for 20 "libinput debug-events to open $VNODE and $PNODE" eval '[ "$(grep -c DEVICE_ADDED "$PTR_LOG")" -ge 2 ]'
}
ptr_detach() {
    [ -n "${PTR_LI:-}" ] || return 0
    kill "$PTR_LI" 2>/dev/null; wait "$PTR_LI" 2>/dev/null
    PTR_LI=""
}
ptr_mark() { PTR_MARK=$(wc -l < "$PTR_LOG"); }
# ptr_since — libinput's lines since the mark: "DEVICE KIND TIME-MS REST".
ptr_since() {
    tail -n +"$(( PTR_MARK + 1 ))" "$PTR_LOG" | awk '$1 ~ /^-?event[0-9]+$/ {
        dev = $1; sub(/^-/, "", dev); kind = $2; t = ""
        if ($3 ~ /^\+[0-9.]+s$/) { t = substr($3, 2, length($3) - 2) * 1000 }
        rest = $0; sub(/^[^+]*\+[0-9.]+s[ \t]*/, "", rest)
        # (debug-events pads its numbers: "( 5.00/ 80.00mm)" becomes "(5.00/80.00mm)"; commas go.)
        gsub(/\/ +/, "/", rest); gsub(/\( +/, "(", rest); gsub(/,/, "", rest)
        print dev, kind, t, rest }'
}
# ptr_seen REGEX — a line since the mark matches (for the waits).
ptr_seen() { ptr_since | grep -qE "$1"; }
ptr_left_released() { ptr_seen "^$PTR_PV POINTER_BUTTON [0-9.]* BTN_LEFT \\(272\\) released"; }
# ptr_buttons — the pointer's kernel key state (EVIOCGKEY) in PTR_STATE: "left L right R middle M", or why not.
ptr_buttons() { pt_cmd "buttons $PNODE"; PTR_STATE=${PT_REPLY#buttons "$PNODE" }; }

# ptr_turn ANGLE — the orientation, retried past the request's rate limit.
ptr_turn() {
    local tries
    for tries in 1 2 3 4 5; do
        gesturectl orientation "$1" > /dev/null 2>> "$WORK/ptr-turn.stderr" && return 0
        sleep 0.6
    done
    return 1
}

# ptr_long_press NAME X Y — a long press at (X, Y) panel units (10 a mm), checked on libinput's lines:
# TOUCH_DOWN and TOUCH_CANCEL on the copy, then absolute motion and BTN_RIGHT pressed and released on the
# pointer at the finger; the lift reaches nobody.
ptr_long_press() {
    local name=$1 x=$2 y=$3 summary
    { echo "d 0 $x $y"; echo f; echo "w 800"; echo "u 0"; echo f; } | ptr_script "lp-$name"
    ptr_mark
    ptr_play "lp-$name"
    if ! wait_for 20 "the click of $name" ptr_seen "^$PTR_PV POINTER_BUTTON [0-9.]* BTN_RIGHT \\(273\\) released"; then
        fail "pointer:long-press-$name" "no BTN_RIGHT release on the pointer ($PNODE) after a long press at ($x, $y); libinput since: $(ptr_since | cut -d' ' -f1-2 | tr '\n' ';' | cut -c1-400) (work/$(basename "$PTR_LOG"))"
        return
    fi
    # The finger's millimetres, then what libinput says: the pointer's last absolute position before the
    # press (percent of the axis range, printed by debug-events; range+1 units over the resolution) in mm.
    summary=$(ptr_since | awk -v cv="$PTR_CV" -v pv="$PTR_PV" -v fx="$(( x ))" -v fy="$(( y ))" \
        -v wx="$(( PTR_MAX_X + 1 ))" -v wy="$(( PTR_MAX_Y + 1 ))" '
        { n++ }
        $1 == cv && $2 == "TOUCH_DOWN" && !down { down = n; if (match($0, /\(([-0-9.]+)\/([-0-9.]+)mm\)/)) { s = substr($0, RSTART + 1, RLENGTH - 4); split(s, c, "/"); tx = c[1]; ty = c[2] } }
        $1 == cv && $2 == "TOUCH_CANCEL" && !cancel { cancel = n; tcancel = $3 }
        $1 == cv && $2 == "TOUCH_UP" { up++ }
        $1 == pv && $2 == "POINTER_MOTION_ABSOLUTE" && !press { split($4, p, "/"); px = p[1]; py = p[2]; moved = 1 }
        $1 == pv && $2 == "POINTER_BUTTON" && /BTN_RIGHT \(273\) pressed/ && !press { press = n; tpress = $3 }
        $1 == pv && $2 == "POINTER_BUTTON" && /BTN_RIGHT \(273\) released/ && !release { release = n }
        END {
            mx = px * wx / 1000; my = py * wy / 1000   # percent of (range + 1) units at 10 units a mm
            dx = mx - fx / 10; dy = my - fy / 10; d = sqrt(dx * dx + dy * dy)
            ok = down && cancel && press && release && moved && cancel < press && tcancel <= tpress && press < release && up == 0 && d <= 0.5
            printf "%s finger %.1f/%.1f mm; copy: TOUCH_DOWN at %s/%s mm (line %d), TOUCH_CANCEL line %d at %s ms, TOUCH_UP %d; pointer: at %.2f/%.2f mm (off by %.2f mm), BTN_RIGHT pressed line %d at %s ms, released line %d\n",
                ok ? "ok" : "bad", fx / 10, fy / 10, tx, ty, down, cancel, tcancel, up, mx, my, d, press, tpress, release }')
    check "pointer:long-press-$name" "${summary#* }" eval '[ "${summary%% *}" = ok ]'
}

# ptr_moved NAME X Y — a finger that moves 6 mm (past the 3 mm slop) in 0.1 s and then rests 0.8 s: the
# app's touch (TOUCH_DOWN, TOUCH_UP on the copy, no cancel), no click.
ptr_moved() {
    local name=$1 x=$2 y=$3 got
    { echo "d 0 $x $y"; echo f; PT_STEPS=10 pt_drag "0 $x $y $(( x + 60 )) $y"; echo "w 800"; echo "u 0"; echo f; } | ptr_script "moved-$name"
    ptr_mark
    ptr_play "moved-$name"
    wait_for 20 "the lift on the copy" ptr_seen "^$PTR_CV TOUCH_UP " || true
    got=$(ptr_since | awk '$2 ~ /^(TOUCH_DOWN|TOUCH_UP|TOUCH_CANCEL|POINTER_BUTTON)$/ { printf "%s%s ", $2, ($2 == "POINTER_BUTTON" ? "(" $4 ")" : "") }')
    check "pointer:moved-no-click-$name" "moved 6 mm then rested 0.8 s: libinput: $got" eval '[ "$got" = "TOUCH_DOWN TOUCH_UP " ]'
}

# ptr_kinds — the kinds of libinput's lines since the mark on both devices, repeats collapsed, buttons named.
ptr_kinds() {
    ptr_since | awk '$2 ~ /^(TOUCH_DOWN|TOUCH_UP|TOUCH_CANCEL|POINTER_MOTION_ABSOLUTE|POINTER_BUTTON|POINTER_SCROLL_WHEEL|POINTER_SCROLL_FINGER)$/ {
        k = $2; if (k == "POINTER_BUTTON") k = k "(" $4 "-" $6 ")"
        if (k != last) printf "%s ", k; last = k }'
}

# ptr_mouse NAME X Y — touch as a mouse (the listed app has the focus): a drag, then a two-finger scroll
# upward (the content follows the fingers: libinput's vertical scroll is positive, down), then a one-finger
# tap (a left click), which marks the end of the scroll's events.
ptr_mouse() {
    local name=$1 x=$2 y=$3 got scroll
    { echo "d 0 $x $y"; echo f; PT_STEPS=20 pt_drag "0 $x $y $(( x + 200 )) $(( y + 100 ))"; echo "u 0"; echo f; } | ptr_script "drag-$name"
    ptr_mark
    ptr_play "drag-$name"
    wait_for 20 "the drag's release" ptr_left_released || true
    got=$(ptr_kinds)
    check "pointer:mouse-drag-$name" "a one-finger drag of 22 mm: libinput: $got" \
        eval '[ "$got" = "POINTER_MOTION_ABSOLUTE POINTER_BUTTON(BTN_LEFT-pressed) POINTER_MOTION_ABSOLUTE POINTER_BUTTON(BTN_LEFT-released) " ]'
    { echo "d 0 $x $y"; echo "d 1 $(( x + 200 )) $y"; echo f
      PT_STEPS=30 pt_drag "0 $x $y $x $(( y - 300 ))" "1 $(( x + 200 )) $y $(( x + 200 )) $(( y - 300 ))"
      echo "u 0"; echo "u 1"; echo f; echo "w 400"; echo "d 0 $x $y"; echo f; echo "u 0"; echo f; } | ptr_script "scroll-$name"
    ptr_mark
    ptr_play "scroll-$name"
    wait_for 20 "the tap's click after the scroll" ptr_left_released || true
    got=$(ptr_kinds)
    # libinput's wheel lines: "vert DEGREES/V120". The scroll counts once a finger passed the slop (3 mm,
    # crossed on the third or fourth 1 mm frame), so the 30 mm scroll 26 to 27 mm: 120 a detent of
    # pointer_scroll_mm, each frame's fraction carried to the next.
    scroll=$(ptr_since | awk -v detent="$PTR_SCROLL_MM" '$2 == "POINTER_SCROLL_WHEEL" && match($0, /vert +[-0-9.]+\/[-0-9]+/) {
            v = substr($0, RSTART, RLENGTH); sub(/^vert +[-0-9.]+\//, "", v); n++; if (v + 0 > 0) down++; sum += v }
        END { lo = int(26 / detent * 120) - 1; hi = int(27 / detent * 120)
              printf "%s %d wheel events, %d of them down, %d v120 units in all (%d to %d expected at %s mm a detent)\n", (n >= 2 && down == n && sum >= lo && sum <= hi) ? "ok" : "bad", n, down, sum, lo, hi, detent }')
    check "pointer:mouse-scroll-$name" "two fingers 30 mm up, then a tap: libinput: $got; ${scroll#* }" \
        eval '[ "$got" = "POINTER_MOTION_ABSOLUTE POINTER_SCROLL_WHEEL POINTER_MOTION_ABSOLUTE POINTER_BUTTON(BTN_LEFT-pressed) POINTER_BUTTON(BTN_LEFT-released) " ] && [ "${scroll%% *}" = ok ]'
}

# ptr_focus APP — `gesturectl focus APP` held in the background (PTR_FOCUS), until the pointer's mode says so.
ptr_focus() {
    ptr_unfocus
    gesturectl focus "$1" > "$WORK/ptr-focus.out" 2>&1 &
    PTR_FOCUS=$!
    wait_for 20 "the pointer's mode to be mouse" ptr_mode_is "$PT_NODE" mouse
}
ptr_unfocus() {
    [ -n "${PTR_FOCUS:-}" ] || return 0
    kill "$PTR_FOCUS" 2>/dev/null; wait "$PTR_FOCUS" 2>/dev/null
    PTR_FOCUS=""
}

# ptr_drag_down NAME — touch as a mouse: a finger lands and drags 10 mm, and stays down (BTN_LEFT pressed).
{ echo "d 0 300 600"; echo f; PT_STEPS=10 pt_drag "0 300 600 400 600"; } | ptr_script drag-down
{ echo "u 0"; echo f; } | PTR_DOWN=1 ptr_script drag-up
ptr_drag_down() {
    ptr_mark
    ptr_play drag-down
    wait_for 20 "BTN_LEFT pressed" ptr_seen "^$PTR_PV POINTER_BUTTON [0-9.]* BTN_LEFT \\(272\\) pressed"
}
# ptr_fault_released NAME DETAIL [stays] — after a fault mid-drag: libinput reported BTN_LEFT released on
# the pointer, and (with "stays": the pointer is still there) the kernel's key state has no button down.
ptr_fault_released() {
    local name=$1 detail=$2 stays=${3:-} state="" rel
    wait_for 20 "BTN_LEFT released after $name" ptr_left_released || true
    if [ "$stays" = stays ]; then ptr_buttons; state=$PTR_STATE; fi
    rel=$(ptr_since | awk -v pv="$PTR_PV" '$1 == pv && $2 == "POINTER_BUTTON" { printf "%s-%s ", $4, $6 } $1 == pv && $2 == "DEVICE_REMOVED" { printf "removed " }')
    check "pointer:fault-$name" "$detail; libinput on the pointer since the press: ${rel:-nothing}${state:+; kernel key state: $state}" \
        eval 'ptr_left_released && { [ "$stays" != stays ] || [ "$state" = "left 0 right 0 middle 0" ]; }'
}
# ptr_restarted OLD-PID — systemd started a new gestured (after a kill or the watchdog's abort).
ptr_restarted() { [ "$(gestured_pid)" != 0 ] && [ "$(gestured_pid)" != "$1" ] && systemctl is-active --quiet gestured.service; }

# The long-press points, one an orientation, as fractions of the panel (thousandths), away from every edge
# zone in every orientation; each lands on an odd unit so that a rounding shows.
ptr_points=("0 300 400" "90 620 330" "180 450 700" "270 700 550")

# ptr_panel NAME W H LABEL — one panel's checks; FAULTS=1 adds the faults.
ptr_panel() {
    local name=$1 w=$2 h=$3 label=$4 entry angle fx fy x y pid before
    PTR_MAX_X=$(( w * 10 )); PTR_MAX_Y=$(( h * 10 ))
    if ! pt_start "$name" --size "$w" "$h"; then
        fail "pointer:made-$label" "no panel: $(cat "$WORK/pt-panel.stderr" 2>/dev/null)"
        return
    fi
    if ! ptr_attach; then
        fail "pointer:made-$label" "gestured lists no pointer for $PT_NODE: $(gesturectl devices 2>&1 | tr '\t\n' '  ' | cut -c1-400)"
        pt_stop
        return
    fi
    local props caps
    props=$(udevadm info --query=property --name="$PNODE" | grep -E '^ID_INPUT(_MOUSE|_TOUCHSCREEN|_TABLET)?=' | sort | tr '\n' ' ')
    caps=$(libinput list-devices 2>/dev/null | awk -v n="$name pointer" '$0 ~ "^Device: *" n "$" { on = 1 } on && /^Capabilities:/ { print $2; exit }')
    check "pointer:made-$label" "$PT_NODE (${w}x${h} mm): copy $VNODE, pointer $PNODE ($(cat "/sys/class/input/$PTR_PV/device/name")), mode $(ptr_field "$PT_NODE" pointer_mode); udev: $props; libinput capabilities: $caps" \
        eval '[[ $props == *"ID_INPUT_MOUSE=1"* ]] && [[ $props != *TOUCHSCREEN* ]] && [ "$caps" = pointer ] && ptr_mode_is "$PT_NODE" long-press'

    for entry in "${ptr_points[@]}"; do
        read -r angle fx fy <<< "$entry"
        x=$(( PTR_MAX_X * fx / 1000 + 3 )); y=$(( PTR_MAX_Y * fy / 1000 + 7 ))
        if ptr_turn "$angle"; then
            ptr_long_press "$label-$angle" "$x" "$y"
        else
            fail "pointer:long-press-$label-$angle" "gesturectl orientation $angle refused: $(tail -1 "$WORK/ptr-turn.stderr")"
        fi
    done
    ptr_turn 0 || true
    ptr_moved "$label" $(( PTR_MAX_X / 2 + 1 )) $(( PTR_MAX_Y / 2 + 1 ))

    # The figure: the click's delay after the hold's deadline, then a forwarded frame's through the copy.
    ptr_detach
    pt_cmd "click $PNODE 20 $(( PTR_MAX_X / 3 )) $(( PTR_MAX_Y / 3 )) 500"; local click=$PT_REPLY
    pt_cmd "latency $VNODE 300"; local copy=$PT_REPLY
    local kn k50 k99 kmax tn t50 t99 tmax cn c50 c99 cmax
    read -r _ _ kn k50 k99 kmax _ tn t50 t99 tmax <<< "$click"
    read -r _ _ cn c50 c99 cmax <<< "$copy"
    report ""
    report "pointer ($label, ${w}x${h} mm): a long press's right click after the hold's deadline (0.5 s after the landing's write), read from the pointer:"
    report "  click after the deadline:              p50 ${k50} us, p99 ${k99} us, max ${kmax} us over ${kn} long presses"
    report "  a timer's own lateness (the floor):    p50 ${t50} us, p99 ${t99} us, max ${tmax} us over ${tn} sleeps to an absolute time"
    report "  a forwarded frame through the copy:    p50 ${c50} us, p99 ${c99} us, max ${cmax} us over ${cn} frames (same run, same panel)"
    check "pointer:click-latency-$label" "click after the hold's deadline: p50 ${k50} us, p99 ${k99} us, max ${kmax} us over ${kn}; a timer's own lateness: p50 ${t50} us, p99 ${t99} us over ${tn}; the copy's forwarded frame: p50 ${c50} us, p99 ${c99} us over ${cn} (a benchmark: figures, no limit)" \
        eval '[ "${kn:-0}" -ge 20 ] && [ "${tn:-0}" -ge 20 ] && [ "${cn:-0}" -ge 300 ]'
    ptr_attach || true

    ptr_focus "$ptr_mouse_app" || true
    ptr_mouse "$label" $(( PTR_MAX_X * 3 / 10 )) $(( PTR_MAX_Y * 6 / 10 ))

    if [ "${FAULTS:-0}" = 1 ]; then
        # The focus changes mid-drag (the app's focus ends): the button goes up where the finger is.
        ptr_drag_down
        ptr_unfocus
        wait_for 20 "the mode to leave mouse" ptr_mode_is "$PT_NODE" long-press || true
        ptr_fault_released focus-change "the focus of $ptr_mouse_app ended mid-drag" stays
        ptr_play drag-up
        ptr_focus "$ptr_mouse_app" || true
        # The screen turns mid-drag.
        ptr_drag_down
        ptr_turn 90 || true
        ptr_fault_released orientation-change "gesturectl orientation 90 mid-drag" stays
        ptr_play drag-up
        ptr_turn 0 || true
        # A reload mid-drag that changes the panel's settings (a reload that changes nothing cancels
        # nothing, the copy's touches included: the drag goes on to its lift).
        ptr_drag_down
        ptr_config true "pointer_scroll_mm = 12" > "$config"
        pt_reload || true
        PTR_SCROLL_MM=12
        ptr_fault_released reload "systemctl reload mid-drag (pointer_scroll_mm 10 -> 12)" stays
        ptr_play drag-up
        # systemctl restart mid-drag: the stopping daemon releases, then the pointer goes with it. The new
        # daemon grabs the panel once the finger lifted.
        ptr_drag_down
        pid=$(gestured_pid)
        timeout 60 systemctl restart gestured.service
        ptr_fault_released restart "systemctl restart mid-drag (gestured $pid -> $(gestured_pid))"
        ptr_play drag-up
        ptr_attach && ptr_focus "$ptr_mouse_app" || true
        # kill -9 mid-drag: the kernel destroys the pointer with the daemon's descriptor.
        systemctl reset-failed gestured.service 2>/dev/null
        ptr_drag_down
        pid=$(gestured_pid)
        kill -9 "$pid"
        ptr_fault_released kill-9 "kill -9 of gestured $pid mid-drag"
        wait_for 30 "systemd to restart gestured after kill -9" ptr_restarted "$pid" || true
        ptr_play drag-up
        ptr_attach && ptr_focus "$ptr_mouse_app" || true
        # SIGSTOP mid-drag: the watchdog aborts the daemon (WatchdogSec), the kernel destroys the pointer.
        systemctl reset-failed gestured.service 2>/dev/null
        systemctl service-watchdogs yes
        ptr_drag_down
        pid=$(gestured_pid)
        kill -STOP "$pid"
        ptr_fault_released sigstop "SIGSTOP of gestured $pid mid-drag, WatchdogUSec $(systemctl show -p WatchdogUSec --value gestured.service)"
        wait_for 30 "systemd to restart gestured after the watchdog" ptr_restarted "$pid" || true
        ptr_play drag-up
        ptr_attach && ptr_focus "$ptr_mouse_app" || true
        # The panel unplugged mid-drag: the pointer releases, then goes with the copy.
        ptr_drag_down
        local gone_pointer=$PNODE
        pt_stop
        ptr_fault_released unplug "the panel unplugged mid-drag"
        wait_for 20 "the pointer $gone_pointer to go" test ! -e "$gone_pointer" || true
        ptr_unfocus
        ptr_detach
        return
    fi
    ptr_unfocus
    ptr_detach
    pt_stop
}

start_gestured "the pointer checks"
if require_gestured pointer:made-phone; then
    cp "$config" /run/gestured.toml.ptr-orig
    ptr_config true > "$config"
    PTR_SCROLL_MM=10    # the default; the reload check below makes it 12
    pt_reload || true
    FAULTS=1 ptr_panel "$ptr_phone" 68 140 phone
    ptr_panel "$ptr_monitor" 597 336 monitor-27in

    # With passthrough off, nothing of this exists, though the sections still ask for a pointer.
    ptr_config false > "$config"
    pt_reload || true
    if pt_start "$ptr_phone" --size 68 140 && wait_for 20 "gestured to open $PT_NODE" has_fd_open "$(gestured_pid)" "$PT_NODE"; then
        pointers=$(grep -c "^N: Name=\"$ptr_phone pointer\"" /proc/bus/input/devices || true)
        check pointer:passthrough-off-no-pointer "passthrough = false, pointer = \"long-press\": pointer_path \"$(ptr_field "$PT_NODE" pointer_path)\", copy \"$(ptr_field "$PT_NODE" virtual_path)\", input devices named \"$ptr_phone pointer\": $pointers" \
            eval '[ -z "$(ptr_field "$PT_NODE" pointer_path)" ] && [ -z "$(ptr_field "$PT_NODE" virtual_path)" ] && [ "$pointers" = 0 ] && listed "$PT_NODE"'
        pt_stop
    else
        fail pointer:passthrough-off-no-pointer "no panel, or gestured did not open it"
    fi
    cp /run/gestured.toml.ptr-orig "$config"
    pt_reload || true
    systemctl reset-failed gestured.service 2>/dev/null
fi
