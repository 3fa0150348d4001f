# Real-kernel checks of gestured's device handling (Sources/GestureDaemon/Evdev*.swift, Udev*.swift) and of
# its systemd units, for the QEMU guest of tests/vm. Owned by the devices work; the vm rig runs it.
#
# How to run: in the guest, after gestured has been installed (make install staged onto /, sysusers applied,
# daemon-reload done) and with the rig's lib.sh loaded, source this file (bash):
#     . /mnt/rig/guest/lib.sh; . /path/to/devices.sh
# It appends PASS/FAIL rows named devices:* to results.tsv through lib.sh's pass/fail, and report lines.
# Every wait is for a fact (an fd in /proc, a journal line, a udev property), bounded by a deadline.
# It leaves gestured.service as it found it (running or not) and removes every device it made.
#
# Inputs from the rig: $REC/whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc (a direct MT touchscreen),
# its double-top-swipe events (long enough to overflow the kernel's per-reader buffer), and
# $REC/wacom-1f-top-swipe.sentinel.events (a one-finger drag made by sentinel.awk).

if ! declare -F pass > /dev/null; then . /mnt/rig/guest/lib.sh; fi

dc_desc=$REC/whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
dc_flood=$REC/whot_evemu-devices__Wacom_ISDv4_E6_Finger.double-top-swipe.events
dc_sentinel=$REC/wacom-1f-top-swipe.sentinel.events
dc_tmp=$(mktemp -d /run/gestured-devices-check.XXXXXX)
dc_deny_rule=/run/udev/rules.d/99-zz-gestured-test-deny.rules

