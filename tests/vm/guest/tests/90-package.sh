# Purge the package (dpkg --purge, what `apt purge` does) with both units running: they stop, and nothing
# the package installed or the daemon made is left, except what Debian keeps of a system user: the user and
# group gestured, and the backups of the user database systemd-sysusers wrote when it added them.
if ! dpkg-query -W gestured > /dev/null 2>&1; then
    fail package-purge "the package is not installed (see gestured-installed)"
else
    # The package's groups: the socket's, which people join, grants no device.
    systemctl start gestured.service 2>/dev/null
    wait_for 20 "the socket" test -S /run/gestured/gestured.sock
    socket_group_grants_no_devices package-socket-group
    systemctl stop gestured.service
    dpkg -L gestured > "$WORK/package-files.txt"
    systemctl enable --now gestured.socket > /dev/null 2>&1
    timeout 60 systemctl start gestured.service
    pid=$(gestured_pid)
    if dpkg --purge gestured > "$WORK/dpkg-purge.txt" 2>&1; then
        pass package-purge "dpkg --purge gestured (the daemon was running as $pid, the socket unit listening)"
    else
        fail package-purge "dpkg --purge failed: $(tail -5 "$WORK/dpkg-purge.txt" | tr '\n' ' ')"
    fi
    check package-purge-stopped "daemon $pid gone, units: $(systemctl list-units --all --no-legend 'gestured*' | tr -s ' ' | tr '\n' ';')" \
        bash -c '! kill -0 "$1" 2>/dev/null && [ -z "$(systemctl list-units --all --no-legend "gestured*")" ] && [ -z "$(systemctl list-unit-files --no-legend "gestured*")" ]' _ "$pid"
    check package-purge-run "no /run/gestured: $(ls -la /run/gestured 2>&1 | tr '\n' ' ')" test ! -e /run/gestured

    # Paths there now that were not there before the package, less the user database's backups.
    root_files > "$WORK/files-after-purge.txt"
    comm -13 "$WORK/files-before-package.txt" "$WORK/files-after-purge.txt" \
        | grep -vxE '/etc/(passwd|group|shadow|gshadow)-' > "$WORK/files-left-by-package.txt"
    left=$(tr '\n' ' ' < "$WORK/files-left-by-package.txt")
    check package-purge-leaves-nothing "left behind: ${left:-nothing} (of $(wc -l < "$WORK/package-files.txt") packaged paths)" \
        test ! -s "$WORK/files-left-by-package.txt"
    check package-purge-dpkg-database "dpkg forgot it: $(dpkg-query -W -f='${Status}' gestured 2>&1)" \
        bash -c '! dpkg-query -W gestured >/dev/null 2>&1 && ! ls /var/lib/dpkg/info/gestured.* >/dev/null 2>&1'
    check package-purge-keeps-user "kept, as Debian keeps system users: $(getent passwd gestured)" getent passwd gestured
fi
