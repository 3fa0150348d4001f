# libinput's own recording format (`libinput record`, what users attach to input bug reports), which
# gesturectl replay, gesturectl plot and gestured --replay read as well as evemu's: a uinput panel plays a
# recording while `libinput record` and evemu-record both record it, then the packaged gesturectl replays
# and plots the libinput recording. The host compares `gesturectl replay` of the two recordings of the same
# frames, every field of every event (tests/vm/host-checks.sh, "libinput-record-exact:NAME"). Both
# recordings stay in out/work (librecord-NAME.yml, librecord-NAME.evemu).
# Presses of BTN_TOUCH in a libinput recording: lines "- [sec, usec, 1, 330, 1] # ...".
count_libinput_presses() { grep -cE '^ *- \[ *[0-9]+, *[0-9]+, *1, *330, *1\]' "$1" 2>/dev/null || true; }

for name in wacom-2f-top-swipe ep-4f-drag-down atmel-1f-drag-up-down; do
    read -r _ desc events < <(recordings | awk -v n="$name" '$1 == n')
    yml=$WORK/librecord-$name.yml
    evemu=$WORK/librecord-$name.evemu
    if ! create_device "$REC/$desc"; then fail "libinput-record:$name" "evemu-device made no device"; continue; fi
    stdbuf -oL evemu-record "$DEV_NODE" > "$evemu" 2>/dev/null &
    evemu_pid=$!
    libinput record -o "$yml" "$DEV_NODE" > "$WORK/librecord-$name.log" 2>&1 &
    libinput_pid=$!
    if ! wait_for 20 "evemu-record to open $DEV_NODE" has_fd_open "$evemu_pid" "$DEV_NODE" \
        || ! wait_for 20 "libinput record to open $DEV_NODE" has_fd_open "$libinput_pid" "$DEV_NODE" \
        || ! wait_for 20 "libinput record to write its header" file_has_line "$yml" '^ *events:'; then
        fail "libinput-record:$name" "a recorder did not start ($(tr '\n' ' ' < "$WORK/librecord-$name.log"))"
        kill "$evemu_pid" "$libinput_pid" 2>/dev/null
        destroy_device "$DEV_PID" "$DEV_NODE"
        continue
    fi
    evemu-play "$DEV_NODE" < "$REC/$events"
    want=$(count_presses "$REC/$events")
    ok=1
    wait_for 30 "evemu-record to see $want touches" at_least "$want" count_presses "$evemu" || ok=0
    wait_for 30 "libinput record to see $want touches" at_least "$want" count_libinput_presses "$yml" || ok=0
    # SIGINT is how a user ends `libinput record`: it closes the recording and exits.
    kill -INT "$libinput_pid" 2>/dev/null
    wait_for 20 "libinput record to exit" bash -c '! kill -0 "$1" 2>/dev/null' _ "$libinput_pid" || ok=0
    kill "$evemu_pid" 2>/dev/null; wait "$evemu_pid" 2>/dev/null
    destroy_device "$DEV_PID" "$DEV_NODE"
    if [ "$ok" = 0 ]; then
        fail "libinput-record:$name" "evemu-record saw $(count_presses "$evemu"), libinput record $(count_libinput_presses "$yml") of $want BTN_TOUCH presses"
        continue
    fi
    pass "libinput-record:$name" "libinput record and evemu-record each recorded all $want BTN_TOUCH presses ($(wc -l < "$yml") lines of YAML)"

    # The packaged gesturectl reads the libinput recording: replay and plot.
    if gesturectl replay "$yml" > "$WORK/librecord-$name.replay.jsonl" 2> "$WORK/librecord-$name.replay.err" \
        && [ "$(grep -c '"phase":"end"' "$WORK/librecord-$name.replay.jsonl")" -ge 1 ]; then
        pass "libinput-record-replay:$name" "gesturectl replay: $(grep -c '"phase":"begin"' "$WORK/librecord-$name.replay.jsonl") gestures"
    else
        fail "libinput-record-replay:$name" "gesturectl replay: $(head -c 300 "$WORK/librecord-$name.replay.err" | tr '\n' ' ')"
    fi
    if gesturectl plot -o "$WORK/librecord-$name.svg" "$yml" 2> "$WORK/librecord-$name.plot.err" \
        && grep -q '<svg' "$WORK/librecord-$name.svg"; then
        pass "libinput-record-plot:$name" "gesturectl plot: $(wc -c < "$WORK/librecord-$name.svg") bytes of SVG"
    else
        fail "libinput-record-plot:$name" "gesturectl plot: $(head -c 300 "$WORK/librecord-$name.plot.err" | tr '\n' ' ')"
    fi
done
