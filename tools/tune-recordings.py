#!/usr/bin/env python3
"""Writes the synthetic evemu recordings `gesturectl tune` is tested on (Tests/Fixtures/tune/).

Each recording follows the tuner's session for `--edges left,right` (its default counts): five swipes
from the left edge, five from the right, three taps, then scrolling in the middle. Every stroke is a
straight line at a constant speed, one frame every 10 ms, so each value the tuner measures (landing
distance, angle from inward, travel, release speed, a tap's movement) is the one written here, to the
device's resolution, and the tests' expectations can be computed by hand (Tests/Fixtures/tune/README.md).

    tools/tune-recordings.py [OUTDIR]      (default: Tests/Fixtures/tune)

The output is deterministic: running it again gives the same bytes.
"""
import math
import os
import sys

FRAME_US = 10_000
GAP_US = 800_000  # between touch sequences: longer than the multi-tap interval (0.3 s)


class Panel:
    def __init__(self, name, width_mm, height_mm, resolution):
        self.name = name
        self.width_mm = width_mm
        self.height_mm = height_mm
        self.res = resolution  # units per mm
        self.max_x = width_mm * resolution
        self.max_y = height_mm * resolution

    def header(self):
        abs_lines = [
            (0x00, self.max_x), (0x01, self.max_y), (0x2F, None), (0x35, self.max_x), (0x36, self.max_y), (0x39, None)
        ]
        lines = [
            "# EVEMU 1.3",
            f"# Input device name: \"{self.name}\"",
            "# A synthetic panel written by tools/tune-recordings.py for gesturectl tune's tests.",
            f"N: {self.name}",
            "I: 0018 1234 5678 0100",
            "P: 02 00 00 00 00 00 00 00",
            "B: 00 0b 00 00 00 00 00 00 00",
        ]
        # EV_KEY: BTN_TOUCH (330) is byte 41, bit 2.
        key_bytes = [0] * 96
        key_bytes[41] = 0x04
        for i in range(0, len(key_bytes), 8):
            lines.append("B: 01 " + " ".join(f"{b:02x}" for b in key_bytes[i:i + 8]))
        lines.append("B: 02 00 00 00 00 00 00 00 00")
        lines.append("B: 03 03 00 00 00 00 80 60 02")
        for code, maximum in abs_lines:
            if code == 0x2F:
                lines.append("A: 2f 0 9 0 0 0")
            elif code == 0x39:
                lines.append("A: 39 0 65535 0 0 0")
            else:
                lines.append(f"A: {code:02x} 0 {maximum} 0 0 {self.res}")
        return "\n".join(lines) + "\n"


class Writer:
    def __init__(self, panel):
        self.panel = panel
        self.time_us = 1_000_000
        self.tracking = 0
        self.lines = []

    def event(self, t, typ, code, value):
        self.lines.append(f"E: {t // 1_000_000}.{t % 1_000_000:06d} {typ:04x} {code:04x} {value:04d}")

    def units(self, mm, axis_max, per_mm):
        return max(0, min(axis_max, int(round(mm * per_mm))))

    def stroke(self, points):
        """One finger down at points[0], through each point a frame apart, up a frame after the last."""
        p = self.panel
        t = self.time_us
        self.tracking += 1
        last = None
        for i, (x_mm, y_mm) in enumerate(points):
            x = self.units(x_mm, p.max_x, p.res)
            y = self.units(y_mm, p.max_y, p.res)
            if i == 0:
                self.event(t, 3, 0x2F, 0)
                self.event(t, 3, 0x39, self.tracking)
                self.event(t, 3, 0x35, x)
                self.event(t, 3, 0x36, y)
                self.event(t, 1, 0x14A, 1)
                self.event(t, 3, 0x00, x)
                self.event(t, 3, 0x01, y)
            else:
                if x != last[0]:
                    self.event(t, 3, 0x35, x)
                if y != last[1]:
                    self.event(t, 3, 0x36, y)
                if x != last[0]:
                    self.event(t, 3, 0x00, x)
                if y != last[1]:
                    self.event(t, 3, 0x01, y)
            self.event(t, 0, 0, 0)
            last = (x, y)
            t += FRAME_US
        self.event(t, 3, 0x39, -1)
        self.event(t, 1, 0x14A, 0)
        self.event(t, 0, 0, 0)
        self.time_us = t + GAP_US

    def text(self):
        return self.panel.header() + "\n".join(self.lines) + "\n"


def line(start, direction_deg, travel_mm, speed_mm_s):
    """Points from start along direction (degrees, 0 = +x, 90 = +y, screen coordinates) at a constant
    speed, one a frame, ending exactly at travel_mm."""
    frames = max(1, int(math.ceil(travel_mm / (speed_mm_s * FRAME_US / 1e6))))
    dx = math.cos(math.radians(direction_deg))
    dy = math.sin(math.radians(direction_deg))
    return [(start[0] + dx * travel_mm * i / frames, start[1] + dy * travel_mm * i / frames) for i in range(frames + 1)]


