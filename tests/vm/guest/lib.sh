# Helpers for the guest's test scripts (sourced by main.sh; bash).
# Every wait here waits for a fact (a line in a file, an fd in /proc, a udev property), bounded by a deadline:
# under emulation nothing takes a predictable time, so nothing sleeps a fixed time and hopes.

RIG=/mnt/rig           # read-only share: guest/, rec/ (recordings), stage/ (installed gestured), expected/, bin/
OUT=/mnt/out           # results share: guest.log, results.tsv, report.txt, journal.txt, per-test files
REC=$RIG/rec
WORK=$OUT/work         # per-test outputs the host reads after the run
mkdir -p "$WORK"

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
        sleep 0.02
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
