# `systemctl reload` with a changed configuration: pans need 500 mm and 10 m/s to commit, so the sentinel
# pan (about 200 mm at 0.6 m/s) ends uncommitted; a broken file keeps that configuration running; the
# original file back makes it commit again. Each reload is waited for in the journal (SIGHUP is async).
wacom=whot_evemu-devices__Wacom_ISDv4_E6_Finger.desc
config=/etc/gestured/gestured.toml

# sentinel_end_committed — replay the sentinel into the current device; print the "committed" value of its end.
sentinel_end_committed() {
    local start
    start=$(monitor_lines)
    evemu-play "$DEV_NODE" < "$REC/$wacom.sentinel.events"
    wait_for 20 "the sentinel pan to end" at_least 1 count_since "$start" "$(basename "$DEV_NODE")" end || { echo none; return; }
    monitor_since "$start" | grep "\"device\":\"$(basename "$DEV_NODE")\"" | grep '"phase":"end"' | head -1 \
        | grep -oE '"committed":(true|false)' | cut -d: -f2
}
# reload_and_wait REGEX — systemctl reload, then wait for one more journal line matching REGEX.
reload_and_wait() {
    local before
    before=$(journal_count "$1")
    systemctl reload gestured.service && wait_for 20 "the journal to say: $1" at_least $(( before + 1 )) journal_count "$1"
}

mark=$(monitor_lines)
if require_gestured reload-changed-config && create_device "$REC/$wacom"; then
    pid=$(gestured_pid)
    gestured_has "$mark" "$DEV_NODE"
    cp "$config" /run/gestured.toml.orig
    awk '/^\[/ { section = $0 }
         section == "[recognizer.pan]" && /^commit_distance_mm *=/ { print "commit_distance_mm = 500"; next }
         section == "[recognizer.pan]" && /^fling_velocity_mm_per_s *=/ { print "fling_velocity_mm_per_s = 10000"; next }
         { print }' /run/gestured.toml.orig > "$config"
    if ! diff -q /run/gestured.toml.orig "$config" >/dev/null; then
        if reload_and_wait 'configuration reloaded'; then
            got=$(sentinel_end_committed)
            check reload-changed-config "after reload with commit_distance_mm = 500: sentinel pan committed=$got" [ "$got" = false ]
        else
            fail reload-changed-config "the journal never said the configuration was reloaded"
        fi
    else
        fail reload-changed-config "could not change $config (no [recognizer.pan] commit_distance_mm / fling_velocity_mm_per_s lines)"
    fi

    echo 'this is not = = TOML' > "$config"
    if reload_and_wait 'configuration not reloaded'; then
        got=$(sentinel_end_committed)
        check reload-broken-config-kept "broken file: journal says not reloaded, same process, old settings still apply (committed=$got)" \
            eval '[ "$(gestured_pid)" = "$pid" ] && [ "$got" = false ]'
    else
        fail reload-broken-config-kept "no 'configuration not reloaded' in the journal; active: $(systemctl is-active gestured.service)"
    fi

    cp /run/gestured.toml.orig "$config"
    if reload_and_wait 'configuration reloaded'; then
        got=$(sentinel_end_committed)
        check reload-original-config "the original file again: sentinel pan committed=$got" [ "$got" = true ]
    else
        fail reload-original-config "the journal never said the configuration was reloaded"
    fi
    destroy_device "$DEV_PID" "$DEV_NODE"
fi
