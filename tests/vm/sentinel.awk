# Reads an evemu description (A: lines) and prints a sentinel recording: one finger dragged diagonally from
# 80%,80% to 20%,20% of the axes in 20 steps 16 ms apart, then lifted. lisgd calls it 1,DRUL; after the rig
# has seen a daemon report it, the daemon has processed everything replayed before it.
$1 == "A:" {
    code = tolower($2); min[code] = $3; max[code] = $4
}
END {
    if (!("35" in min) || !("36" in min)) { print "sentinel.awk: no ABS_MT_POSITION_X/Y in the description" > "/dev/stderr"; exit 1 }
    id = 500; if (("39" in max) && max["39"] < id) id = max["39"]
    t = 0
    for (i = 0; i <= 20; i++) {
        f = 0.8 - 0.6 * i / 20
        x = int(min["35"] + f * (max["35"] - min["35"])); y = int(min["36"] + f * (max["36"] - min["36"]))
        if (i == 0) {
            if ("2f" in min) printf "E: %.6f 0003 002f 0\n", t
            printf "E: %.6f 0003 0039 %d\n", t, id
        }
        printf "E: %.6f 0003 0035 %d\n", t, x
        printf "E: %.6f 0003 0036 %d\n", t, y
        if (i == 0) printf "E: %.6f 0001 014a 1\n", t
        if ("00" in min) printf "E: %.6f 0003 0000 %d\n", t, x
        if ("01" in min) printf "E: %.6f 0003 0001 %d\n", t, y
        printf "E: %.6f 0000 0000 0\n", t
        t += 0.016
    }
    printf "E: %.6f 0003 0039 -1\n", t
    printf "E: %.6f 0001 014a 0\n", t
    printf "E: %.6f 0000 0000 0\n", t
}
