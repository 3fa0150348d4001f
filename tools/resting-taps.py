#!/usr/bin/env python3
"""Writes an evemu recording of one finger resting on the panel while another taps beside it N times
(issue 36: a touch sequence that never ends while the resting finger is down, the largest explanation
one recording can ask for).

    tools/resting-taps.py TAPS [OUT]      (OUT default: standard output)

The panel is a 10-inch tablet (217 x 136 mm, 20 units/mm, two slots). The resting finger lands at
(60, 68) mm and stays still (a hold after 0.5 s); a second later the other starts tapping at (140, 68)
mm, 40 ms down and 210 ms up (each tap a hand of its own: it lands later than the landing window after
the one before), moving 0.1 mm between taps so that consecutive taps are not one identical point; after
the last tap the resting finger lifts. One frame a 10 ms. The output is deterministic.
"""
import sys

RES = 20  # units per mm
WIDTH_MM, HEIGHT_MM = 217, 136
MAX_X, MAX_Y = WIDTH_MM * RES, HEIGHT_MM * RES


def header():
    lines = [
        "# EVEMU 1.3",
        '# Input device name: "Resting Finger Tablet"',
        "# A synthetic panel written by tools/resting-taps.py: one finger rests while another taps.",
        "N: Resting Finger Tablet",
        "I: 0018 1234 5679 0100",
        "P: 02 00 00 00 00 00 00 00",
        "B: 00 0b 00 00 00 00 00 00 00",
    ]
    key_bytes = [0] * 96
    key_bytes[41] = 0x04  # BTN_TOUCH
    for i in range(0, len(key_bytes), 8):
        lines.append("B: 01 " + " ".join(f"{b:02x}" for b in key_bytes[i:i + 8]))
    lines.append("B: 02 00 00 00 00 00 00 00 00")
    lines.append("B: 03 03 00 00 00 00 80 60 02")
    lines.append(f"A: 00 0 {MAX_X} 0 0 {RES}")
    lines.append(f"A: 01 0 {MAX_Y} 0 0 {RES}")
    lines.append("A: 2f 0 1 0 0 0")
    lines.append(f"A: 35 0 {MAX_X} 0 0 {RES}")
    lines.append(f"A: 36 0 {MAX_Y} 0 0 {RES}")
    lines.append("A: 39 0 65535 0 0 0")
    return "\n".join(lines) + "\n"


def write(taps, out):
    out.write(header())
    t = 1_000_000

    def e(typ, code, value):
        out.write(f"E: {t // 1_000_000}.{t % 1_000_000:06d} {typ:04x} {code:04x} {value:04d}\n")

    # The resting finger, slot 0.
    e(3, 0x2F, 0)
    e(3, 0x39, 1)
    e(3, 0x35, 60 * RES)
    e(3, 0x36, 68 * RES)
    e(1, 0x14A, 1)
    e(0, 0, 0)
    t += 1_000_000
    for i in range(taps):
        x = 140 * RES + (i % 10) * 2  # 0.1 mm steps, back every ten taps
        e(3, 0x2F, 1)
        e(3, 0x39, 2 + i)
        e(3, 0x35, x)
        e(3, 0x36, 68 * RES)
        e(0, 0, 0)
        for _ in range(3):
            t += 10_000
            e(3, 0x2F, 0)  # the resting finger's slot: a frame with no change but the time
            e(0, 0, 0)
        t += 10_000
        e(3, 0x2F, 1)
        e(3, 0x39, -1)
        e(0, 0, 0)
        t += 210_000
    e(3, 0x2F, 0)
    e(3, 0x39, -1)
    e(1, 0x14A, 0)
    e(0, 0, 0)


def main():
    if len(sys.argv) not in (2, 3) or not sys.argv[1].isdigit():
        sys.stderr.write(__doc__)
        sys.exit(2)
    taps = int(sys.argv[1])
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as f:
            write(taps, f)
    else:
        write(taps, sys.stdout)


if __name__ == "__main__":
    main()
