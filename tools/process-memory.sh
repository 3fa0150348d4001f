#!/bin/sh
# process-memory.sh [-v] PID...: the memory of running processes as gestured-socket-bench reports the
# daemon's, for places where the bench does not run (the test-vm guest, a phone): one line per process,
#   memory: pid=… name=… rss_kib=… pss_kib=… private_dirty_kib=… anonymous_kib=…
# from /proc/PID/smaps_rollup (RSS: pages mapped; PSS: each page divided by the processes sharing it;
# Private_Dirty: written pages only this process has). -v adds what each mapped file costs (from
# /proc/PID/smaps), largest PSS first. Needs only sh and awk; reading another user's process needs root.
# A binary written moments before still has dirty pages in the page cache, which smaps counts as the
# process's Private_Dirty: run `sync` before starting the program measured.
set -u
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
[ $# -gt 0 ] || { echo "usage: process-memory.sh [-v] PID..." >&2; exit 2; }
status=0
for pid in "$@"; do
    if ! [ -r "/proc/$pid/smaps_rollup" ]; then
        echo "process-memory.sh: cannot read /proc/$pid/smaps_rollup (no such process, or run it as root)" >&2
        status=1
        continue
    fi
    name=$(cat "/proc/$pid/comm" 2>/dev/null)
    awk -v pid="$pid" -v name="$name" '
        $3 == "kB" { v[$1] = $2 }
        END {
            if (!("Rss:" in v)) exit 1
            printf "memory: pid=%s name=%s rss_kib=%d pss_kib=%d private_dirty_kib=%d anonymous_kib=%d\n",
                pid, name, v["Rss:"], v["Pss:"], v["Private_Dirty:"], v["Anonymous:"]
        }' "/proc/$pid/smaps_rollup" || { echo "process-memory.sh: /proc/$pid/smaps_rollup has no Rss line" >&2; status=1; continue; }
    if [ "$verbose" = 1 ]; then
        printf '  %-8s %-8s %-14s %s\n' RSS PSS Private_Dirty mapping
        awk '
            $1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { name = (NF >= 6) ? $6 : "[anon]"; for (i = 7; i <= NF; i++) name = name " " $i; next }
            $1 == "Rss:" { rss[name] += $2 }
            $1 == "Pss:" { pss[name] += $2 }
            $1 == "Private_Dirty:" { dirty[name] += $2 }
            END { for (n in rss) if (rss[n] > 0) printf "  %-8d %-8d %-14d %s\n", rss[n], pss[n], dirty[n], n }
        ' "/proc/$pid/smaps" | sort -k2,2nr
        # The program's own file by mapping (its code, its read-only data and Swift metadata, what the loader
        # made read-only after relocating, its data): which part of the binary is resident.
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        [ -z "$exe" ] || awk -v exe="$exe" '
            $1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { split($1, r, "-"); on = ($6 == exe); start = r[1]; end = r[2]; perms = $2; next }
            on && $1 == "Rss:" { print start, end, perms, $2 }
        ' "/proc/$pid/smaps" | while read -r start end perms rss; do
            echo "    $exe $perms: $rss KiB resident of $(( (0x$end - 0x$start) / 1024 )) KiB mapped"
        done
    fi
done
exit $status
