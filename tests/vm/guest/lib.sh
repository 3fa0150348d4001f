# Helpers for the guest's test scripts (sourced by main.sh; bash).
# Every wait here waits for a fact (a line in a file, an fd in /proc, a udev property), bounded by a deadline:
# under emulation nothing takes a predictable time, so nothing sleeps a fixed time and hopes.

RIG=/mnt/rig           # read-only share: guest/, rec/ (recordings), stage/ (installed gestured), expected/, bin/
OUT=/mnt/out           # results share: guest.log, results.tsv, report.txt, journal.txt, work/
REC=$RIG/rec
# Per-test outputs (captures, monitor output, lisgd's commands...), copied to $OUT/work after each test
# file. They are written on tmpfs: a 9p write per line is slow enough under emulation that a listener
# writing there falls behind and the kernel drops its events.
WORK=/run/vmtest
mkdir -p "$WORK" "$OUT/work"
save_work() { cp -a "$WORK/." "$OUT/work/"; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }
started_ms=$(now_ms)
log() { printf '[guest %6.1fs] %s\n' "$(( $(now_ms) - started_ms ))e-3" "$*"; }

# result NAME PASS|FAIL DETAIL — one line of results.tsv (the host prints the table and decides the exit status).
result() {
    printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$OUT/results.tsv"
    log "$2 $1${3:+: $3}"
}
pass() { result "$1" PASS "${2:-}"; }
fail() { result "$1" FAIL "${2:-}"; }
# check NAME DETAIL cmd... — PASS when the command succeeds.
check() { local name=$1 detail=$2; shift 2; if "$@"; then pass "$name" "$detail"; else fail "$name" "$detail"; fi; }

# Lines for report.txt, printed by the host after the results table.
report() { printf '%s\n' "$*" >> "$OUT/report.txt"; }

# wait_for SECONDS DESCRIPTION cmd... — poll the command until it succeeds; fail (1) at the deadline.
wait_for() {
    local seconds=$1 what=$2 deadline; shift 2
    deadline=$(( $(now_ms) + seconds * 1000 ))
    until "$@"; do
        if [ "$(now_ms)" -ge "$deadline" ]; then log "timed out after ${seconds}s waiting for: $what"; return 1; fi
        sleep 0.05
    done
}

# has_fd_open PID PATH — the process holds PATH open (a fact: the device is open, events will reach it).
has_fd_open() {
    local fd
    for fd in /proc/"$1"/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0; done
    return 1
}

