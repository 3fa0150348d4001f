# Install gestured from its Debian package (make deb on the host) as a user would: dpkg -i. Check what the
# package did (the user, the files, the conffile, the units it enabled and started, socket activation),
# then run the daemon as the service that the later checks use. 90-package.sh purges the package and
# looks for anything left; 95-make-install.sh installs the `make install` tree instead.
deb=$RIG/deb/gestured.deb
# Every file on the root file system before the package, for 90-package.sh's purge check.
root_files > "$WORK/files-before-package.txt"
log "listed $(wc -l < "$WORK/files-before-package.txt") paths before the package"
if [ ! -f "$deb" ]; then
    fail gestured-installed "gestured not installed: the host built no package (make deb failed; see the rig's output)"
elif ! dpkg -i "$deb" > "$WORK/dpkg-install.txt" 2>&1; then
    fail gestured-installed "dpkg -i gestured.deb failed: $(tail -5 "$WORK/dpkg-install.txt" | tr '\n' ' ')"
else
    log "dpkg -i done"
    version=$(dpkg-query -W -f='${Version}' gestured)
    check gestured-installed "dpkg -i: gestured $version, $(dpkg -L gestured | wc -l) paths" \
        bash -c '[ "$(dpkg-query -W -f="\${Status}" gestured)" = "install ok installed" ] && [ -x /usr/bin/gestured ]'
    check gestured-version "gestured --version: $(gestured --version), gesturectl --version: $(gesturectl --version)" \
        bash -c '[ "$(gestured --version | cut -d" " -f2)" = "$1" ] && [ "$(gesturectl --version | cut -d" " -f2)" = "$1" ]' _ "$version"
    check gestured-user "postinst ran systemd-sysusers: $(id gestured 2>&1)" \
        eval 'id -nG gestured | tr " " "\\n" | grep -qx input && id -nG gestured | tr " " "\\n" | grep -qx gestured-input'
    # postinst applied the shipped udev rule to the /dev/uinput there is: the service's group, not the socket's.
    wait_for 20 "postinst to give /dev/uinput to group gestured-input" eval '[ "$(stat -c %G /dev/uinput)" = gestured-input ]'
    check package-uinput-group "postinst applied the udev rule: $(stat -c '%n %A %U:%G' /dev/uinput)" \
        eval '[ "$(stat -c %G:%a /dev/uinput)" = gestured-input:660 ]'
    check package-conffile "conffiles: $(dpkg-query -W -f='${Conffiles}' gestured | tr '\n' ' ')" \
        bash -c 'dpkg-query -W -f="\${Conffiles}" gestured | grep -q "^ /etc/gestured/gestured.toml "'
    # debian/rules links libstdc++ in (the Makefile's static-libstdcxx): nothing else in this guest maps
    # the shared one, so it would be 1 MB of the daemon's PSS.
    check package-static-libstdcxx "shared libraries: $(ldd /usr/bin/gestured | awk '{print $1}' | tr '\n' ' ')" \
        bash -c '! ldd /usr/bin/gestured | grep -q "libstdc++"'
    check package-files "man pages, completions, units, sysusers.d, docs" \
        test -f /usr/share/man/man8/gestured.8.gz -a -f /usr/share/man/man1/gesturectl.1.gz \
             -a -f /usr/share/man/man5/gestured.toml.5.gz -a -f /usr/share/bash-completion/completions/gesturectl \
             -a -f /usr/share/zsh/vendor-completions/_gesturectl -a -f /lib/systemd/system/gestured.service \
             -a -f /lib/systemd/system/gestured.socket -a -f /usr/lib/sysusers.d/gestured.conf \
             -a -f /lib/udev/rules.d/95-gestured-passthrough.rules -a -x /usr/libexec/gestured/gestured-passthrough-properties \
             -a -f /usr/share/doc/gestured/copyright
    # Debian's practice, in its cheapest form: the socket is enabled and listening, the daemon itself is
    # neither enabled nor running until a client connects (docs/installation.md).
    units="socket $(systemctl is-enabled gestured.socket)/$(systemctl is-active gestured.socket), service $(systemctl is-enabled gestured.service)/$(systemctl is-active gestured.service)"
    check package-services "$units" \
        bash -c '[ "$1" = "socket enabled/active, service disabled/inactive" ]' _ "$units"
    listing=$(timeout 60 gesturectl devices 2>&1); status=$?
    check package-socket-activation "the first client started the daemon (gesturectl devices: status $status, ${listing:0:60}), service $(systemctl is-active gestured.service)" \
        bash -c '[ "$1" = 0 ] && systemctl is-active --quiet gestured.service' _ "$status"
    # The checks after this one expect the daemon to make its own socket: leave socket activation off
    # (80-devices.sh tests it again).
    systemctl disable --now gestured.socket > /dev/null 2>&1
    systemctl stop gestured.service

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
    # Nice=-10 in the unit (docs/installation.md, "The sandbox"): the nice value is field 19 of /proc/PID/stat.
    nice_value=$(awk '{print $19}' "/proc/$(gestured_pid)/stat" 2>/dev/null)
    check gestured-nice "the daemon runs at nice ${nice_value:-?} (policy $(chrt -p "$(gestured_pid)" 2>/dev/null | sed -n 's/.*policy: //p' | head -1))" \
        eval '[ "$nice_value" = -10 ]'
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
