# The device adapters' own real-kernel checks (tests/vm/guest-checks/devices.sh, owned by the devices
# work): present at start, hotplug, touchpad refused, EACCES logged once and retried, SYN_DROPPED resync,
# open flags, grab, socket ownership, reload, socket activation. They stop and start the service
# themselves, so they run after the rig's own checks.
if [ -f "$RIG/guest-checks/devices.sh" ]; then
    . "$RIG/guest-checks/devices.sh"
else
    fail devices:present "tests/vm/guest-checks/devices.sh is missing from the rig share"
fi
