#!/usr/bin/env python3
"""Draws the finger paths of an evemu recording, so a person can check what it shows.

usage: tools/plot-recording.py [--device DESC] RECORDING OUT.png

Each contact (tracking id) is one line, from a circle (landing) to a cross (lift), labelled with its
landing time in seconds from the start. Axes are the device's own coordinates, y down as on screen.
Needs matplotlib (pip install matplotlib); a development aid, not used by the build or the tests.
"""
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(path):
    axes, events = {}, []
    for line in open(path, errors="replace"):
        line = line.split("#")[0].strip() if not line.startswith("N:") else line.strip()
        if line.startswith("A:"):
            f = line[2:].split()
            axes[int(f[0], 16)] = (int(f[1]), int(f[2]))
        elif line.startswith("E:"):
            f = line[2:].split()
            events.append((float(f[0]), int(f[1], 16), int(f[2], 16), int(f[3])))
    return axes, events


def main():
    args = sys.argv[1:]
    desc = None
    if args[:1] == ["--device"]:
        desc, args = args[1], args[2:]
    rec, out = args
    axes, events = read(rec)
    if desc:
        axes = read(desc)[0]
    single = 0x35 not in axes
    xr, yr = axes.get(0x35, axes.get(0)), axes.get(0x36, axes.get(1))
    t0 = events[0][0] if events else 0
    slot, cur, paths = 0, {}, []
    pos = {}
    for t, ty, code, v in events:
        if ty == 3 and code == 0x2F:
            slot = v
        elif ty == 3 and code == 0x39 or (single and ty == 1 and code == 0x14A):
            s = 0 if single else slot
            if (v < 0 if not single else v == 0):
                cur.pop(s, None)
            else:
                cur[s] = {"t": t - t0, "pts": []}
                paths.append(cur[s])
        elif ty == 3 and code in ((0x35, 0x36) if not single else (0, 1)):
            s = 0 if single else slot
            p = pos.setdefault(s, [0, 0])
            p[0 if code in (0x35, 0) else 1] = v
        elif ty == 0 and code == 0:
            for s, c in cur.items():
                if s in pos:
                    c["pts"].append(tuple(pos[s]))
    fig, ax = plt.subplots(figsize=(10, 10 * (yr[1] - yr[0]) / max(1, xr[1] - xr[0])))
    for i, c in enumerate(paths):
        if not c["pts"]:
            continue
        xs, ys = zip(*c["pts"])
        line, = ax.plot(xs, ys, "-", lw=1)
        ax.plot(xs[0], ys[0], "o", color=line.get_color())
        ax.plot(xs[-1], ys[-1], "x", color=line.get_color())
        ax.annotate(f"{c['t']:.2f}s", (xs[0], ys[0]), fontsize=8)
    ax.set_xlim(*xr)
    ax.set_ylim(yr[1], yr[0])
    ax.set_title(rec.split("/")[-1], fontsize=9)
    fig.savefig(out, dpi=60)


main()
