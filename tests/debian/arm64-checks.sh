#!/bin/sh
# The checks make test-arm64 runs inside the emulated arm64 trixie root (tests/debian/test-arm64.sh): the
# packages in /debs installed with dpkg, the project's Tests/Fixtures at /fixtures. Usage: arm64-checks.sh VERSION
# Prints PASS or FAIL and what, one line each, then "N failed"; exits 1 when one failed.
set -u
version=$1
fails=0
check() { # check ok|no WHAT
    if [ "$1" = ok ]; then echo "PASS $2"; else echo "FAIL $2"; fails=$((fails + 1)); fi
}

dpkg -i "/debs/gestured_${version}_arm64.deb" "/debs/python3-gestured_${version}_all.deb" > /tmp/dpkg.log 2>&1 \
    || { cat /tmp/dpkg.log; echo "FAIL dpkg -i the packages"; exit 1; }
check ok "dpkg -i gestured_${version}_arm64.deb python3-gestured_${version}_all.deb"
# The ELF header's e_machine (offset 18, little-endian): 0xb7 is AArch64.
machine=$(od -An -tx1 -j18 -N2 /usr/bin/gestured | tr -d ' ')
if [ "$machine" = b700 ]; then check ok "/usr/bin/gestured is an AArch64 program"; else check no "/usr/bin/gestured's ELF machine is $machine, not b700 (AArch64)"; fi
if gestured --version | grep -qx "gestured $version (protocol [0-9]*)"; then check ok "gestured --version"; else check no "gestured --version"; fi
if gestured --check-config /etc/gestured/gestured.toml > /tmp/check.log 2>&1; then
    check ok "gestured --check-config /etc/gestured/gestured.toml"
else
    cat /tmp/check.log; check no "gestured --check-config /etc/gestured/gestured.toml"
fi

# Every golden replay, byte for byte (Tests/Fixtures/golden/manifest.tsv, as tools/golden.sh makes them).
golden=/fixtures/golden rec=/fixtures/recordings tab=$(printf '\t')
goldens=0 same=0
while IFS=$tab read -r name recording desc config; do
    case "$name" in '#'*|'') continue ;; esac
    goldens=$((goldens + 1))
    set --
    [ "$desc" = - ] || set -- "$@" --device "$rec/$desc"
    [ -z "$config" ] || [ "$config" = - ] || set -- "$@" --config "$golden/configs/$config"
    case "$name" in
        *.evemu) gesturectl replay "$@" --forward "/tmp/$name" "$rec/$recording" > /dev/null 2>&1 ;;
        *) gesturectl replay "$@" "$rec/$recording" > "/tmp/$name" 2>/dev/null ;;
    esac
    if cmp -s "/tmp/$name" "$golden/$name"; then
        same=$((same + 1))
    else
        echo "  $name differs from the golden file:"; diff "$golden/$name" "/tmp/$name" | head -5
    fi
done < "$golden/manifest.tsv"
if [ "$same" = "$goldens" ] && [ "$goldens" -gt 0 ]; then
    check ok "gesturectl replay (--forward for passthrough): $same of $goldens golden replays byte for byte"
else
    check no "gesturectl replay: $same of $goldens golden replays byte for byte"
fi

# The daemon replaying a recording to its clients: gesturectl monitor gets as many gestures as the offline
# replay finds, and the Python client's package the hello and two gestures.
recording=$rec/dell_canvas_touch.evemu
want=$(gesturectl replay --no-updates "$recording" | grep -c '"type":"gesture"')
mkdir -p /tmp/d
printf '[daemon]\nsocket_group = ""\n' > /tmp/d/demo.toml
gestured --no-udev --config /tmp/d/demo.toml --socket /tmp/d/gestured.sock --replay "$recording" --loop 2> /tmp/d/gestured.log &
pid=$!
for _ in $(seq 300); do grep -q ' ready: ' /tmp/d/gestured.log && break; sleep 0.1; done
if timeout 120 gesturectl monitor --socket /tmp/d/gestured.sock --no-updates --count "$want" > /tmp/d/monitor.log 2>&1; then
    check ok "gestured --replay $(basename "$recording") to gesturectl monitor: the $want gestures of the offline replay"
else
    tail -20 /tmp/d/gestured.log /tmp/d/monitor.log; check no "gestured --replay to gesturectl monitor"
fi
cat > /tmp/d/client.py <<'PY'
import sys, gestured
client = gestured.Client(sys.argv[1], updates=False)
ends = 0
for message in client.events(timeout=60):
    if isinstance(message, gestured.GestureEvent) and message.phase == "end":
        ends += 1
        if ends == 2:
            break
print("hello from gestured", client.hello.version, "and", ends, "gestures ended")
PY
if python3 /tmp/d/client.py /tmp/d/gestured.sock > /tmp/d/client.log 2>&1 \
    && grep -qx "hello from gestured $version and 2 gestures ended" /tmp/d/client.log; then
    check ok "python3-gestured against the daemon: $(cat /tmp/d/client.log)"
else
    cat /tmp/d/client.log; check no "python3-gestured against the daemon"
fi
kill "$pid"; wait "$pid"
echo "$fails failed"
[ "$fails" = 0 ]
