#!/usr/bin/env python3
"""Breaks each frame's trip through gestured down, from a kernel trace of a cost pass.

usage: tools/sched-trace.py out/work/sched-updates   (the PREFIX of PREFIX.trace and PREFIX.pids)

`VM_SCHED_TRACE=1 make test-vm` (tests/vm/guest/tests/35-cost.sh) records, during each cost pass, every
wake-up and context switch in the guest and the system calls of gestured (or the relay), its client, the floor reader and
lisgd, on CLOCK_MONOTONIC. For each frame the player (evemu-play) writes, this prints where the time went,
as medians and 90th percentiles over the frames, in microseconds from the player's write (the moment the
kernel wakes the panel's readers, within microseconds of the frame's timestamp):

  floor reader   woken -> running -> read() returns
  gestured       woken -> running -> epoll_wait returns -> read returns -> send() starts -> send returns
                 -> asleep again (in the relay pass, the relay: no epoll_wait)
  client         woken by that send -> running -> read() returns

and where each ran: on the CPU the waker was on, or another one, and whether that CPU was idle.
A known limit: when the client is still busy with the last line as the next one comes, its next switch-in
and read are counted to the newer frame, so the client's "running -> read() returns" step mixes frames;
single frames read from the trace itself are exact.
The tracing costs time of its own: compare the steps with each other, not with an untraced run.
"""
import re
import statistics
import sys
from collections import Counter

# Wake-ups of the panel's readers in one write of the player are microseconds apart; frames, milliseconds.
SAME_WRITE_US = 1000
NR_READ, NR_SENDTO, NR_EPOLL_WAIT, NR_EPOLL_PWAIT = 0, 44, 232, 281

LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+): (?P<event>\w+): (?P<rest>.*)$")
FIELDS = re.compile(r"(\w+)=(\S+)")
SYSCALL = re.compile(r"NR (\d+)(?: = (-?\d+))?")


