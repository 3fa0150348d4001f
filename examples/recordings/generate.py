#!/usr/bin/python3
"""Writes the evemu recordings the GUI examples are tested and demonstrated with.

usage: examples/recordings/generate.py [DIRECTORY]   (default: this script's directory)

The device is a synthetic phone panel, 72 x 128 mm portrait (9:16, the shape of the 540 x 960 test
screen), 10 units/mm on both axes, multitouch protocol B with 5 slots, finger frames at 120 Hz. Each
recording starts with 2 s of nothing, so a client started with the daemon is subscribed before the first
finger lands, and each gesture pauses for 1.5 s half way (the finger rests: gestured sends one update
with velocity 0), so a test can take a screenshot mid-gesture.

- control-centre.evemu: (1) a swipe up from the bottom edge to 30 % of the screen, a pause, back down
  and lifted: not committed; (2) a swipe up from the bottom edge to 40 %, a pause, on to 70 %, lifted:
  committed; (3) one finger on the open panel dragged down by 35 % of the screen: a committed pan down.
- pager.evemu: (1) from the left edge to 30 %, a pause, back to 5 %: not committed; (2) from the left
  edge to 35 %, a pause, on to 75 %: committed.
- pinch.evemu: two fingers around the centre of the screen spread from 16 to 36 mm apart while turning
  by 20°, pause, on to 48 mm apart and 30°, lifted: a committed pinch (gestured measures scale from the
  span at `begin`, once the span has changed by 3 mm: about 1.6 at the pause, 2.2 at the end).

`gesturectl replay --pretty --no-updates FILE` shows the gestures they make (make test-examples checks
them before running the examples).
"""
import math
import os
import sys

WIDTH_MM, HEIGHT_MM, UNITS_PER_MM = 72, 128, 10
MAX_X, MAX_Y = WIDTH_MM * UNITS_PER_MM - 1, HEIGHT_MM * UNITS_PER_MM - 1
SLOTS = 5
FRAME = 1 / 120
LEAD_IN = 2.0
PAUSE = 1.5

EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT, BTN_TOUCH = 0x00, 0x14A
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x00, 0x01, 0x2F, 0x35, 0x36, 0x39


def bitmask_lines(event_type, bits, size_bytes):
    """evemu's `B:` lines: the type's capability bitmask, 8 bytes per line."""
    data = bytearray(size_bytes)
    for bit in bits:
        data[bit // 8] |= 1 << (bit % 8)
    return [f"B: {event_type:02x} " + " ".join(f"{b:02x}" for b in data[i:i + 8]) for i in range(0, size_bytes, 8)]


def header():
    lines = ["# EVEMU 1.3", "# Input device name: \"gestured synthetic phone panel\"",
             f"# {WIDTH_MM} x {HEIGHT_MM} mm, {UNITS_PER_MM} units/mm, protocol B, {SLOTS} slots; "
             "written by examples/recordings/generate.py",
             "N: gestured synthetic phone panel", "I: 0000 0000 0000 0001", "P: 02 00 00 00 00 00 00 00"]
    lines += bitmask_lines(0x00, [EV_SYN, EV_KEY, EV_ABS], 8)
    lines += bitmask_lines(0x01, [BTN_TOUCH], 96)
    lines += bitmask_lines(0x02, [], 8)
    lines += bitmask_lines(0x03, [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID], 8)
    for event_type in (0x04, 0x05, 0x11, 0x12, 0x14, 0x15):
        lines += bitmask_lines(event_type, [], 8)
    for code, maximum, resolution in ((ABS_X, MAX_X, UNITS_PER_MM), (ABS_Y, MAX_Y, UNITS_PER_MM),
                                      (ABS_MT_SLOT, SLOTS - 1, 0), (ABS_MT_POSITION_X, MAX_X, UNITS_PER_MM),
                                      (ABS_MT_POSITION_Y, MAX_Y, UNITS_PER_MM), (ABS_MT_TRACKING_ID, 65535, 0)):
        lines.append(f"A: {code:02x} 0 {maximum} 0 0 {resolution}")
    return lines


class Recording:
    """Frames of finger positions in millimetres, written as evemu events with per-slot deltas."""

    def __init__(self):
        self.time = 0.0
        self.lines = [self.event(EV_SYN, SYN_REPORT, 0)]  # time zero: the replay's clock starts here
        self.down = {}          # slot -> (x, y) in device units
        self.next_tracking_id = 1
        self.slot = 0

    def event(self, event_type, code, value):
        return f"E: {self.time:.6f} {event_type:04x} {code:04x} {value}"

    def frame(self, fingers):
        """One frame: `fingers` maps slot -> (x_mm, y_mm) for every finger down; absent slots lift."""
        events = []
        touching_before = bool(self.down)
        for slot in sorted(set(self.down) | set(fingers)):
            def select():
                if self.slot != slot:
                    events.append((EV_ABS, ABS_MT_SLOT, slot))
                    self.slot = slot
            if slot not in fingers:
                select()
                events.append((EV_ABS, ABS_MT_TRACKING_ID, -1))
                del self.down[slot]
                continue
            x = max(0, min(MAX_X, round(fingers[slot][0] * UNITS_PER_MM)))
            y = max(0, min(MAX_Y, round(fingers[slot][1] * UNITS_PER_MM)))
            old = self.down.get(slot)
            if old is None:
                select()
                events.append((EV_ABS, ABS_MT_TRACKING_ID, self.next_tracking_id))
                self.next_tracking_id += 1
            if old is None or old[0] != x:
                select()
                events.append((EV_ABS, ABS_MT_POSITION_X, x))
            if old is None or old[1] != y:
                select()
                events.append((EV_ABS, ABS_MT_POSITION_Y, y))
            self.down[slot] = (x, y)
        if bool(self.down) != touching_before:
            events.append((EV_KEY, BTN_TOUCH, 1 if self.down else 0))
        if self.down:
            first = self.down[min(self.down)]
            events += [(EV_ABS, ABS_X, first[0]), (EV_ABS, ABS_Y, first[1])]
        self.lines += [self.event(*e) for e in events] + [self.event(EV_SYN, SYN_REPORT, 0)]
        self.time += FRAME

    def move(self, path, seconds):
        """Frames along `path(t)` for t from 0 to 1 (eased in and out) over `seconds`."""
        steps = max(1, round(seconds / FRAME))
        for i in range(steps + 1):
            t = i / steps
            self.frame(path(0.5 - 0.5 * math.cos(math.pi * t)))

    def rest(self, seconds):
        """The fingers stay still: the panel sends nothing."""
        self.time += seconds

    def lift_all(self):
        for slot in sorted(self.down):
            remaining = {s: (x / UNITS_PER_MM, y / UNITS_PER_MM) for s, (x, y) in self.down.items() if s != slot}
            self.frame(remaining)

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(header() + self.lines) + "\n")


