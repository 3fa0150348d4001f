"""Motion for the examples: following the finger between gesture updates, and springs after release.

Frame pacing, and why it needs care. GTK draws at the display's rate (the frame clock: 60 Hz here, 120 or
144 Hz on other screens); gestured sends an `update` per touchscreen frame (60-240 Hz), at times that
have nothing to do with the display's vertical blank. Drawing "the last update" each frame stutters:
with a 60 Hz panel on a 60 Hz display, some frames see no new update (the content stops for a frame)
and the next sees two (it jumps twice as far); at 90 Hz on 60 Hz the steps alternate 1-2-1-2. The eye
sees that unevenness much more than latency.

`Follower` therefore does two things each display frame:
1. It predicts where the finger is *now* from the last update and the velocity gestured measured
   (`velocity_mm_s`): value + velocity x (time since the update arrived), for at most `PREDICT_MAX`
   seconds, so a late or missing update does not freeze the content and a finger that stopped does not
   drift (gestured sends an update with velocity 0 when the fingers stop).
2. It moves the shown value towards that prediction with an exponential filter whose time constant
   `SMOOTHING` is half a 60 Hz frame, computed from the real frame interval so it behaves the same at
   any display rate. This absorbs what prediction gets wrong (jitter in the updates' arrival, velocity
   changes) at the cost of ~8 ms of lag; at 240 Hz updates it is the only thing that acts.

After the fingers lift, `Spring` takes over from the shown value with the release velocity, so the
motion is continuous in position and speed: a fling carries on, a slow release settles.
"""
import math

PREDICT_MAX = 0.025     # seconds: up to ~1.5 frames of a 60 Hz panel, the longest normal gap
SMOOTHING = 0.008       # seconds: the filter's time constant


class Follower:
    """A value (pixels, a scale, degrees) that follows the finger between gesture updates."""

    def __init__(self, value=0.0):
        self.shown = value
        self.target = value
        self.velocity = 0.0     # units per second, from the last update
        self.arrived = None     # frame-clock time (s) of the last update

    def jump(self, value):
        """Show `value` at once (a gesture begins where the content already is)."""
        self.shown = self.target = value
        self.velocity = 0.0
        self.arrived = None

    def set(self, value, velocity, now):
        """A gesture update: the finger is at `value`, moving at `velocity` units per second."""
        self.target, self.velocity, self.arrived = value, velocity, now

    def step(self, now, dt):
        """The value to show at frame time `now`, `dt` seconds after the previous frame."""
        predicted = self.target
        if self.arrived is not None:
            predicted += self.velocity * min(max(now - self.arrived, 0.0), PREDICT_MAX)
        self.shown += (predicted - self.shown) * (1 - math.exp(-max(dt, 0.0) / SMOOTHING))
        return self.shown


class Spring:
    """A critically damped spring from `start` (moving at `velocity` units/s) to `target`: no overshoot
    for an ordinary release, a fling carries past and comes back. `frequency` (rad/s) sets the pace:
    18 settles a panel in about half a second, as iOS's sheets do."""

    def __init__(self, start, target, velocity=0.0, frequency=18.0, precision=0.5):
        self.target, self.frequency, self.precision = target, frequency, precision
        self.c1 = start - target
        self.c2 = velocity + frequency * self.c1
        self.elapsed = 0.0
        self.value, self.speed = start, velocity
        self.done = abs(self.c1) < precision and abs(velocity) < precision

    def step(self, dt):
        self.elapsed += max(dt, 0.0)
        t, w = self.elapsed, self.frequency
        decay = math.exp(-w * t)
        self.value = self.target + (self.c1 + self.c2 * t) * decay
        self.speed = (self.c2 - w * (self.c1 + self.c2 * t)) * decay
        if abs(self.value - self.target) < self.precision and abs(self.speed) < self.precision * w:
            self.value, self.speed, self.done = self.target, 0.0, True
        return self.value


def rubber_band(value, low, high, give):
    """`value` inside [low, high]; beyond it, resistance that grows with the distance (a finger pulling
    past the end moves the content less and less, never more than `give`)."""
    if value > high:
        over = value - high
        return high + give * (1 - 1 / (over / give + 1))
    if value < low:
        under = low - value
        return low - give * (1 - 1 / (under / give + 1))
    return value