dc_pid() { systemctl show -p MainPID --value gestured.service; }
dc_active() { systemctl is-active --quiet gestured.service; }
dc_is_open() { local pid; pid=$(dc_pid); [ "$pid" != 0 ] && has_fd_open "$pid" "$1"; }
dc_not_open() { ! dc_is_open "$1"; }
# Journal lines of gestured since this check started that report a permission failure on node $1.
dc_journal_count() {
    journalctl -q -u gestured.service --since "@$dc_since" --no-pager -o cat 2>/dev/null \
        | grep -F -- "$1" | grep -ciE 'permission denied|EACCES|errno 13' || true
}
dc_journal_has() { [ "$(dc_journal_count "$1")" -ge 1 ]; }
# The octal open flags of the daemon's descriptor for node $1 (/proc/PID/fdinfo).
dc_fd_flags() {
    local pid fd; pid=$(dc_pid)
    for fd in /proc/"$pid"/fd/*; do
        if [ "$(readlink "$fd" 2>/dev/null)" = "$1" ]; then awk '/^flags:/ {print $2}' "/proc/$pid/fdinfo/${fd##*/}"; return; fi
    done
}
# O_ACCMODE bits 0 (read-only), O_NONBLOCK (04000) and O_CLOEXEC (02000000) set.
dc_flags_ok() {
    local flags; flags=$(dc_fd_flags "$1"); [ -n "$flags" ] || return 1
    flags=$(( 8#$flags ))
    [ $(( flags & 3 )) -eq 0 ] && [ $(( flags & 8#4000 )) -ne 0 ] && [ $(( flags & 8#2000000 )) -ne 0 ]
}

# dc_variant NAME PROPS [KEYLINE5 KEYLINE6] — a copy of the touchscreen description with another name and
# INPUT_PROP bytes (and optionally the EV_KEY bitmap lines for codes 256..319 and 320..383).
dc_variant() {
    local name=$1 props=$2 key5=${3:-} key6=${4:-} out=$dc_tmp/${1// /-}.desc
    awk -v name="$name" -v props="$props" -v key5="$key5" -v key6="$key6" '
        /^N: / { print "N: " name; next }
        /^P: / { print "P: " props; next }
        /^B: 01 / { k++; if (k == 5 && key5 != "") { print key5; next } if (k == 6 && key6 != "") { print key6; next } }
        { print }' "$dc_desc" > "$out"
    echo "$out"
}

dc_checks() {
    if ! systemctl cat gestured.service > /dev/null 2>&1; then
        fail devices:installed "gestured.service is not installed; nothing checked"
        return
    fi
    if [ ! -f "$dc_desc" ] || [ ! -f "$dc_sentinel" ] || [ ! -f "$dc_flood" ]; then
        fail devices:inputs "missing $dc_desc, $dc_flood or $dc_sentinel in the rig"
        return
    fi
    local was_active=0; dc_active && was_active=1
    dc_since=$(date +%s)

    # --- the system user and the unit's sandbox --------------------------------------------------------
    local groups; groups=$(id -nG gestured 2>/dev/null || true)
    if [[ " $groups " == *" gestured "* && " $groups " == *" input "* ]]; then
        pass devices:sysusers "user gestured in groups: $groups"
    else
        fail devices:sysusers "user gestured missing or not in groups gestured+input (id -nG: '$groups')"
    fi
    local exposure
    exposure=$(systemd-analyze security gestured.service 2>/dev/null | sed -n 's/.*Overall exposure level for gestured.service: \([0-9.]*\).*/\1/p')
    report "systemd-analyze security gestured.service (guest, systemd $(systemctl --version | head -1 | cut -d' ' -f2)): ${exposure:-unknown}"
    check devices:unit-exposure "exposure ${exposure:-unknown} <= 1.0" awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 1.0) }'

    # --- a touchscreen present at start is opened ----------------------------------------------------------
    systemctl stop gestured.service gestured.socket 2>/dev/null
    local a_node a_pid
    if ! create_device "$dc_desc"; then fail devices:start "no uinput touchscreen"; dc_cleanup "$was_active"; return; fi
    a_node=$DEV_NODE; a_pid=$DEV_PID
    systemctl start gestured.service
    check devices:service-ready "Type=notify service active after start (READY=1 sent)" dc_active
    check devices:open-at-start "touchscreen $a_node present at start is opened" \
        wait_for 20 "gestured to open $a_node" dc_is_open "$a_node"
    if [ -r "/proc/$(dc_pid)/status" ]; then
        report "gestured runs as: $(awk '/^(Uid|Gid|Groups):/ {printf "%s %s  ", $1, $2 " " $3 " " $4}' "/proc/$(dc_pid)/status")"
    fi

    # --- hotplug: add, remove, re-plug ---------------------------------------------------------------------
    local b_node
    if create_device "$dc_desc"; then
        b_node=$DEV_NODE
        check devices:hotplug-add "touchscreen $b_node plugged in later is opened (udev monitor works in the sandbox)" \
            wait_for 20 "gestured to open $b_node" dc_is_open "$b_node"
        destroy_device "$DEV_PID" "$b_node"
        check devices:hotplug-remove "removed $b_node is closed" wait_for 20 "gestured to close $b_node" dc_not_open "$b_node"
        check devices:alive-after-remove "daemon still active after a removal" dc_active
        if create_device "$dc_desc"; then
            check devices:replug "re-plugged touchscreen $DEV_NODE is opened again" \
                wait_for 20 "gestured to open $DEV_NODE" dc_is_open "$DEV_NODE"
            destroy_device "$DEV_PID" "$DEV_NODE"
        else
            fail devices:replug "no uinput device"
        fi
    else
        fail devices:hotplug-add "no second uinput device"
    fi

    # --- a touchpad is not taken for a touchscreen ---------------------------------------------------------
    # INPUT_PROP_POINTER|INPUT_PROP_BUTTONPAD, no DIRECT; BTN_LEFT (byte 34) and BTN_TOOL_FINGER (byte 40) added.
    local pad_desc pad_node pad_pid
    pad_desc=$(dc_variant "gestured-test Touchpad" "05 00 00 00 00 00 00 00" \
        "B: 01 00 00 01 00 00 00 00 00" "B: 01 20 04 00 00 00 00 00 00")
    if create_device "$pad_desc"; then
        pad_node=$DEV_NODE; pad_pid=$DEV_PID
        report "udev on the test touchpad: $(udevadm info --query=property --name="$pad_node" | grep -E '^ID_INPUT_(TOUCHPAD|TOUCHSCREEN)=' | tr '\n' ' ')"
        # A touchscreen added after it: once that one is open, the daemon has handled the touchpad's add too.
        if create_device "$dc_desc"; then
            wait_for 20 "gestured to open $DEV_NODE" dc_is_open "$DEV_NODE" || true
            check devices:touchpad-ignored "touchpad $pad_node not opened" dc_not_open "$pad_node"
            destroy_device "$DEV_PID" "$DEV_NODE"
        else
            fail devices:touchpad-ignored "no uinput touchscreen to order against"
        fi
        destroy_device "$pad_pid" "$pad_node"
    else
        fail devices:touchpad-ignored "no uinput touchpad"
    fi

    # --- EACCES: logged once, daemon runs on, retried on the node's next udev change --------------------------
    mkdir -p /run/udev/rules.d
    printf '%s\n' 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="gestured-test Denied*", MODE:="0600", GROUP:="root"' > "$dc_deny_rule"
    udevadm control --reload
    local denied_desc d_node d_pid
    denied_desc=$(dc_variant "gestured-test Denied Touchscreen" "02 00 00 00 00 00 00 00")
    if create_device "$denied_desc"; then
        d_node=$DEV_NODE; d_pid=$DEV_PID
        report "denied node: $(stat -c '%A %U:%G' "$d_node")"
        check devices:eacces-logged "a touchscreen gestured may not read is logged with its node" \
            wait_for 20 "a journal line about $d_node" dc_journal_has "$d_node"
        check devices:eacces-alive "daemon still active after EACCES" dc_active
        check devices:eacces-not-open "denied node not open" dc_not_open "$d_node"
        # Still denied: a change makes the daemon try again, which must not log again. A touchscreen added
        # afterwards and opened shows the daemon has handled that change.
        udevadm trigger --action=change "$d_node"
        if create_device "$dc_desc"; then
            wait_for 20 "gestured to open $DEV_NODE" dc_is_open "$DEV_NODE" || true
            destroy_device "$DEV_PID" "$DEV_NODE"
        fi
        local lines; lines=$(dc_journal_count "$d_node")
        check devices:eacces-logged-once "$lines journal line(s) for $d_node after two denied attempts" test "$lines" -eq 1
        journalctl -q -u gestured.service --since "@$dc_since" --no-pager -o cat | grep -F -- "$d_node" > "$WORK/devices-eacces.log" || true
        # The permissions are fixed (udev does not re-apply MODE/GROUP on a `change`, so as a seat manager or
        # an admin would: by hand), then a `change` event arrives, and the daemon retries.
        rm -f "$dc_deny_rule"; udevadm control --reload
        chgrp input "$d_node"; chmod 0660 "$d_node"
        udevadm trigger --action=change "$d_node"
        check devices:eacces-retried-on-change "opened after its permissions were fixed ($(stat -c '%A %G' "$d_node"))" \
            wait_for 20 "gestured to open $d_node" dc_is_open "$d_node"
        destroy_device "$d_pid" "$d_node"
    else
        fail devices:eacces-logged "no uinput device"
    fi
    rm -f "$dc_deny_rule"; udevadm control --reload

    # --- SYN_DROPPED: the kernel buffer overflows while the daemon is stopped; it resyncs and goes on ---------
    local mon_pid ends_before ends_after
    stdbuf -oL gesturectl monitor --json > "$dc_tmp/monitor.jsonl" 2> "$dc_tmp/monitor.err" &
    mon_pid=$!
    # A sentinel drag first proves the path end to end. The monitor may not have subscribed yet when the
    # first one plays, so it is played until a gesture end arrives (at most five times).
    local tries=0 seen=1
    until file_has_line "$dc_tmp/monitor.jsonl" '"phase": ?"end"'; do
        tries=$(( tries + 1 )); [ "$tries" -le 5 ] || { seen=0; break; }
        evemu-play "$a_node" < "$dc_sentinel"
        wait_for 5 "a gesture end from a sentinel" file_has_line "$dc_tmp/monitor.jsonl" '"phase": ?"end"' || true
    done
    if [ "$seen" = 1 ]; then
        ends_before=$(grep -cE '"phase": ?"end"' "$dc_tmp/monitor.jsonl")
        # Stopped longer than the unit's watchdog (WatchdogSec=2s) under TCG, which would kill it: service
        # watchdogs are off meanwhile (85-passthrough.sh checks the watchdog itself).
        systemctl service-watchdogs no
        kill -STOP "$(dc_pid)"
        evemu-play "$a_node" < "$dc_flood"
        kill -CONT "$(dc_pid)"
        systemctl service-watchdogs yes
        evemu-play "$a_node" < "$dc_sentinel"
        if wait_for 20 "a gesture end after the overflow" eval \
            '[ "$(grep -cE "\"phase\": ?\"end\"" "$dc_tmp/monitor.jsonl")" -gt '"$ends_before"' ]'; then
            pass devices:syn-dropped "gestures recognized again after a buffer overflow while stopped"
        else
            fail devices:syn-dropped "no gesture end after the overflow (monitor output: $dc_tmp/monitor.jsonl)"
        fi
        check devices:syn-dropped-alive "daemon active after the overflow" dc_active
        report "journal lines about dropped events: $(journalctl -q -u gestured.service --since "@$dc_since" --no-pager -o cat | grep -ci 'drop' || true)"
    else
        fail devices:monitor "no gesture end from a sentinel drag on $a_node (monitor: $(head -c 300 "$dc_tmp/monitor.err"))"
    fi
    kill "$mon_pid" 2>/dev/null; wait "$mon_pid" 2>/dev/null
    cp "$dc_tmp/monitor.jsonl" "$WORK/devices-monitor.jsonl" 2>/dev/null || true

    # --- how the node is open: read-only, non-blocking, close-on-exec --------------------------------------
    check devices:open-flags "$a_node open O_RDONLY|O_NONBLOCK|O_CLOEXEC ($(dc_fd_flags "$a_node"))" dc_flags_ok "$a_node"

    # --- an exclusive grab from the configuration ------------------------------------------------------------
    # A [[device]] section with grab = true for a touchscreen plugged in after the reload: the daemon reads
    # it, nobody else does.
    cp /etc/gestured/gestured.toml "$dc_tmp/gestured.toml.saved"
    printf '\n[[device]]\nmatch_name = "gestured-test Grabbed"\ngrab = true\n' >> /etc/gestured/gestured.toml
    systemctl reload gestured.service
    if create_device "$(dc_variant "gestured-test Grabbed" "02 00 00 00 00 00 00 00")"; then
        local g_node=$DEV_NODE g_pid=$DEV_PID rec_pid gmon tries=0 others
        wait_for 20 "gestured to open $g_node" dc_is_open "$g_node" || true
        stdbuf -oL evemu-record "$g_node" > "$dc_tmp/grab.record" 2>/dev/null &
        rec_pid=$!
        wait_for 20 "evemu-record to open $g_node" has_fd_open "$rec_pid" "$g_node" || true
        stdbuf -oL gesturectl monitor --json > "$dc_tmp/grab.jsonl" 2>/dev/null &
        gmon=$!
        until file_has_line "$dc_tmp/grab.jsonl" '"phase": ?"end"' || [ $tries -ge 5 ]; do
            tries=$((tries + 1)); evemu-play "$g_node" < "$dc_sentinel"
            wait_for 5 "a gesture end from the grabbed device" file_has_line "$dc_tmp/grab.jsonl" '"phase": ?"end"' || true
        done
        kill "$rec_pid" "$gmon" 2>/dev/null; wait "$rec_pid" "$gmon" 2>/dev/null
        check devices:grab-daemon-reads "the daemon recognizes gestures on the grabbed device" \
            file_has_line "$dc_tmp/grab.jsonl" '"phase": ?"end"'
        # The daemon had the events, so another reader would have had them too, but for the grab.
        others=$(grep -c '^E:' "$dc_tmp/grab.record" || true)
        check devices:grab-exclusive "evemu-record got $others events from the grabbed device" test "$others" = 0
        destroy_device "$g_pid" "$g_node"
    else
        fail devices:grab-daemon-reads "no uinput device"
    fi
    cp "$dc_tmp/gestured.toml.saved" /etc/gestured/gestured.toml
    systemctl reload gestured.service

    # --- the socket as the unit and sysusers make it; reload -------------------------------------------------
    check devices:socket-owner "/run/gestured/gestured.sock is $(stat -c '%A %G' /run/gestured/gestured.sock 2>&1)" \
        bash -c '[ "$(stat -c "%a %G" /run/gestured/gestured.sock)" = "660 gestured" ]'
    check devices:socket-group-quiet "no warning about the socket's group (no chown needed under the syscall filter)" \
        bash -c "! journalctl -q -u gestured.service --since @$dc_since -o cat | grep -q 'cannot give the socket'"
    local pid_before; pid_before=$(dc_pid)
    systemctl reload gestured.service
    check devices:reload "systemctl reload (SIGHUP): same process, still active, $a_node still open" \
        bash -c "[ \"\$(systemctl show -p MainPID --value gestured.service)\" = $pid_before ] && systemctl is-active --quiet gestured.service"
    check devices:reload-keeps-devices "$a_node open after the reload" wait_for 20 "$a_node open after reload" dc_is_open "$a_node"

    systemctl stop gestured.service
    check devices:stopped "service stops cleanly (inactive, not failed)" bash -c '[ "$(systemctl is-active gestured.service)" = inactive ]'

    # --- socket activation: systemd listens, the first client starts the daemon --------------------------------
    if systemctl start gestured.socket; then
        check devices:socket-unit "gestured.socket listening, $(stat -c '%A %G' /run/gestured/gestured.sock 2>&1)" \
            bash -c '[ "$(stat -c "%a %G" /run/gestured/gestured.sock)" = "660 gestured" ]'
        local listing; listing=$(timeout 60 gesturectl devices 2>&1 || true)
        check devices:socket-activation "a client started the service and saw $a_node's device: ${listing:0:120}" \
            bash -c "systemctl is-active --quiet gestured.service && grep -qF 'Wacom ISDv4 E6 Finger' <<< \"\$1\"" _ "$listing"
        # The daemon must leave a socket it inherited alone: systemd keeps listening on it.
        systemctl stop gestured.service
        check devices:socket-survives-service-stop "socket still there after the service alone stopped" \
            test -S /run/gestured/gestured.sock
        listing=$(timeout 60 gesturectl devices 2>&1 || true)
        check devices:socket-reactivation "the next client started it again: ${listing:0:80}" \
            bash -c "systemctl is-active --quiet gestured.service && grep -qF 'Wacom ISDv4 E6 Finger' <<< \"\$1\"" _ "$listing"
        systemctl stop gestured.service gestured.socket
        check devices:socket-removed-on-stop "socket file gone after stopping both units" test ! -e /run/gestured/gestured.sock
    else
        fail devices:socket-unit "systemctl start gestured.socket failed: $(systemctl status gestured.socket 2>&1 | tail -3)"
    fi

    destroy_device "$a_pid" "$a_node"
    dc_cleanup "$was_active"
}

dc_cleanup() {
    rm -f "$dc_deny_rule"; udevadm control --reload 2>/dev/null
    journalctl -q -u gestured.service --since "@$dc_since" --no-pager > "$WORK/devices-journal.txt" 2>&1 || true
    rm -rf "$dc_tmp"
    if [ "$1" = 1 ]; then systemctl start gestured.service; fi
}

dc_checks
