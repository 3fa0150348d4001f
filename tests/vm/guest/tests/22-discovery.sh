# What the daemon says when it finds no touchscreen (issue 25, item 11), on a real kernel, and the guest's
# half of UdevTests' enumeratesTheEventDevicesTheKernelLists (the build machine has no input devices):
#  - the service 20-gestured.sh started found none (10-kernel.sh removed its devices): its journal says
#    what it looked at, and lists every event device the kernel has (/sys/class/input), each by its node,
#    the name sysfs gives it and udev's classification;
#  - a daemon run as `nobody` (not in group input) beside a uinput touchscreen and a touchpad says
#    "permission denied" with what to do for the one, and "touchpad" for the other.
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc

# discovery_report FILE — the last "no touchscreen found" message in FILE: its headline and the indented
# lines after it.
discovery_report() {
    awk '/no touchscreen found/ { block = $0 "\n"; active = 1; next }
         active && /^  / { block = block $0 "\n"; next }
         active { last = block; active = 0 }
         END { if (active) last = block; printf "%s", last }' "$1"
}

if require_gestured discovery-report; then
    journalctl -q -u gestured.service --no-pager -o cat > "$WORK/discovery-journal.txt" 2>&1
    discovery_report "$WORK/discovery-journal.txt" > "$WORK/discovery-report.txt"
    head=$(head -1 "$WORK/discovery-report.txt")
    check discovery-report "the service with no touchscreen: ${head:0:150}" test -n "$head"

    # Every event device the kernel has, by node and sysfs name, with what udev makes of it.
    kernel=0; missing=""; wrong=""
    for sys in /sys/class/input/event*; do
        [ -e "$sys" ] || continue
        event=${sys##*/}
        [ -c "/dev/input/$event" ] || continue
        kernel=$((kernel + 1))
        name=$(cat "$sys/device/name" 2>/dev/null)
        line=$(grep -F -- "  /dev/input/$event \"$name\": " "$WORK/discovery-report.txt" | head -1)
        if [ -z "$line" ]; then missing="$missing $event ($name)"; continue; fi
        props=$(udevadm info --query=property --name="/dev/input/$event" 2>/dev/null)
        for tag in KEYBOARD KEY MOUSE TOUCHPAD TABLET JOYSTICK SWITCH ACCELEROMETER; do
            if grep -qx "ID_INPUT_$tag=1" <<< "$props"; then
                word=$(tr 'A-Z_' 'a-z ' <<< "$tag")
                grep -q -- "udev says .*\b$word\b" <<< "$line" || wrong="$wrong $event (ID_INPUT_$tag, line: ${line:0:100})"
            fi
        done
    done
    report "the daemon's discovery report in the guest:"
    report "$(cat "$WORK/discovery-report.txt")"
    if [ "$kernel" -gt 20 ]; then
        check discovery-lists-every-device "$kernel event devices: the first 20 listed, then a count" \
            grep -qx "  and $((kernel - 20)) more" "$WORK/discovery-report.txt"
    else
        check discovery-lists-every-device "$kernel event devices in /sys/class/input, each listed by node and name${missing:+; missing:$missing}" \
            test -z "$missing"
    fi
    check discovery-count "headline counts $kernel devices: ${head:0:80}" \
        grep -q "among the $kernel input event device" <<< "$head"
    check discovery-udev-classes "each device's line says udev's classification${wrong:+; wrong:$wrong}" test -z "$wrong"
fi

# A touchpad variant of the Wacom panel: INPUT_PROP_POINTER|INPUT_PROP_BUTTONPAD instead of DIRECT, with
# BTN_LEFT (byte 34) and BTN_TOOL_FINGER (byte 40), as devices.sh makes it.
pad_desc=$WORK/discovery-touchpad.desc
awk '/^N: / { print "N: gestured-test Discovery Touchpad"; next }
     /^P: / { print "P: 05 00 00 00 00 00 00 00"; next }
     /^B: 01 / { k++; if (k == 5) { print "B: 01 00 00 01 00 00 00 00 00"; next } if (k == 6) { print "B: 01 20 04 00 00 00 00 00 00"; next } }
     { print }' "$REC/$wacom" > "$pad_desc"
ts_node=""; pad_node=""
if create_device "$REC/$wacom"; then ts_node=$DEV_NODE; ts_pid=$DEV_PID; fi
if create_device "$pad_desc"; then pad_node=$DEV_NODE; pad_pid=$DEV_PID; fi
dd_dir=$(mktemp -d /run/gestured-discovery.XXXXXX)
chown nobody "$dd_dir"
printf '[daemon]\nsocket_group = ""\n' > "$dd_dir/gestured.toml"
if [ -n "$ts_node" ] && [ -n "$pad_node" ]; then
    report "as nobody: touchscreen $ts_node ($(stat -c '%A %U:%G' "$ts_node")), touchpad $pad_node"
    runuser -u nobody -- gestured --socket "$dd_dir/gestured.sock" --config "$dd_dir/gestured.toml" > "$dd_dir/log" 2>&1 &
    dd_pid=$!
    if wait_for 30 "the unprivileged daemon to be ready" file_has_line "$dd_dir/log" ' ready: '; then
        # The daemon's own stderr: each line has its priority prefix (<5>), which the journal takes off.
        sed 's/^<[0-9]>//' "$dd_dir/log" > "$WORK/discovery-nobody.log"
        discovery_report "$WORK/discovery-nobody.log" > "$WORK/discovery-nobody.txt"
        check discovery-permission "the touchscreen as nobody: $(grep -F -- "  $ts_node " "$WORK/discovery-nobody.txt" | head -1)" \
            grep -qF -- "  $ts_node \"Wacom ISDv4 E6 Finger\": permission denied" "$WORK/discovery-nobody.txt"
        check discovery-permission-advice "what to do is said" \
            grep -q "to read a device that refused permission: gestured needs read access .*group 'input'" "$WORK/discovery-nobody.txt"
        check discovery-touchpad "the touchpad: $(grep -F -- "  $pad_node " "$WORK/discovery-nobody.txt" | head -1)" \
            grep -qE -- "^  $pad_node \"gestured-test Discovery Touchpad\": .*touchpad" "$WORK/discovery-nobody.txt"
    else
        fail discovery-permission "gestured as nobody never became ready: $(tail -5 "$dd_dir/log" | tr '\n' ' ')"
    fi
    kill "$dd_pid" 2>/dev/null; wait "$dd_pid" 2>/dev/null
else
    fail discovery-permission "no uinput touchscreen ($ts_node) or touchpad ($pad_node)"
fi
[ -n "$ts_node" ] && destroy_device "$ts_pid" "$ts_node"
[ -n "$pad_node" ] && destroy_device "$pad_pid" "$pad_node"
rm -rf "$dd_dir"