def line(a, b):
    """A straight path from a to b, as a function of t in [0, 1], for slot 0."""
    return lambda t: {0: (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)}


def edge_swipe(recording, start, direction, stops):
    """One finger from `start` (mm) along `direction` (unit vector), through `stops`: fractions of the
    screen travelled, each followed by (pause seconds or None, seconds to reach it)."""
    extent = abs(direction[0]) * WIDTH_MM + abs(direction[1]) * HEIGHT_MM
    here = start
    for fraction, seconds, pause in stops:
        there = (start[0] + direction[0] * fraction * extent, start[1] + direction[1] * fraction * extent)
        recording.move(line(here, there), seconds)
        here = there
        if pause:
            recording.rest(pause)
    recording.lift_all()


def control_centre():
    r = Recording()
    r.rest(LEAD_IN)
    bottom = (WIDTH_MM / 2, HEIGHT_MM - 1)
    edge_swipe(r, bottom, (0, -1), [(0.30, 0.35, PAUSE), (0.05, 0.6, None)])   # abandoned
    r.rest(1.5)
    edge_swipe(r, bottom, (0, -1), [(0.40, 0.35, PAUSE), (0.70, 0.3, None)])   # committed: opens
    r.rest(1.5)
    r.move(line((WIDTH_MM / 2, HEIGHT_MM * 0.55), (WIDTH_MM / 2, HEIGHT_MM * 0.90)), 0.3)  # pan down: closes
    r.lift_all()
    r.rest(1.0)
    r.frame({})
    return r


def pager():
    r = Recording()
    r.rest(LEAD_IN)
    left = (1, HEIGHT_MM / 2)
    edge_swipe(r, left, (1, 0), [(0.30, 0.35, PAUSE), (0.05, 0.6, None)])      # abandoned
    r.rest(1.5)
    edge_swipe(r, left, (1, 0), [(0.35, 0.35, PAUSE), (0.75, 0.3, None)])      # committed: page off
    r.rest(1.0)
    r.frame({})
    return r


def pinch():
    r = Recording()
    r.rest(LEAD_IN)
    centre = (WIDTH_MM / 2, HEIGHT_MM / 2)

    def fingers(radius_mm, degrees):
        a = math.radians(degrees)
        dx, dy = radius_mm * math.cos(a), radius_mm * math.sin(a)
        return {0: (centre[0] - dx, centre[1] - dy), 1: (centre[0] + dx, centre[1] + dy)}

    def spread(r0, r1, d0, d1):
        return lambda t: fingers(r0 + (r1 - r0) * t, d0 + (d1 - d0) * t)

    r.frame(fingers(8, 0))
    r.move(spread(8, 18, 0, 20), 0.5)
    r.rest(PAUSE)
    r.move(spread(18, 24, 20, 30), 0.3)
    r.lift_all()
    r.rest(1.0)
    r.frame({})
    return r


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, build in (("control-centre", control_centre), ("pager", pager), ("pinch", pinch)):
        build().write(os.path.join(directory, f"{name}.evemu"))


if __name__ == "__main__":
    main()
