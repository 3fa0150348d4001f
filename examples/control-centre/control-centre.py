#!/usr/bin/python3
"""Control centre: a panel hidden below the bottom edge that follows the finger.

An edge swipe from the bottom pulls the panel up with the finger; when the finger lifts, the panel
finishes opening if gestured says the swipe `committed` (past half the screen, or flung: docs/gestures.md)
and springs back otherwise, carrying the release velocity into the animation; a `cancel` springs back.
On the open panel, a one-finger drag down pulls it down with the finger and closes it when the pan
commits downward (15 mm, or a fling), else it springs open again.

usage: examples/control-centre/control-centre.py [--socket PATH] [--size WxH] [--fullscreen]

Frame pacing is explained in examples/common/motion.py: updates set a Follower's target, and the
display's frame clock draws the predicted, lightly smoothed value; after release a Spring takes over.
Mapping from the touchscreen to the window is explained in examples/common/exampleapp.py (ScreenMapping).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from exampleapp import Stage, point, rect, rgba, rounded, run  # noqa: E402
from motion import Follower, Spring, rubber_band  # noqa: E402

PANEL_FRACTION = 0.55           # of the window's height
BACKGROUND = rgba(22, 28, 38)
PANEL = rgba(232, 238, 245)
HANDLE = rgba(170, 178, 190)
HINT = rgba(110, 120, 135)
TILES = [("Wi-Fi", rgba(52, 120, 246)), ("Bluetooth", rgba(52, 120, 246)), ("Flight", rgba(255, 149, 0)),
         ("Torch", rgba(88, 86, 214)), ("Rotate", rgba(255, 59, 48)), ("Silent", rgba(52, 199, 89)),
         ("Camera", rgba(90, 200, 250)), ("Timer", rgba(255, 204, 0))]


class ControlCentre(Stage):
    def __init__(self):
        super().__init__()
        self.open = False           # where the panel rests
        self.offset = Follower(0.0)  # how far the panel is pulled up, in pixels (0: hidden)
        self.spring = None
        self.dragging = None        # id of the gesture moving the panel
        self.start = 0.0            # offset when that gesture began

    def panel_height(self):
        return PANEL_FRACTION * self.get_height()

    def gesture(self, event):
        if self.dragging is None and event.phase == "begin":
            opening = event.kind == "edge-swipe" and event.edge == "bottom" and not self.open
            on_panel = self.get_height() - self.mapping.position(event.position)[1] < self.offset.shown
            closing = event.kind == "pan" and event.fingers == 1 and self.open and on_panel
            if not (opening or closing):
                return
            self.dragging, self.spring = event.id, None
            self.start = self.offset.shown
            self.offset.jump(self.start)
        if event.id != self.dragging:
            return
        # The finger's movement up is the panel's movement up, 1:1 in pixels (ScreenMapping.movement);
        # past fully open the panel resists (rubber band) instead of leaving the bottom edge.
        height = self.panel_height()
        pulled = self.start - self.mapping.movement(event.translation)[1]
        velocity = -self.mapping.velocity(event)[1]
        self.offset.set(rubber_band(pulled, 0, height, 0.08 * height), velocity, self.now(), event.time)
        if event.phase == "end":
            if event.kind == "edge-swipe":
                self.open = bool(event.committed)
            else:
                self.open = not (event.committed and event.direction == "down")
            self.release(velocity)
        elif event.phase == "cancel":
            self.release(0.0)

    def release(self, velocity):
        """The finger left: spring from where the panel is shown, at the finger's speed, to rest."""
        self.dragging = None
        self.spring = Spring(self.offset.shown, self.panel_height() if self.open else 0.0, velocity)

    def lost(self):
        if self.dragging is not None:
            self.open = False
            self.release(0.0)

    def advance(self, now, dt):
        if self.spring:
            self.offset.jump(self.spring.step(dt))
            if self.spring.done:
                self.spring = None
            return True
        if self.dragging is not None:
            self.offset.step(now, dt)
            return True
        return False

    def draw(self, snapshot, width, height):
        snapshot.append_color(BACKGROUND, rect(0, 0, width, height))
        if not self.open and self.dragging is None and self.spring is None:
            hint = self.create_pango_layout("Swipe up from the bottom edge")
            w, _ = hint.get_pixel_size()
            snapshot.save()
            snapshot.translate(point(width / 2 - w / 2, height * 0.45))
            snapshot.append_layout(hint, HINT)
            snapshot.restore()
        shown = max(0.0, self.offset.shown)
        if shown < 0.5:
            return
        top = height - shown
        panel = self.panel_height() + 0.1 * height   # extra below, for the rubber band
        rounded(snapshot, 0, top, width, panel, 18, PANEL)
        rounded(snapshot, width / 2 - 24, top + 10, 48, 5, 2.5, HANDLE)
        title = self.create_pango_layout("Control centre")
        snapshot.save()
        snapshot.translate(point(24, top + 26))
        snapshot.append_layout(title, rgba(40, 44, 52))
        snapshot.restore()
        # Tiles keep clear of the right margin, where make test-examples finds the panel's top edge.
        columns, gap, left = 4, 14, 0.1 * width
        size = (width - 2 * left - (columns - 1) * gap) / columns
        for i, (name, color) in enumerate(TILES):
            x = left + (i % columns) * (size + gap)
            y = top + 70 + (i // columns) * (size + gap + 18)
            rounded(snapshot, x, y, size, size, 16, color)
            label = self.create_pango_layout(name)
            w, _ = label.get_pixel_size()
            snapshot.save()
            snapshot.translate(point(x + size / 2 - w / 2, y + size + 2))
            snapshot.append_layout(label, rgba(60, 64, 72))
            snapshot.restore()


if __name__ == "__main__":
    # The drag that closes the panel is a one-finger pan on it: an app touch, which comes only when asked
    # for and only to a user who may see it (the one whose session is active on the seat).
    sys.exit(run("Control centre", ControlCentre, {"kinds": ["edge-swipe", "pan"], "edges": ["bottom"], "app_touches": True}))
