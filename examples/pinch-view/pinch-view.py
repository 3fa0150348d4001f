#!/usr/bin/python3
"""Pinch view: a picture that scales, turns and moves with two (or more) fingers around their centre.

While the pinch goes on, the point of the picture that was under the fingers' centre when they began
stays under their centre: the picture is scaled by `scale` and turned by `rotation` around that point,
and the point follows the fingers' `translation`. When the pinch ends `committed` (scale changed by 40 %,
or turned 45 °: docs/gestures.md) the picture snaps to the next zoom level in the pinch's direction
(0.5, 1, 2, 4) and to the nearest quarter turn, around where the fingers were; otherwise it springs back
to where it was. `cancel` springs back.

usage: examples/pinch-view/pinch-view.py [--socket PATH] [--size WxH] [--fullscreen]

Mapping (examples/common/exampleapp.py, ScreenMapping): the fingers' centre is mapped proportionally into
the window (exact full-screen); their movement at the monitor's scale, so the picture moves with them.
Frame pacing (examples/common/motion.py): each of centre x, centre y, scale and angle is a Follower,
predicted from its velocity (the centre from gestured's velocity, scale and angle from the last two
updates) and lightly smoothed each display frame; Springs take over after the fingers lift.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from exampleapp import Stage, point, rect, rgba, run  # noqa: E402
from motion import Follower, Spring  # noqa: E402

LEVELS = [0.5, 1.0, 2.0, 4.0]
PICTURE = 0.4           # the picture's side at zoom 1, as a fraction of the window's width
QUADRANTS = [(230, 80, 70), (250, 190, 50), (60, 160, 220), (90, 190, 110)]   # make test-examples counts them


def rotate(x, y, degrees):
    a = math.radians(degrees)
    return x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)


class PinchView(Stage):
    def __init__(self):
        super().__init__()
        self.level = 1
        self.rest = None                 # (cx, cy, scale, angle) at rest; None until the size is known
        self.values = [Follower(0.0), Follower(0.0), Follower(1.0), Follower(0.0)]
        self.springs = None
        self.pinching = None
        self.base = None                 # state when the pinch began
        self.anchor = None               # the fingers' centre then, in window pixels
        self.previous = None             # (time, scale, rotation) of the last update

    def state(self):
        return [v.shown for v in self.values]

    def gesture(self, event):
        if self.rest is None:
            self.settle_at(self.get_width() / 2, self.get_height() / 2, 1.0, 0.0)
        if self.pinching is None and event.phase == "begin":
            if event.kind != "pinch":
                return
            self.pinching, self.springs = event.id, None
            for v in self.values:
                v.jump(v.shown)
            self.base = self.state()
            self.anchor = self.mapping.position(event.position)
            self.previous = None
        if event.id != self.pinching:
            return
        target = self.follow(event)
        vx, vy = self.mapping.velocity(event)
        scale_speed = angle_speed = 0.0
        if self.previous and event.time > self.previous[0]:
            dt = event.time - self.previous[0]
            scale_speed = self.base[2] * (event.scale - self.previous[1]) / dt
            angle_speed = (event.rotation - self.previous[2]) / dt
        self.previous = (event.time, event.scale, event.rotation)
        now = self.now()
        for follower, value, speed in zip(self.values, target, (vx, vy, scale_speed, angle_speed)):
            follower.set(value, speed, now, event.time)
        if event.phase == "end":
            if event.committed:
                self.snap(event, target, (vx, vy))
            else:
                self.spring_to(self.base, (vx, vy))
        elif event.phase == "cancel":
            self.spring_to(self.base, (0.0, 0.0))

    def follow(self, event):
        """The picture's state for this update: scaled and turned around the anchor, moved with the fingers."""
        cx, cy, scale, angle = self.base
        ax, ay = self.anchor
        tx, ty = self.mapping.movement(event.translation)
        dx, dy = rotate((cx - ax) * event.scale, (cy - ay) * event.scale, event.rotation)
        return [ax + tx + dx, ay + ty + dy, scale * event.scale, angle + event.rotation]

    def snap(self, event, state, velocity):
        """Next zoom level in the pinch's direction, nearest quarter turn, around the fingers' centre."""
        cx, cy, scale, angle = state
        self.level = max(0, min(len(LEVELS) - 1, self.level + (1 if event.scale > 1 else -1)))
        target_scale = LEVELS[self.level]
        target_angle = round(angle / 90) * 90
        fx, fy = self.anchor[0] + self.mapping.movement(event.translation)[0], \
            self.anchor[1] + self.mapping.movement(event.translation)[1]
        dx, dy = rotate((cx - fx) * target_scale / scale, (cy - fy) * target_scale / scale, target_angle - angle)
        self.spring_to([fx + dx, fy + dy, target_scale, target_angle], velocity)

    def spring_to(self, target, velocity):
        self.pinching = None
        shown = self.state()
        self.springs = [Spring(shown[0], target[0], velocity[0]), Spring(shown[1], target[1], velocity[1]),
                        Spring(shown[2], target[2], precision=0.001), Spring(shown[3], target[3], precision=0.05)]

    def settle_at(self, cx, cy, scale, angle):
        for follower, value in zip(self.values, (cx, cy, scale, angle)):
            follower.jump(value)
        self.rest = (cx, cy, scale, angle)

    def lost(self):
        if self.pinching is not None:
            self.spring_to(self.base, (0.0, 0.0))

    def advance(self, now, dt):
        if self.springs:
            for follower, spring in zip(self.values, self.springs):
                follower.jump(spring.step(dt))
            if all(s.done for s in self.springs):
                self.springs = None
                self.rest = tuple(self.state())
            return True
        if self.pinching is not None:
            for follower in self.values:
                follower.step(now, dt)
            return True
        return False

    def draw(self, snapshot, width, height):
        snapshot.append_color(rgba(22, 28, 38), rect(0, 0, width, height))
        if self.rest is None:
            cx, cy, scale, angle = width / 2, height / 2, 1.0, 0.0
        else:
            cx, cy, scale, angle = self.state()
        side = PICTURE * width
        half = side / 2
        snapshot.save()
        snapshot.translate(point(cx, cy))
        snapshot.rotate(angle)
        snapshot.scale(scale, scale)
        for i, color in enumerate(QUADRANTS):
            snapshot.append_color(rgba(*color), rect(-half + (i % 2) * half, -half + (i // 2) * half, half, half))
        snapshot.restore()
        hint = self.create_pango_layout(f"Pinch to zoom: ×{LEVELS[self.level]:g}")
        snapshot.save()
        snapshot.translate(point(24, height - 48))
        snapshot.append_layout(hint, rgba(110, 120, 135))
        snapshot.restore()


if __name__ == "__main__":
    sys.exit(run("Pinch view", PinchView, {"kinds": ["pinch"]}))
