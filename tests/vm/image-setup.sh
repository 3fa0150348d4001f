#!/bin/sh
# mmdebstrap customize hook for the rig's root image ($1 = the root directory, on the host).
# The image is generic: the tests themselves come from the rig share at boot, so changing them does
# not rebuild the image. Its content is part of the image's cache key.
set -eu
root=$1

echo gestured-vm > "$root/etc/hostname"
# A fixed machine id: an empty one makes every (snapshot) boot a "first boot".
echo 0123456789abcdef0123456789abcdef > "$root/etc/machine-id"
# No password for root: a person debugging with VM_SHELL=1 logs in on the serial console.
chroot "$root" passwd -d root >/dev/null
mkdir -p "$root/mnt/rig" "$root/mnt/out" "$root/lib/modules"
# The image was built without man pages and docs (run.sh's --dpkgopt path-exclude, which mmdebstrap also
# writes into the image); a package installed in the guest (gestured's .deb) gets all its files, as it would
# on any Debian system.
rm -f "$root/etc/dpkg/dpkg.cfg.d/99mmdebstrap"

# The test unit: runs the rig's guest script once the system is up, then powers off whatever happened.
cat > "$root/etc/systemd/system/vmtest.service" <<'EOF'
[Unit]
Description=gestured real-kernel tests (the rig share's guest/main.sh)
After=basic.target systemd-udev-trigger.service systemd-udevd.service
Wants=systemd-udev-trigger.service
ConditionKernelCommandLine=!vmtest.shell
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/bash /mnt/rig/guest/main.sh
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=default.target
EOF
ln -sf /etc/systemd/system/vmtest.service "$root/etc/systemd/system/multi-user.target.wants/vmtest.service"

# A login prompt on the serial console only when asked for (VM_SHELL=1 adds vmtest.shell).
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$root/etc/systemd/system/serial-getty@ttyS0.service.d/only-for-shell.conf" <<'EOF'
[Unit]
ConditionKernelCommandLine=vmtest.shell
EOF

# Nothing periodic or first-boot related runs during a test.
for unit in getty@tty1.service getty-static.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
            e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer systemd-pstore.service \
            remote-fs.target; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
rm -f "$root/etc/systemd/system/getty.target.wants/getty@tty1.service"
rm -f "$root/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service"
rm -f "$root/etc/systemd/system/multi-user.target.wants/remote-fs.target"
rm -f "$root"/etc/systemd/system/timers.target.wants/*
rm -f "$root/etc/systemd/system/sysinit.target.wants/systemd-pstore.service"

# The root is a throwaway snapshot: a volatile journal is enough, and faster.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$root/etc/systemd/journald.conf.d/volatile.conf"
printf '/dev/vda / ext4 rw 0 0\n' > "$root/etc/fstab"
