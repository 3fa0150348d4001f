#!/bin/bash
# The guest's test entry point, started by vmtest.service once systemd is up (see tests/vm/image-setup.sh).
# Runs tests/*.sh in order; each appends PASS/FAIL lines to /mnt/out/results.tsv. The host reads the files
# in /mnt/out after the guest has powered off (vmtest.service powers off when this script exits).
set -u
. /mnt/rig/guest/lib.sh

# Everything goes to guest.log (the file the host points to on failure) and to the serial console.
exec > >(tee -a "$OUT/guest.log" > /dev/console) 2>&1
tee_pid=$!

log "kernel $(uname -r), $(nproc) CPUs, systemd $(systemctl --version | head -1 | cut -d' ' -f2)"
log "system up $(cut -d' ' -f1 /proc/uptime)s after the kernel started"

if [ -n "$(cat "$RIG/trace")" ]; then
    PS4='+ ${EPOCHREALTIME} ${BASH_SOURCE[0]##*/}:${LINENO}: '
    set -x
fi
read -r -a patterns < "$RIG/tests-to-run"      # VM_TESTS on the host; read, so "*" is not globbed here
for t in "$RIG"/guest/tests/*.sh; do
    selected=0
    for pattern in "${patterns[@]}"; do
        # shellcheck disable=SC2053
        [[ $(basename "$t") == $pattern ]] && selected=1
    done
    [ "$selected" = 1 ] || continue
    log "=== $(basename "$t")"
    # A test file is sourced so that later ones can use what earlier ones set up (devices, daemons).
    . "$t"
    save_work
done

log "=== done; collecting the journal"
journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
dmesg > "$OUT/dmesg.txt" 2>&1
touch "$OUT/finished"
exec > /dev/null 2>&1
wait "$tee_pid" 2>/dev/null
sync
