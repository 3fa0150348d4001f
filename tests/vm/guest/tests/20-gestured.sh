# Install gestured as a package would (the staged `make install` tree onto /, then what a package's
# post-install step does: systemd-sysusers, daemon-reload), start the service, wait for READY.
stage=$RIG/stage
if [ ! -x "$stage/usr/bin/gestured" ] || [ ! -f "$stage/usr/lib/systemd/system/gestured.service" ]; then
    fail gestured-installed "gestured not installed: the host staged no build (make install failed or has not run; see the rig's output)"
else
    cp -a "$stage/." /
    systemd-sysusers
    systemctl daemon-reload
    check gestured-installed "make install tree: $(cd "$stage" && find . -type f | sed 's|^\./|/|' | sort | tr '\n' ' ')" \
        test -x /usr/bin/gestured -a -f /etc/gestured/gestured.toml
    check gestured-user "systemd-sysusers made user gestured, in group input: $(id gestured 2>&1)" \
        eval 'id -nG gestured | grep -qw input'

    # Type=notify: `systemctl start` returns once the daemon has sent READY=1 (or has failed).
    if timeout 60 systemctl start gestured.service; then
        state=$(systemctl show -p ActiveState -p SubState -p StatusText --value gestured.service | tr '\n' ' ')
        pass gestured-ready "systemctl start returned after READY=1: $state"
        GESTURED_UP=1
    else
        fail gestured-ready "systemctl start gestured failed: $(systemctl status --no-pager gestured.service 2>&1 | tail -5 | tr '\n' ' ')"
    fi
fi

if require_gestured gestured-socket; then
    check gestured-socket "$(stat -c '%n %A %U:%G' /run/gestured/gestured.sock 2>&1)" test -S /run/gestured/gestured.sock
    # The client all the replays are checked with: subscribed to everything, JSON lines.
    gesturectl monitor --json > "$MONITOR" 2> "$WORK/monitor.stderr" &
    monitor_pid=$!
    wait_for 20 "gesturectl monitor to subscribe" file_has_line "$MONITOR" '"type":"subscribed"' \
        && pass gestured-monitor-subscribed "gesturectl monitor --json connected and subscribed" \
        || fail gestured-monitor-subscribed "no subscribed reply: $(cat "$WORK/monitor.stderr")"

    systemd-analyze security --no-pager gestured.service > "$WORK/security.txt" 2>&1
    report ""
    report "systemd-analyze security gestured.service (the installed unit, in the guest):"
    report "$(cat "$WORK/security.txt")"
    check gestured-security-analyzed "$(tail -1 "$WORK/security.txt")" grep -q 'Overall exposure level' "$WORK/security.txt"
fi
