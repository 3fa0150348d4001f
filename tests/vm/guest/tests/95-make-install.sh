# The other way in: the `make install PREFIX=/usr` tree staged on the host, onto this system (after the
# package was purged): its files, the user, the service starting and answering a client, and stopping.
stage=$RIG/stage
if [ ! -x "$stage/usr/bin/gestured" ] || [ ! -f "$stage/usr/lib/systemd/system/gestured.service" ]; then
    fail make-install "not installed: the host staged no build (make install failed; see the rig's output)"
else
    # The purge kept the user, as Debian does: remove it, so that the check below sees make install's
    # sysusers.d file make it.
    userdel gestured 2>/dev/null; groupdel gestured 2>/dev/null; groupdel gestured-input 2>/dev/null
    cp -a "$stage/." /
    systemd-sysusers
    systemctl daemon-reload
    # What make install does on the running system after sysusers: the udev rule applied to /dev/uinput.
    udevadm control --reload
    udevadm trigger --action=change --sysname-match=uinput
    check make-install "make install tree: $(cd "$stage" && find . -type f | sed 's|^\./|/|' | sort | tr '\n' ' ')" \
        test -x /usr/bin/gestured -a -f /etc/gestured/gestured.toml -a -f /usr/share/man/man8/gestured.8 \
             -a -f /usr/share/bash-completion/completions/gesturectl -a -f /usr/lib/sysusers.d/gestured.conf
    check make-install-user "systemd-sysusers made it again: $(id gestured 2>&1)" \
        eval 'id -nG gestured | tr " " "\\n" | grep -qx input && id -nG gestured | tr " " "\\n" | grep -qx gestured-input'
    # This system has no Swift toolchain (the host builds; the guest image holds Debian packages only):
    # the binaries `make install` built run with what they link, which is Debian's libraries alone, and
    # every one of them is found.
    for program in gestured gesturectl; do
        libraries=$(ldd "/usr/bin/$program" 2>&1)
        version=$("/usr/bin/$program" --version 2>&1)
        check make-install-no-toolchain-$program \
            "$version; $(echo "$libraries" | awk '{print $1, $3}' | tr '\n' ' ')" \
            eval '[ ! -e /opt/swift ] && ! echo "$libraries" | grep -qE "/opt/swift|libswift|not found" && echo "$version" | grep -q "^$program [0-9]"'
    done
    if timeout 60 systemctl start gestured.service; then
        listing=$(timeout 60 gesturectl devices 2>&1); status=$?
        check make-install-service "started (READY=1); gesturectl devices: status $status, ${listing:0:60}" test "$status" = 0
        socket_group_grants_no_devices make-install-socket-group
        timeout 60 systemctl stop gestured.service
        check make-install-stopped "stopped: $(systemctl is-active gestured.service), socket $(ls /run/gestured 2>&1)" \
            test ! -e /run/gestured/gestured.sock
    else
        fail make-install-service "systemctl start failed: $(systemctl status --no-pager gestured.service 2>&1 | tail -5 | tr '\n' ' ')"
    fi
fi