# file_has_line FILE REGEX
file_has_line() { [ -f "$1" ] && grep -qE "$2" "$1"; }
# lines_at_least FILE N
lines_at_least() { [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; }

# create_device DESC-FILE — make a uinput device with evemu-device, wait until udev has processed it.
# Sets DEV_NODE (/dev/input/eventN) and DEV_PID (kill it to remove the device). Returns 1 on failure.
create_device() {
    local desc=$1 out
    out=$(mktemp /run/evemu-device.XXXXXX)
    stdbuf -oL evemu-device "$desc" > "$out" 2>&1 &
    DEV_PID=$!
    DEV_NODE=""
    if ! wait_for 20 "evemu-device to print its node ($desc)" file_has_line "$out" '/dev/input/event[0-9]+'; then
        cat "$out"; kill "$DEV_PID" 2>/dev/null; return 1
    fi
    DEV_NODE=$(grep -oE '/dev/input/event[0-9]+' "$out" | head -1)
    rm -f "$out"
    wait_for 20 "udev to finish with $DEV_NODE" udev_done "$DEV_NODE" || return 1
}
# udev has run its rules for the node: its database entry says it is an input device.
udev_done() { udevadm info --query=property --name="$1" 2>/dev/null | grep -qx 'ID_INPUT=1'; }

# destroy_device PID — remove a device made by create_device and wait until its node is gone.
destroy_device() {
    local pid=$1 node=$2
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    wait_for 20 "$node to disappear" test ! -e "$node"
}

# count_presses FILE — BTN_TOUCH presses in an evemu event file (each touch-down of the first finger).
count_presses() { grep -cE '^E: [0-9.]+ 0001 014a 0*1([[:space:]]|$)' "$1" || true; }

# recordings.list rows: NAME DESC EVENTS
recordings() { grep -vE '^(#|$)' "$RIG/guest/recordings.list"; }

# --- gestured ----------------------------------------------------------------------------------------------
GESTURED_UP=0          # set to 1 by tests/20-gestured.sh once the service is installed and READY
MONITOR=$WORK/monitor.jsonl    # what a `gesturectl monitor --json` client received, all run long

# require_gestured NAME — the check NAME needs the running service; fail it (not skip) when there is none.
require_gestured() {
    [ "$GESTURED_UP" = 1 ] && return 0
    fail "$1" "gestured not installed or not running (see the gestured-* checks above)"
    return 1
}
# Every path on the root file system, sorted, leaving out what the system itself changes all the time
# (/var/log, dpkg's database, caches) and other file systems (/run, /proc, the shares). For the purge check.
root_files() {
    find / -xdev \( -path /var/log -o -path /var/lib/dpkg -o -path /var/cache -o -path /var/tmp -o -path /tmp \) -prune \
        -o -print 2>/dev/null | sort
}
gestured_pid() { systemctl show -p MainPID --value gestured.service; }
# start_gestured WHAT — the service started (again, after a check that stopped it) and its socket there: then
# GESTURED_UP=1 (require_gestured's condition).
start_gestured() {
    systemctl reset-failed gestured.service 2>/dev/null
    systemctl start gestured.service 2>/dev/null
    if wait_for 30 "gestured to be active for $1" systemctl is-active --quiet gestured.service \
            && wait_for 20 "the socket" test -S /run/gestured/gestured.sock; then
        GESTURED_UP=1
    fi
}

# socket_group_grants_no_devices PREFIX — issue 28, item 6: a user in the socket's group (what the README
# tells every client's user to join) connects, and still cannot open /dev/uinput (nor a touchscreen's event
# node), which only the service's user may. PASS/FAIL lines PREFIX-uinput-group, PREFIX-client-connects,
# PREFIX-client-no-uinput, PREFIX-client-no-input, PREFIX-service-uinput. The client is a system user made for the check (no home,
# no subordinate ids) and removed after it.
socket_group_grants_no_devices() {
    local prefix=$1 client=gtclient out status
    udevadm settle --timeout=20 2>/dev/null
    wait_for 20 "/dev/uinput to be given to group gestured-input" eval '[ "$(stat -c %G /dev/uinput)" = gestured-input ]'
    check "$prefix-uinput-group" "$(stat -c '%n %A %U:%G' /dev/uinput); gestured-input: $(getent group gestured-input)" \
        eval '[ "$(stat -c %G:%a /dev/uinput)" = gestured-input:660 ] && [ "$(getent group gestured-input | cut -d: -f4)" = gestured ]'
    userdel "$client" 2>/dev/null
    if ! useradd --system --no-create-home --no-user-group --gid nogroup --groups gestured --shell /usr/sbin/nologin "$client"; then
        fail "$prefix-client-connects" "useradd $client failed"
        return
    fi
    out=$(runuser -u "$client" -- gesturectl devices --socket /run/gestured/gestured.sock 2>&1); status=$?
    check "$prefix-client-connects" "$(id "$client"): gesturectl devices: status $status, ${out:0:80}" test "$status" = 0
    out=$(runuser -u "$client" -- sh -c 'exec 3<>/dev/uinput' 2>&1); status=$?
    check "$prefix-client-no-uinput" "as $client, opening /dev/uinput: status $status, ${out:0:100}" \
        eval '[ "$status" != 0 ] && echo "$out" | grep -q "Permission denied"'
    local node
    node=$(ls /dev/input/event* 2>/dev/null | head -1)
    if [ -n "$node" ]; then
        out=$(runuser -u "$client" -- sh -c "exec 3< $node" 2>&1); status=$?
        check "$prefix-client-no-input" "as $client, opening $node ($(stat -c '%A %U:%G' "$node")): status $status, ${out:0:100}" \
            eval '[ "$status" != 0 ] && echo "$out" | grep -q "Permission denied"'
    fi
    out=$(runuser -u gestured -- sh -c 'exec 3<>/dev/uinput' 2>&1); status=$?
    check "$prefix-service-uinput" "as gestured ($(id -nG gestured)), opening /dev/uinput: status $status${out:+, ${out:0:100}}" test "$status" = 0
    userdel "$client" 2>/dev/null
}
# The daemon lists the node among its devices (`gesturectl devices`).
listed() { gesturectl devices --json 2>/dev/null | grep -q "\"path\":\"$1\""; }
not_listed() { gesturectl devices --json 2>/dev/null | grep -q '"type":"devices"' && ! listed "$1"; }
# announced START TYPE NODE — the monitor client got a device-added/-removed notification for NODE after
# line START. Cheaper to poll than `gesturectl devices` (no process start), so the waits poll this and
# then confirm once with listed / not_listed.
announced() { monitor_since "$1" | grep "\"type\":\"$2\"" | grep -q "\"path\":\"$3\""; }
# gestured_has START NODE — gestured announced the node, holds it open and lists it.
gestured_has() {
    wait_for 20 "gestured to announce $2" announced "$1" device-added "$2" \
        && wait_for 20 "gestured to open $2" has_fd_open "$(gestured_pid)" "$2" \
        && wait_for 20 "gesturectl devices to list $2" listed "$2"
}
# gestured_dropped START NODE — gestured announced the removal and no longer lists the node.
gestured_dropped() {
    wait_for 20 "gestured to announce the removal of $2" announced "$1" device-removed "$2" \
        && wait_for 20 "gesturectl devices to drop $2" not_listed "$2"
}
monitor_lines() { cat "$MONITOR" 2>/dev/null | wc -l; }
# monitor_since START — the monitor's lines after line START.
monitor_since() { tail -n +"$(( $1 + 1 ))" "$MONITOR"; }
# count_since START DEVICE-ID PHASES — gesture events of that device with a phase matching the regex.
count_since() {
    monitor_since "$1" | grep '"type":"gesture"' | grep "\"device\":\"$2\"" | grep -cE "\"phase\":\"($3)\"" || true
}
# at_least N cmd... — the command prints a number >= N.
at_least() { local n=$1; shift; [ "$("$@")" -ge "$n" ]; }
# journal_count REGEX — lines of gestured's journal matching REGEX (this boot).
journal_count() { journalctl -b -u gestured.service -o cat --no-pager | grep -cE "$1" || true; }
# lisgd as the replay and cost checks run it (tests 30 and 35): one command per finger count and direction; each appends "<fingers>-<gesture>" to a file
# (not "," — lisgd splits -g at commas). Screen 1000x1000 "pixels", so the sentinel is an exact diagonal;
# 5 s to finish a gesture (the default 800 ms would reject the slower recordings).
lisgd_args=(-w 1000 -h 1000 -m 5000)
for n in 1 2 3 4 5; do
    for g in LR RL DU UD DLUR DRUL URDL ULDR; do
        lisgd_args+=(-g "$n,$g,*,*,R,echo $n-$g >> /run/lisgd.out")
    done
done

# cpu_ticks PID — user + system CPU time in clock ticks (/proc/PID/stat fields 14 and 15);
# cpu_ns PID — the same in nanoseconds from the scheduler (/proc/PID/schedstat field 1), finer grained.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }

# --- passthrough-panel (tests/vm/passthrough-panel.c: a uinput panel whose writes reach it while gestured
# grabs it) -------------------------------------------------------------------------------------------------
# pt_start NAME [OPTIONS...] starts the panel process and sets PT_NODE; pt_cmd sends one command and reads its
# answer into PT_REPLY; pt_stop closes its input, which destroys the panel (an unplug). One panel at a time
# (bash keeps one coproc).
pt_start() {
    coproc PTP { exec "$RIG/bin/passthrough-panel" "$@" 2>> "$WORK/pt-panel.stderr"; }
    PT_PANEL_PID=$PTP_PID
    PT_NODE=""
    read -r -t 30 PT_NODE <&"${PTP[0]}" || { log "passthrough-panel: $(cat "$WORK/pt-panel.stderr")"; return 1; }
    wait_for 20 "udev to finish with $PT_NODE" udev_done "$PT_NODE"
}
pt_cmd() { PT_REPLY=""; echo "$1" >&"${PTP[1]}" && read -r -t 300 PT_REPLY <&"${PTP[0]}"; }
pt_stop() {
    local fd=${PTP[1]:-}
    [ -n "$fd" ] && eval "exec $fd>&-"
    wait "$PT_PANEL_PID" 2>/dev/null
    wait_for 20 "$PT_NODE to disappear" test ! -e "$PT_NODE"
}
# pt_drag "SLOT X0 Y0 X1 Y1"... : the fingers move together in PT_STEPS frames (default 20), as lines of
# the touch scripts' "m SLOT X Y" and "f" (85-passthrough.sh's pt_script, 86-pointer.sh's ptr_script).
pt_drag() {
    local steps=${PT_STEPS:-20} i spec specs=("$@") f
    for ((i = 1; i <= steps; i++)); do
        for spec in "${specs[@]}"; do
            read -r -a f <<< "$spec"
            echo "m ${f[0]} $(( f[1] + (f[3] - f[1]) * i / steps )) $(( f[2] + (f[4] - f[2]) * i / steps ))"
        done
        echo f
    done
}
# pt_reload — systemctl reload, then wait for the journal's next "configuration reloaded".
pt_reload() {
    local before
    before=$(journal_count 'configuration reloaded')
    systemctl reload gestured.service
    wait_for 20 "the reload" at_least $(( before + 1 )) journal_count 'configuration reloaded'
}
