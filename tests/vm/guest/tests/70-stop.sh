# `systemctl stop`: the daemon exits, its socket is gone, connected clients see the end of the stream.
if require_gestured stop-removes-socket; then
    pid=$(gestured_pid)
    timeout 60 systemctl stop gestured.service
    check stop-removes-socket "after systemctl stop: $(ls -la /run/gestured/ 2>&1 | tail -n +2 | tr '\n' ' ')" \
        test ! -e /run/gestured/gestured.sock
    check stop-process-gone "process $pid gone, unit $(systemctl is-active gestured.service)" \
        eval '! kill -0 "$pid" 2>/dev/null && ! systemctl is-active --quiet gestured.service'
    if wait_for 20 "gesturectl monitor to exit" eval '! kill -0 "$monitor_pid" 2>/dev/null'; then
        pass stop-clients-disconnected "gesturectl monitor exited: $(tr '\n' ' ' < "$WORK/monitor.stderr")"
    else
        fail stop-clients-disconnected "gesturectl monitor still running after the daemon stopped"
        kill "$monitor_pid" 2>/dev/null
    fi
    report ""
    report "gestured's journal in the guest: $(journalctl -b -u gestured.service -o cat --no-pager | wc -l) lines (out/journal.txt)"
fi
