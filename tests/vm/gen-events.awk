# Makes synthetic evemu event files for one device from its description (A: lines), for the rig:
#   awk -v shape=sentinel|hold|burst -f gen-events.awk DEVICE.desc > FILE.events
# sentinel: one finger dragged diagonally from 80%,80% to 20%,20% of the axes in 20 steps 16 ms apart, then
#           lifted. lisgd calls it 1-DRUL, gestured a 1-finger pan. Replayed after a recording: once a
#           daemon has reported it, the daemon has processed everything replayed before it.
# hold:     the sentinel without the lift: the finger stays down, the pan stays in flight.
# burst:    the finger of a hold (already down, at 20%,20%) dragged on to 90%,50% in 3000 frames with no
#           time between them, then lifted: far more events than an evdev client buffer holds (for
#           SYN_DROPPED, with the hold's gesture in flight).
$1 == "A:" { code = tolower($2); min[code] = $3; max[code] = $4 }

function frame(t, x, y, first) {
    if (first) {
        if ("2f" in min) printf "E: %.6f 0003 002f 0\n", t
        printf "E: %.6f 0003 0039 %d\n", t, id
    }
    printf "E: %.6f 0003 0035 %d\n", t, x
    printf "E: %.6f 0003 0036 %d\n", t, y
    if (first) printf "E: %.6f 0001 014a 1\n", t
    if ("00" in min) printf "E: %.6f 0003 0000 %d\n", t, x
    if ("01" in min) printf "E: %.6f 0003 0001 %d\n", t, y
    printf "E: %.6f 0000 0000 0\n", t
}
function lift(t) {
    printf "E: %.6f 0003 0039 -1\n", t
    printf "E: %.6f 0001 014a 0\n", t
    printf "E: %.6f 0000 0000 0\n", t
}
function at(axis, f) { return int(min[axis] + f * (max[axis] - min[axis])) }

END {
    if (!("35" in min) || !("36" in min)) { print "gen-events.awk: no ABS_MT_POSITION_X/Y in the description" > "/dev/stderr"; exit 1 }
    id = 500; if (("39" in max) && max["39"] < id) id = max["39"]
    t = 0
    if (shape == "sentinel" || shape == "hold") {
        for (i = 0; i <= 20; i++) {
            f = 0.8 - 0.6 * i / 20
            frame(t, at("35", f), at("36", f), i == 0)
            t += 0.016
        }
        if (shape == "sentinel") lift(t)
    } else if (shape == "burst") {
        for (i = 1; i <= 3000; i++) frame(0, at("35", 0.2 + 0.7 * i / 3000), at("36", 0.2 + 0.3 * i / 3000), 0)
        lift(0)
    } else {
        print "gen-events.awk: shape is sentinel, hold or burst" > "/dev/stderr"; exit 1
    }
}
