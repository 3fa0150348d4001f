"""Motion for the examples: following the finger between gesture updates, and springs after release.

Frame pacing, and why it needs care. GTK draws at the display's rate (the frame clock: 60 Hz here, 120 or
144 Hz on other screens); gestured sends an `update` per touchscreen frame (60-240 Hz), at times that
have nothing to do with the display's vertical blank. Drawing "the last update" each frame stutters:
with a 60 Hz panel on a 60 Hz display, some frames see no new update (the content stops for a frame)
and the next sees two (it jumps twice as far); at 90 Hz on 60 Hz the steps alternate 1-2-1-2. The eye
sees that unevenness much more than latency.

`Follower` therefore does two things each display frame:
1. It predicts where the finger is *now* from the last update and the velocity gestured measured
   (`velocity_mm_s`): value + velocity x (time since the update arrived). Arrival times jitter by
   milliseconds, which at 1000 px/s is pixels of unevenness, so the arrival is taken from the update's
   own timestamp (`time`) plus the quickest transit seen in the gesture. It bridges at most one and a
   half update intervals (measured from the updates' own timestamps: 4 ms at 240 Hz, 17 ms at 60 Hz), so a
   late or missing update does not freeze the content; if nothing arrives by then, the finger has most
   likely stopped (the panel sends nothing for a still finger), and the prediction eases back to the last
   reported position over the same time instead of running on. gestured confirms a stop with an update
   of velocity 0 after `velocity_window_seconds`.
2. It moves the shown value towards that prediction with an exponential filter whose time constant
   `SMOOTHING` is half a 60 Hz frame, computed from the real frame interval so it behaves the same at
   any display rate. This absorbs what prediction gets wrong (jitter in the updates' arrival, velocity
   changes). Aiming ahead by the filter's own delay on a steady motion makes this cost no lag.

examples/common/test_motion.py measures both against drawing the last update (`make test` runs it):
frame-to-frame steps of a steady drag, with updates at 60, 90, 120 and 240 Hz arriving with jitter, on
a 60 Hz and a 144 Hz display.

After the fingers lift, `Spring` takes over from the shown value with the release velocity, so the
motion is continuous in position and speed: a fling carries on, a slow release settles.
"""
import math

BRIDGE = 1.5            # update intervals the prediction runs ahead before easing back
SMOOTHING = 0.008       # seconds: the filter's time constant
INTERVAL_RANGE = (1 / 480, 1 / 30)   # plausible update intervals, seconds


class Follower:
    """A value (pixels, a scale, degrees) that follows the finger between gesture updates."""

    def __init__(self, value=0.0):
        self.shown = value
        self.target = value
        self.velocity = 0.0     # units per second, from the last update
        self.arrived = None     # when the last update arrived, seconds on the frame clock's time base
        self.stamp = None       # the last update's own timestamp (gestured's `time`)
        self.interval = 1 / 60  # seconds between updates, from their timestamps
        self.transit = None     # quickest (arrival - timestamp) of this gesture's updates

    def jump(self, value):
        """Show `value` at once (a gesture begins where the content already is)."""
        self.shown = self.target = value
        self.velocity = 0.0
        self.arrived = self.stamp = self.transit = None

    def set(self, value, velocity, arrived, stamp=None):
        """A gesture update: the finger is at `value`, moving at `velocity` units per second; the update
        arrived at `arrived` (frame-clock time base) and was stamped `stamp` by the touchscreen."""
        if stamp is not None:
            if self.stamp is not None and stamp > self.stamp:
                gap = min(max(stamp - self.stamp, INTERVAL_RANGE[0]), INTERVAL_RANGE[1])
                self.interval += 0.25 * (gap - self.interval)
            # Arrival times jitter by milliseconds (scheduling, the socket); the touchscreen's timestamps
            # do not. The quickest transit seen so far ties the two clocks, so the update is taken as
            # having arrived at its stamp + that transit.
            transit = arrived - stamp
            self.transit = transit if self.transit is None else min(self.transit, transit)
            arrived = stamp + self.transit
        self.target, self.velocity, self.arrived, self.stamp = value, velocity, arrived, stamp

    def predicted(self, now, lead=0.0):
        """Where the finger is expected at `now` (+ `lead` seconds while updates keep coming)."""
        if self.arrived is None:
            return self.target
        elapsed = max(now - self.arrived, 0.0)
        reach = BRIDGE * self.interval
        # Within reach, run ahead; past it, ease back to the last report over the same time again.
        trust = 1.0 if elapsed <= reach else max(0.0, 2 - elapsed / reach)
        return self.target + self.velocity * trust * (min(elapsed, reach) + lead)

    def step(self, now, dt):
        """The value to show at frame time `now`, `dt` seconds after the previous frame."""
        if dt <= 0:
            return self.shown
        # Following a steady motion, this filter trails by dt * (1 - a) / a; aiming that far ahead
        # cancels it, so smoothing costs no lag while the finger moves evenly.
        a = 1 - math.exp(-dt / SMOOTHING)
        self.shown += (self.predicted(now, dt * (1 - a) / a) - self.shown) * a
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
