#!/bin/bash
# Guest side of probe.sh: checks the device adapters (through devprobe) and the installed systemd units on a
# real kernel with uinput touchscreens. Runs as the rig image's vmtest.service (/mnt/rig/guest/main.sh);
# writes results.tsv (NAME, PASS|FAIL, DETAIL), report.txt and guest.log to /mnt/out, then the guest powers off.
# Waits are for facts (a line in the probe's journal, a node, a udev property), bounded by deadlines.
set -u
RIG=/mnt/rig OUT=/mnt/out
exec > >(tee -a "$OUT/guest.log" > /dev/console) 2>&1
probe=$RIG/devprobe desc=$RIG/rec/touchscreen.desc swipe=$RIG/rec/swipe.events flood=$RIG/rec/flood.events

log() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
result() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$OUT/results.tsv"; log "$2 $1${3:+: $3}"; }
pass() { result "$1" PASS "${2:-}"; }
fail() { result "$1" FAIL "${2:-}"; }
report() { printf '%s\n' "$*" >> "$OUT/report.txt"; }

# The probe runs as gestured.service (the installed unit, ExecStart= replaced): its journal is its output.
journal() { journalctl -q -u gestured.service -o cat --no-pager; }
mark=0
set_mark() { mark=$(journal | wc -l); }
since_mark() { journal | tail -n +$((mark + 1)); }
# await SECONDS REGEX — a journal line matching REGEX appears after the mark; prints it.
await() {
    local deadline=$(( $(date +%s) + $1 ))
    until since_mark | grep -qE -- "$2"; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
    since_mark | grep -E -- "$2" | tail -1
}
expect() { # expect NAME SECONDS REGEX
    local line
    if line=$(await "$2" "$3"); then pass "$1" "${line:0:200}"; else fail "$1" "no line /$3/ within $2 s"; fi
}
wait_until() { local deadline=$(( $(date +%s) + $1 )); shift; until "$@"; do [ "$(date +%s)" -lt "$deadline" ] || return 1; sleep 0.1; done; }

# make_device DESC — a uinput device; sets NODE and DEV_PID once udev has processed it.
make_device() {
    local out; out=$(mktemp)
    set_mark
    stdbuf -oL evemu-device "$1" > "$out" 2>&1 & DEV_PID=$!
    wait_until 30 grep -qE '/dev/input/event[0-9]+' "$out" || { log "evemu-device: $(cat "$out")"; return 1; }
    NODE=$(grep -oE '/dev/input/event[0-9]+' "$out" | head -1)
    wait_until 30 eval "udevadm info --query=property --name=$NODE 2>/dev/null | grep -qx ID_INPUT=1"
    log "device $NODE from $(basename "$1"): $(udevadm info --query=property --name="$NODE" | grep -E '^ID_INPUT_(TOUCHSCREEN|TOUCHPAD)=' | tr '\n' ' ')$(stat -c '%A %G' "$NODE")"
}
remove_device() { kill "$1"; wait "$1" 2>/dev/null; wait_until 30 test ! -e "$2"; }
# variant NAME PROPS [KEYLINE5 KEYLINE6] — the touchscreen description renamed, with other INPUT_PROP bytes
# and optionally other EV_KEY bitmap lines for codes 256..319 and 320..383.
variant() {
    local out=/run/${1// /-}.desc
    awk -v name="$1" -v props="$2" -v key5="${3:-}" -v key6="${4:-}" '
        /^N: / { print "N: " name; next }
        /^P: / { print "P: " props; next }
        /^B: 01 / { k++; if (k == 5 && key5 != "") { print key5; next } if (k == 6 && key6 != "") { print key6; next } }
        { print }' "$desc" > "$out"
    echo "$out"
}

log "kernel $(uname -r), $(systemctl --version | head -1)"
cp -a "$RIG/stage/." /
systemd-sysusers
mkdir -p /etc/systemd/system/gestured.service.d
printf '[Service]\nType=simple\nExecStart=\nExecStart=%s watch --all\n' "$probe" > /etc/systemd/system/gestured.service.d/devprobe.conf
systemctl daemon-reload

# --- the installed units ------------------------------------------------------------------------------------
groups=$(id -nG gestured 2>/dev/null)
if [[ " $groups " == *" input "* ]]; then pass sysusers "gestured in: $groups"; else fail sysusers "id -nG gestured: '$groups'"; fi
exposure=$(systemd-analyze security gestured.service 2>/dev/null | sed -n 's/.*Overall exposure level for gestured.service: \([0-9.]*\).*/\1/p')
report "systemd-analyze security gestured.service in the guest: ${exposure:-unknown}"
if awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 1.0) }'; then pass unit-exposure "$exposure"; else fail unit-exposure "${exposure:-unknown}"; fi

