# The kernel side the daemon relies on: uinput to make touchscreens, evdev for /dev/input/eventN, udev
# tagging them as touchscreens.
check kernel-uinput "/dev/uinput exists (uinput module)" test -c /dev/uinput
check kernel-evdev "evdev module loaded" grep -q '^evdev ' /proc/modules

# Every touchscreen description the replays use becomes a uinput device that udev tags as a touchscreen.
for desc in $(recordings | awk '{print $2}' | sort -u); do
    name=udev-touchscreen:${desc#whot_evemu-devices__}
    if ! create_device "$REC/$desc"; then fail "$name" "evemu-device did not make a device"; continue; fi
    props=$(udevadm info --query=property --name="$DEV_NODE")
    if grep -qx 'ID_INPUT_TOUCHSCREEN=1' <<< "$props"; then
        pass "$name" "$DEV_NODE ID_INPUT_TOUCHSCREEN=1, mode $(stat -c '%A %G' "$DEV_NODE")"
    else
        fail "$name" "$DEV_NODE lacks ID_INPUT_TOUCHSCREEN=1: $(grep ^ID_INPUT <<< "$props" | tr '\n' ' ')"
    fi
    destroy_device "$DEV_PID" "$DEV_NODE" || fail "$name-removed" "$DEV_NODE still there after evemu-device exited"
done