def swipe(w, edge, landing_mm, along_mm, off_deg, travel_mm, speed):
    """A swipe inward from `edge` landing `landing_mm` from it, at `along_mm` along it, `off_deg` off
    inward (positive: towards larger coordinates along the edge)."""
    p = w.panel
    if edge == "left":
        start, direction = (landing_mm, along_mm), 0 + off_deg
    elif edge == "right":
        start, direction = (p.width_mm - landing_mm, along_mm), 180 - off_deg
    elif edge == "top":
        start, direction = (along_mm, landing_mm), 90 - off_deg
    else:
        start, direction = (along_mm, p.height_mm - landing_mm), 270 + off_deg
    w.stroke(line(start, direction, travel_mm, speed))


def tap(w, x, y, move_mm):
    """A still finger for 0.1 s that drifts `move_mm` to the right."""
    points = [(x, y)] * 5 + [(x + move_mm, y)] * 5
    w.stroke(points)


def scroll(w, x, y, direction_deg, travel_mm, speed):
    w.stroke(line((x, y), direction_deg, travel_mm, speed))


def narrow_bezel():
    """A 10-inch kiosk panel (217 x 136 mm) behind a thick bezel: the thumb meets the glass 6 to 9 mm in.
    Swipes travel 40 mm at 150 mm/s; taps and scrolling stay in the middle."""
    w = Writer(Panel("Tune Narrow Bezel Kiosk", 217, 136, 20))
    for landing, along, off in [(6.0, 40, 0), (7.2, 60, 4), (8.1, 80, -6), (6.6, 70, 8), (8.8, 90, -3)]:
        swipe(w, "left", landing, along, off, 40, 150)
    for landing, along, off in [(6.4, 50, 2), (7.9, 70, -5), (8.5, 60, 10), (7.0, 85, 0), (6.2, 95, -7)]:
        swipe(w, "right", landing, along, off, 40, 150)
    for x, y, move in [(100, 60, 0.5), (120, 70, 1.2), (90, 80, 0.8)]:
        tap(w, x, y, move)
    for x, y, direction in [(80, 100, 270), (110, 40, 90), (140, 110, 275), (70, 35, 85), (120, 105, 268), (95, 30, 93)]:
        scroll(w, x, y, direction, 50, 200)
    return w


def curved_edge():
    """A phone whose glass curves at the sides (68 x 150 mm, portrait): a thumb lands 6 to 9 mm in,
    swipes slant up to 20 degrees and are short (22 to 35 mm at 120 mm/s); one tap rolls 3.2 mm."""
    w = Writer(Panel("Tune Curved Edge Phone", 68, 150, 16))
    for landing, along, off, travel in [(6.5, 60, -20, 30), (7.5, 80, -12, 22), (8.75, 100, -15, 35), (6.0, 70, -8, 28), (8.0, 90, -18, 26)]:
        swipe(w, "left", landing, along, off, travel, 120)
    for landing, along, off, travel in [(7.0, 60, 15, 27), (8.625, 75, 20, 24), (6.75, 95, 10, 33), (7.75, 85, 5, 30), (8.25, 110, 18, 29)]:
        swipe(w, "right", landing, along, off, travel, 120)
    for x, y, move in [(34, 60, 1.0), (30, 80, 3.2), (38, 100, 0.4)]:
        tap(w, x, y, move)
    for x, y, direction in [(34, 110, 270), (30, 40, 90), (36, 120, 272), (32, 45, 88), (35, 115, 268), (33, 50, 91)]:
        scroll(w, x, y, direction, 50, 200)
    return w


def inseparable():
    """The kiosk panel of narrow_bezel, where the app scrolls a carousel sideways: those strokes start
    by the left edge too (7 mm in) and move right within 5 degrees, as the swipes do. No zone and angle
    tolerance takes the swipes and leaves them out."""
    w = Writer(Panel("Tune Narrow Bezel Kiosk", 217, 136, 20))
    for landing, along, off in [(6.0, 40, 0), (7.2, 60, 4), (8.1, 80, -6), (6.6, 70, 8), (8.8, 90, -3)]:
        swipe(w, "left", landing, along, off, 40, 150)
    for landing, along, off in [(6.4, 50, 2), (7.9, 70, -5), (8.5, 60, 10), (7.0, 85, 0), (6.2, 95, -7)]:
        swipe(w, "right", landing, along, off, 40, 150)
    for x, y, move in [(100, 60, 0.5), (120, 70, 1.2), (90, 80, 0.8)]:
        tap(w, x, y, move)
    for x, y, direction in [(80, 100, 270), (7.0, 50, 3), (110, 40, 90), (7.5, 75, -4)]:
        scroll(w, x, y, direction, 50, 200)
    return w


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "tune")
    os.makedirs(out, exist_ok=True)
    for name, make in [("narrow-bezel", narrow_bezel), ("curved-edge", curved_edge), ("inseparable", inseparable)]:
        with open(os.path.join(out, name + ".evemu"), "w") as f:
            f.write(make().text())


if __name__ == "__main__":
    main()