def parse(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            yield (float(m["ts"]) * 1e6, int(m["pid"]), m["comm"], int(m["cpu"]), m["event"], m["rest"])


def percentile(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    prefix = sys.argv[1]
    pids = dict(item.split("=") for item in open(prefix + ".pids").read().split())
    # The daemon is gestured, or in the relay pass the relay (gesture-latency --relay).
    gestured, client, floor = int(pids["daemon"]), int(pids["client"]), int(pids["floor"])
    name = pids.get("name", "gestured")

    frames = []          # one dict per player write that woke the floor reader
    current = None       # the frame being followed
    cycle = {}           # pid -> the frame its present wake-up belongs to
    for ts, pid, comm, cpu, event, rest in parse(prefix + ".trace"):
        if event == "sched_waking":
            f = dict(FIELDS.findall(rest))
            target = int(f["pid"])
            player = comm.startswith("evemu-play")
            if player and target in (floor, gestured) and (
                    current is None or target in current["woke"] or ts - current["last"] > SAME_WRITE_US):
                # The first of the panel's readers the player's write wakes opens a frame; the readers are
                # woken one after the other in that write (a reader still busy with the last frame is not
                # woken at all), so a reader woken again, or a wake-up long after the last, is the next frame.
                current = {"t0": ts, "waker_cpu": cpu, "woke": set(), "last": ts}
                frames.append(current)
            if current is None:
                continue
            if player and target in (floor, gestured):
                current["woke"].add(target)
                current["last"] = ts
                current[("floor" if target == floor else "gestured") + ".woken"] = ts
                cycle[target] = current
            elif pid == gestured and target == client:
                frame = cycle.get(gestured)
                if frame is not None and "client.woken" not in frame:
                    frame["client.woken"] = ts
                    frame["client.waker_cpu"] = cpu
                    cycle[client] = frame
        elif event == "sched_switch":
            f = dict(FIELDS.findall(rest))
            nxt = int(f["next_pid"])
            prev_idle = f["prev_pid"] == "0"
            if int(f["prev_pid"]) == gestured and f["prev_state"].startswith("S"):
                frame = cycle.get(gestured)
                if frame is not None and "gestured.send" in frame:
                    frame.setdefault("gestured.asleep", ts)
            frame = cycle.get(nxt)
            if frame is not None:
                who = {floor: "floor", gestured: "gestured", client: "client"}.get(nxt)
                if who and who + ".running" not in frame:
                    frame[who + ".running"] = ts
                    frame[who + ".cpu"] = cpu
                    frame[who + ".from_idle"] = prev_idle
        elif event in ("sys_enter", "sys_exit"):
            m = SYSCALL.match(rest)
            if not m:
                continue
            nr = int(m[1])
            frame = cycle.get(pid)
            if frame is None:
                continue
            if pid == floor and event == "sys_exit" and nr == NR_READ and "floor.read" not in frame:
                frame["floor.read"] = ts
                cycle.pop(floor, None)
            elif pid == gestured:
                if event == "sys_exit" and nr in (NR_EPOLL_WAIT, NR_EPOLL_PWAIT) and "gestured.epoll" not in frame:
                    frame["gestured.epoll"] = ts
                elif event == "sys_exit" and nr == NR_READ and "gestured.read" not in frame:
                    frame["gestured.read"] = ts
                elif event == "sys_enter" and nr == NR_SENDTO and "gestured.send" not in frame:
                    frame["gestured.send"] = ts
                elif event == "sys_exit" and nr == NR_SENDTO and "gestured.sent" not in frame:
                    frame["gestured.sent"] = ts
            elif pid == client and event == "sys_exit" and nr == NR_READ and "client.read" not in frame:
                frame["client.read"] = ts
                cycle.pop(client, None)

    steps = [
        ("floor.woken", "floor reader woken"), ("floor.running", "  running"), ("floor.read", "  read() returns"),
        ("gestured.woken", f"{name} woken"), ("gestured.running", "  running"), ("gestured.epoll", "  epoll_wait returns"),
        ("gestured.read", "  read returns"), ("gestured.send", "  send() starts"), ("gestured.sent", "  send() returns"),
        ("gestured.asleep", "  asleep again"),
        ("client.woken", "client woken"), ("client.running", "  running"), ("client.read", "  read() returns"),
    ]
    complete = [f for f in frames if "client.read" in f and "floor.read" in f and "gestured.send" in f]
    print(f"{len(frames)} frames traced, {len(complete)} with an update read by the client")
    print(f"{'step':28} {'median µs':>10} {'p90 µs':>10}   (from the player's write)")
    for key, label in steps:
        values = [f[key] - f["t0"] for f in complete if key in f]
        print(f"{label:28} {percentile(values, 0.5):10.0f} {percentile(values, 0.9):10.0f}")
    excess = [(f["client.read"] - f["floor.read"]) for f in complete]
    print(f"{'client read - floor read':28} {percentile(excess, 0.5):10.0f} {percentile(excess, 0.9):10.0f}")
    print()
    for who, waker in (("floor", "waker_cpu"), ("gestured", "waker_cpu"), ("client", "client.waker_cpu")):
        where = Counter()
        for f in complete:
            if who + ".cpu" not in f:
                continue
            same = "the waker's CPU" if f[who + ".cpu"] == f[waker] else "another CPU"
            idle = "idle" if f[who + ".from_idle"] else "busy"
            where[f"{same}, {idle}"] += 1
        print(f"{(name if who == 'gestured' else who):9} ran on: " + ", ".join(f"{k} {v}" for k, v in where.most_common()))
        for placement in sorted(where):
            subset = [f for f in complete if who + ".cpu" in f
                      and ("the waker's CPU" if f[who + ".cpu"] == f[waker] else "another CPU") + ", "
                      + ("idle" if f[who + ".from_idle"] else "busy") == placement]
            woken = who + ".woken"
            wait = [f[who + ".running"] - f[woken] for f in subset if woken in f]
            print(f"    {placement}: woken -> running median {percentile(wait, 0.5):.0f} µs, p90 {percentile(wait, 0.9):.0f}")


if __name__ == "__main__":
    main()
