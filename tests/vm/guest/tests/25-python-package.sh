# python3-gestured, the Python client's Debian package (make deb builds it from the same source package):
# installed with dpkg beside the running daemon, `import gestured` from outside any source tree is the
# packaged module and talks to the daemon (a client subscribes and gets the gesture a uinput panel makes),
# then the purge leaves nothing behind.
deb=$RIG/deb/python3-gestured.deb
if [ ! -f "$deb" ]; then
    fail python3-gestured-installed "no python3-gestured.deb: the host built no package (make deb failed; see the rig's output)"
elif require_gestured python3-gestured-installed; then
    root_files > "$WORK/files-before-python3-gestured.txt"
    if ! dpkg -i "$deb" > "$WORK/dpkg-install-python3-gestured.txt" 2>&1; then
        fail python3-gestured-installed "dpkg -i python3-gestured.deb failed: $(tail -5 "$WORK/dpkg-install-python3-gestured.txt" | tr '\n' ' ')"
    else
        check python3-gestured-installed "dpkg -i: python3-gestured $(dpkg-query -W -f='${Version}' python3-gestured), $(dpkg -L python3-gestured | grep -c '\.py$') Python files" \
            test -f /usr/lib/python3/dist-packages/gestured.py
        # A client of the packaged module, run from / : it reports its module, then the first gesture to end.
        out=$WORK/python3-gestured-client.txt
        (cd / && exec python3 -c '
import gestured
print("module", gestured.__file__, gestured.__version__, flush=True)
for message in gestured.Client(updates=False, app_touches=True).events(timeout=60):
    if isinstance(message, gestured.Connected):
        print("connected", message.hello.version, flush=True)
    elif isinstance(message, gestured.GestureEvent) and message.finished:
        print("gesture", message.kind, message.fingers, message.phase, message.device, flush=True)
        break
' > "$out" 2>&1) &
        client_pid=$!
        read -r _ desc _ < <(recordings | head -1)
        mark=$(monitor_lines)
        if wait_for 20 "the Python client to connect" file_has_line "$out" '^connected ' && create_device "$REC/$desc"; then
            if gestured_has "$mark" "$DEV_NODE"; then
                evemu-play "$DEV_NODE" < "$REC/$desc.sentinel.events"
                wait_for 30 "the Python client to get a gesture" file_has_line "$out" '^gesture '
            fi
            destroy_device "$DEV_PID" "$DEV_NODE"
        fi
        kill "$client_pid" 2>/dev/null; wait "$client_pid" 2>/dev/null
        check python3-gestured-client "$(tr '\n' ';' < "$out" | cut -c1-300)" \
            bash -c 'grep -qx "module /usr/lib/python3/dist-packages/gestured.py $1" "$2" && grep -q "^connected $1$" "$2" && grep -qE "^gesture pan 1 end event[0-9]+$" "$2"' \
            _ "$(dpkg-query -W -f='${Version}' python3-gestured)" "$out"

        if dpkg --purge python3-gestured > "$WORK/dpkg-purge-python3-gestured.txt" 2>&1; then
            root_files > "$WORK/files-after-python3-gestured.txt"
            comm -13 "$WORK/files-before-python3-gestured.txt" "$WORK/files-after-python3-gestured.txt" > "$WORK/files-left-by-python3-gestured.txt"
            left=$(tr '\n' ' ' < "$WORK/files-left-by-python3-gestured.txt")
            check python3-gestured-purge "dpkg --purge; left behind: ${left:-nothing}; import gestured now: $(cd / && python3 -c 'import gestured' 2>&1 | tail -1)" \
                bash -c '[ ! -s "$1" ] && ! (cd / && python3 -c "import gestured" 2>/dev/null) && ! dpkg-query -W python3-gestured >/dev/null 2>&1' _ "$WORK/files-left-by-python3-gestured.txt"
        else
            fail python3-gestured-purge "dpkg --purge failed: $(tail -5 "$WORK/dpkg-purge-python3-gestured.txt" | tr '\n' ' ')"
        fi
    fi
fi