# --- a touchscreen present at start, under the unit's sandbox ------------------------------------------------
make_device "$desc"; A=$NODE A_PID=$DEV_PID
set_mark; systemctl start gestured.service
expect open-at-start 60 "^opened $A name=\"Wacom ISDv4 E6 Finger\" protocol=multitouchSlots\(slotCount: 2\) direct=true id=056a:00e6"
pid=$(systemctl show -p MainPID --value gestured.service)
report "probe process: $(grep -E '^(Uid|Gid|Groups):' /proc/$pid/status | tr -s '\t\n' '  ')"
flags=""
for fd in /proc/$pid/fd/*; do [ "$(readlink "$fd")" = "$A" ] && flags=$(awk '/^flags:/ {print $2}' "/proc/$pid/fdinfo/${fd##*/}"); done
if [ -n "$flags" ] && (( (8#$flags & 3) == 0 && (8#$flags & 8#4000) != 0 && (8#$flags & 8#2000000) != 0 )); then
    pass open-flags "O_RDONLY|O_NONBLOCK|O_CLOEXEC (fdinfo flags $flags)"
else
    fail open-flags "fdinfo flags '$flags'"
fi

set_mark; evemu-play "$A" < "$swipe"
if await 30 "^read $A events=[1-9]" > /dev/null; then
    skew=$(since_mark | grep -oE "^read $A events=[0-9]+ max-clock-skew-us=[0-9]+" | grep -oE '[0-9]+$' | sort -n | tail -1)
    # The event time and CLOCK_MONOTONIC at reading agree to within the reading delay (an emulated guest is
    # slow, so the bound is generous); CLOCK_REALTIME would be ~ decades off.
    if [ "$skew" -lt 2000000 ]; then pass clock-monotonic "worst event-time distance from CLOCK_MONOTONIC: $skew us"
    else fail clock-monotonic "event times $skew us from CLOCK_MONOTONIC"; fi
else
    fail clock-monotonic "no events read"
fi

# --- hotplug ----------------------------------------------------------------------------------------------------
make_device "$desc"; B=$NODE
expect hotplug-add 60 "^opened $B "
set_mark; remove_device "$DEV_PID" "$B"
expect hotplug-remove 60 "^(closed $B|read-error $B: .* removed=true)"
make_device "$desc"; B2=$NODE
expect hotplug-replug 60 "^opened $B2 "
remove_device "$DEV_PID" "$B2"

# --- what is refused, and what udev vouches for -----------------------------------------------------------------
pad=$(variant "gestured-test Touchpad" "05 00 00 00 00 00 00 00" "B: 01 00 00 01 00 00 00 00 00" "B: 01 20 04 00 00 00 00 00 00")
make_device "$pad"
expect touchpad-refused 60 "^warning: ignoring $NODE \(\"gestured-test Touchpad\"\): it is a touchpad"
remove_device "$DEV_PID" "$NODE"
plain=$(variant "gestured-test Indirect" "00 00 00 00 00 00 00 00")
make_device "$plain"
expect udev-touchscreen-without-direct-accepted 60 "^opened $NODE name=\"gestured-test Indirect\" .* direct=false"
remove_device "$DEV_PID" "$NODE"

# --- EACCES: logged once, daemon runs on, retried on the next change ----------------------------------------------
mkdir -p /run/udev/rules.d
echo 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="gestured-test Denied*", MODE:="0600", GROUP:="root"' > /run/udev/rules.d/99-zz-deny.rules
udevadm control --reload
make_device "$(variant "gestured-test Denied" "02 00 00 00 00 00 00 00")"; D=$NODE D_PID=$DEV_PID
expect eacces-logged 60 "^warning: cannot open $D: Permission denied \(errno 13\)\. .*group 'input'"
# Still denied: the change is retried quietly. A touchscreen opened afterwards shows the change was handled.
set_mark; udevadm trigger --action=change "$D"
await 60 "^debug: cannot open $D" > /dev/null
make_device "$desc"; await 60 "^opened $NODE " > /dev/null; remove_device "$DEV_PID" "$NODE"
warnings=$(journal | grep -c "^warning: cannot open $D")
if [ "$warnings" = 1 ]; then pass eacces-logged-once "1 warning, $(journal | grep -c "^debug: cannot open $D") quiet retries"
else fail eacces-logged-once "$warnings warnings"; fi
rm /run/udev/rules.d/99-zz-deny.rules; udevadm control --reload
chgrp input "$D"; chmod 0660 "$D"
set_mark; udevadm trigger --action=change "$D"
expect eacces-retried-on-change 60 "^opened $D "
remove_device "$D_PID" "$D"

# --- SYN_DROPPED: stopped reader, overflowing buffer, libevdev's resync -----------------------------------------------
set_mark
kill -STOP "$pid"; evemu-play "$A" < "$flood"; evemu-play "$A" < "$flood"; kill -CONT "$pid"
expect syn-dropped-reported 60 "^dropped $A at=[0-9]+"
expect syn-dropped-resynced 60 "^read $A events=[0-9]+ max-clock-skew-us=[0-9]+ after-drop=[0-9]+"
set_mark; evemu-play "$A" < "$swipe"
expect reads-after-drop 60 "^read $A events=[1-9]"

# --- PrivateNetwork=yes (an experiment, reported): does udev's hotplug reach a private network namespace? --------
printf '[Service]\nPrivateNetwork=yes\n' > /etc/systemd/system/gestured.service.d/private-network.conf
systemctl daemon-reload; set_mark; systemctl restart gestured.service
await 60 "^opened $A " > /dev/null
make_device "$desc"
if await 15 "^udev add $NODE " > /dev/null; then report "PrivateNetwork=yes: a hotplug add reached the probe"
else report "PrivateNetwork=yes: no hotplug add reached the probe within 15 s (udev's netlink multicast stays in the host namespace)"; fi
remove_device "$DEV_PID" "$NODE"
rm /etc/systemd/system/gestured.service.d/private-network.conf; systemctl daemon-reload
systemctl stop gestured.service

# --- exclusive grab, EBUSY, ENODEV on read, non-evdev nodes ------------------------------------------------------------
"$probe" open "$A" --grab > /run/grab1.out 2>&1 & g1=$!
wait_until 30 grep -q "^opened $A .*grabbed=true" /run/grab1.out && pass grab "$(head -1 /run/grab1.out | cut -c1-120)" || fail grab "$(cat /run/grab1.out)"
out=$("$probe" open "$A" --grab 2>&1)
[[ "$out" == *"cannot grab $A exclusively (Device or resource busy, errno 16): another program holds the grab"* ]] \
    && pass grab-busy "$out" || fail grab-busy "$out"
stdbuf -oL evemu-record "$A" > /run/record.out 2>&1 & rec=$!
wait_until 30 grep -q '^N:' /run/record.out
evemu-play "$A" < "$swipe"
# Once the grabbing reader has the events, another reader would have them too (the kernel hands an event
# to every reader at once) — unless the grab keeps them from it.
wait_until 30 grep -qE "^read $A events=[1-9]" /run/grab1.out
kill "$rec"; wait "$rec" 2>/dev/null
seen=$(grep -c '^E:' /run/record.out || true)
[ "$seen" = 0 ] && pass grab-exclusive "evemu-record got no events while grabbed" || fail grab-exclusive "evemu-record got $seen events"
kill "$g1"; wait "$g1" 2>/dev/null
"$probe" open "$A" > /run/open.out 2>&1 & g3=$!
wait_until 30 grep -q "^opened $A " /run/open.out
remove_device "$A_PID" "$A"
wait_until 30 grep -q "^read-error $A: $A was removed removed=true" /run/open.out \
    && pass enodev-removed "$(tail -1 /run/open.out)" || fail enodev-removed "$(tail -2 /run/open.out)"
kill "$g3" 2>/dev/null; wait "$g3" 2>/dev/null
out=$("$probe" open /dev/null 2>&1)
[[ "$out" == *"/dev/null is not an evdev input device"*"errno 25"* ]] && pass not-evdev "$out" || fail not-evdev "$out"
out=$("$probe" open /dev/input/event999 2>&1)
[[ "$out" == *"open /dev/input/event999: No such file or directory (errno 2)"* ]] && pass missing-node "$out" || fail missing-node "$out"

journal > "$OUT/probe-journal.txt"
touch "$OUT/finished"
