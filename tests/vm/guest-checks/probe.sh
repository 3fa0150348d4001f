#!/usr/bin/env bash
# Checks the daemon's device adapters and systemd units on a real kernel, apart from the daemon: builds
# devprobe (probe/, the adapters' own sources through symlinks), stages `make install`, and boots the QEMU
# guest image tests/vm/run.sh builds, with probe-guest.sh as its test script. Prints the results table;
# exits 1 if a check failed. Usage: tests/vm/guest-checks/probe.sh [--daemon]
#
#   --daemon         instead of devprobe, stage the real gestured (release, static Swift runtime) and run
#                    devices.sh against it, with the rig's tests/vm/guest/lib.sh
#
#   VM_CACHE=dir     where the rig's kernel-*/ and rootfs-*.ext4 are (default: .build/vm of this checkout;
#                    run tests/vm/run.sh once to make them)
#   VM_TIMEOUT=s     limit for the guest (default 600)
#   VM_ACCEL=kvm|tcg accelerator (default: kvm where /dev/kvm is usable and the CPU has vmx/svm)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
cache=${VM_CACHE:-$top/.build/vm}
work=$top/.build/devprobe-vm
say() { printf '[probe] %s\n' "$*"; }

kernel=$(ls -d "$cache"/kernel-*/ 2>/dev/null | head -1 || true)
rootfs=$(ls "$cache"/rootfs-*.ext4 2>/dev/null | head -1 || true)
[ -n "$kernel" ] && [ -f "$kernel/vmlinuz" ] && [ -n "$rootfs" ] \
    || { say "no guest image in $cache: run tests/vm/run.sh once (or set VM_CACHE)"; exit 2; }

rm -rf "$work"; mkdir -p "$work/rig/guest" "$work/rig/rec" "$work/out"
if [ "${1:-}" = --daemon ]; then
    [ -f "$top/tests/vm/guest/lib.sh" ] || { say "tests/vm/guest/lib.sh (the vm rig's guest helpers) is missing"; exit 2; }
    say "staging make install with a release gestured"
    make -C "$top" --no-print-directory install PREFIX=/usr DESTDIR="$work/rig/stage" \
        SWIFT_BUILD_FLAGS="-c release --static-swift-stdlib" > "$work/install.log" 2>&1 \
        || { tail -20 "$work/install.log"; exit 2; }
    cp "$top/tests/vm/guest/lib.sh" "$here/devices.sh" "$work/rig/guest/"
    cat > "$work/rig/guest/main.sh" <<'GUEST'
#!/bin/bash
set -u
. /mnt/rig/guest/lib.sh
exec > >(tee -a "$OUT/guest.log" > /dev/console) 2>&1
cp -a /mnt/rig/stage/. /
systemd-sysusers; systemctl daemon-reload
. /mnt/rig/guest/devices.sh
journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
touch "$OUT/finished"
GUEST
    chmod +x "$work/rig/guest/main.sh"
else
    say "building devprobe"
    swift build --package-path "$here/probe" --scratch-path "$top/.build/devprobe" -c release --static-swift-stdlib \
        > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 2; }
    cp "$top/.build/devprobe/release/devprobe" "$work/rig/devprobe"
    say "staging make install (units, sysusers.d)"
    make -C "$top" --no-print-directory install PREFIX=/usr DESTDIR="$work/rig/stage" > "$work/install.log" 2>&1 \
        || { tail -20 "$work/install.log"; exit 2; }
    cp "$here/probe-guest.sh" "$work/rig/guest/main.sh"
fi
recordings=$top/../shared/recordings
fixture() { # the project's copy in Tests/Fixtures, else ../shared/recordings
    local f; f=$(find "$top/Tests/Fixtures" -name "$1" -print -quit 2>/dev/null || true)
    echo "${f:-$recordings/$1}"
}
cp "$(fixture whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc)" "$work/rig/rec/touchscreen.desc"
cp "$(fixture whot_evemu-devices__Wacom_ISDv4_E6_Finger.single-top-swipe.events)" "$work/rig/rec/swipe.events"
cp "$(fixture whot_evemu-devices__Wacom_ISDv4_E6_Finger.double-top-swipe.events)" "$work/rig/rec/flood.events"
# The names devices.sh expects from the vm rig (its sentinel: any one-finger drag that ends a gesture).
cp "$work/rig/rec/touchscreen.desc" "$work/rig/rec/whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc"
cp "$work/rig/rec/flood.events" "$work/rig/rec/whot_evemu-devices__Wacom_ISDv4_E6_Finger.double-top-swipe.events"
cp "$work/rig/rec/swipe.events" "$work/rig/rec/wacom-1f-top-swipe.sentinel.events"

accel=${VM_ACCEL:-tcg}
if [ -z "${VM_ACCEL:-}" ] && [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then accel=kvm; fi
cpu=max; [ "$accel" = kvm ] && cpu=host
say "booting the guest ($accel; console: $work/out/console.log)"
rc=0
timeout --kill-after=5 "${VM_TIMEOUT:-600}" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp 2 -m 1024 \
    -no-reboot -nic none -display none -monitor none -serial "file:$work/out/console.log" \
    -kernel "$kernel/vmlinuz" -initrd "$kernel/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 systemd.show_status=1 rdinit=/init" \
    -drive "file=$rootfs,if=virtio,format=raw,snapshot=on" \
    -virtfs "local,path=$work/rig,mount_tag=rig,security_model=none,readonly=on" \
    -virtfs "local,path=$work/out,mount_tag=out,security_model=none" < /dev/null || rc=$?
[ "$rc" = 124 ] && say "guest killed at the timeout"

echo
[ -f "$work/out/report.txt" ] && cat "$work/out/report.txt" && echo
failed=0
if [ -s "$work/out/results.tsv" ]; then
    while IFS=$'\t' read -r name result detail; do
        printf '%-42s %-5s %s\n' "$name" "$result" "${detail:0:110}"
        [ "$result" = PASS ] || failed=1
    done < "$work/out/results.tsv"
else
    say "no results"; failed=1
fi
[ -f "$work/out/finished" ] || { say "the guest script did not finish (log: $work/out/guest.log)"; failed=1; }
say "$([ $failed = 0 ] && echo "all $(wc -l < "$work/out/results.tsv") checks passed" || echo FAILED) (logs: $work/out/)"
exit $failed
