# Replays every recording in recordings.list into a fresh uinput touchscreen, with evemu-record and lisgd
# (and gestured, when installed, with a `gesturectl monitor --json` client) listening to the same replay.
# After the recording, a sentinel (a short 1-finger diagonal drag, made on the host from the description)
# is replayed: when lisgd has run its command for the sentinel, it has seen everything before it.

# lisgd: one command per finger count and direction; each appends "<fingers>-<gesture>" (lisgd splits -g at commas) to a file.
lisgd_args=(-w 1000 -h 1000 -m 5000)
for n in 1 2 3 4 5; do
    for g in LR RL DU UD DLUR DRUL URDL ULDR; do
        lisgd_args+=(-g "$n,$g,*,*,R,echo $n-$g >> /run/lisgd.out")
    done
done

# cpu_ticks PID — user + system CPU time of a process in clock ticks (/proc/PID/stat fields 14 and 15).
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
tick_ms=$(( 1000 / $(getconf CLK_TCK) ))

printf '%-24s | %-32s | %8s\n' recording "lisgd recognized" "lisgd ms" > "$WORK/lisgd-table.txt"
while read -r name desc events <&3; do
    if ! create_device "$REC/$desc"; then fail "replay:$name" "no device"; continue; fi

    # evemu-record shows what the kernel delivered; it is ready once it holds the node open.
    stdbuf -oL evemu-record "$DEV_NODE" > "$WORK/$name.recorded" 2>/dev/null &
    rec_pid=$!
    rm -f /run/lisgd.out; touch /run/lisgd.out
    systemd-run --quiet --unit="lisgd-$name" -p Type=simple lisgd -d "$DEV_NODE" "${lisgd_args[@]}"
    lisgd_pid=$(systemctl show -p MainPID --value "lisgd-$name")
    ok=1
    wait_for 20 "evemu-record to open $DEV_NODE" has_fd_open "$rec_pid" "$DEV_NODE" || ok=0
    wait_for 20 "lisgd to open $DEV_NODE" has_fd_open "$lisgd_pid" "$DEV_NODE" || ok=0
    if [ "$ok" = 0 ]; then fail "replay:$name" "a listener did not open the device"; fi

    lisgd_before=$(cpu_ticks "$lisgd_pid")
    evemu-play "$DEV_NODE" < "$REC/$events"
    evemu-play "$DEV_NODE" < "$REC/$name.sentinel.events"

    # The kernel delivered every touch of the recording (evemu-record saw the same BTN_TOUCH presses).
    want=$(( $(count_presses "$REC/$events") + 1 ))
    if wait_for 20 "evemu-record to see $want touches" eval '[ "$(count_presses "$WORK/$name.recorded")" -ge $want ]'; then
        pass "evemu-play:$name" "$want touches replayed and delivered by the kernel"
    else
        fail "evemu-play:$name" "evemu-record saw $(count_presses "$WORK/$name.recorded") of $want touches"
    fi
    if wait_for 20 "lisgd to recognize the sentinel" file_has_line /run/lisgd.out '^1-DRUL$'; then
        lisgd_ms=$(( ($(cpu_ticks "$lisgd_pid") - lisgd_before) * tick_ms ))
        recognized=$(sed '$d' /run/lisgd.out | tr '\n' ' ')
        printf '%-24s | %-32s | %8s\n' "$name" "${recognized:-(nothing)}" "$lisgd_ms" >> "$WORK/lisgd-table.txt"
        cp /run/lisgd.out "$WORK/$name.lisgd"
    else
        fail "lisgd:$name" "lisgd ran no command for the sentinel swipe (journal: lisgd-$name)"
    fi
    systemctl stop "lisgd-$name"
    kill "$rec_pid" 2>/dev/null; wait "$rec_pid" 2>/dev/null
    destroy_device "$DEV_PID" "$DEV_NODE"
done 3< <(recordings)

# lisgd, a service on a real uinput touchscreen, recognizes a plain one-finger swipe left to right.
check lisgd-recognizes-swipe "1-finger top swipe -> 1-LR" file_has_line "$WORK/wacom-1f-top-swipe.lisgd" '^1-LR$'
report "lisgd on each replay (CPU time in ms from /proc/PID/stat, clock tick $tick_ms ms):"
report "$(cat "$WORK/lisgd-table.txt")"
