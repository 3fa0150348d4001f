"""Frame pacing and springs of the examples (motion.py), measured on simulated updates; run by make test.

A finger drags steadily at 1000 px/s; the touchscreen reports it at 60, 90, 120 or 240 Hz, and each
update reaches the client 3 ms later give or take up to 2 ms (scheduling, socket). The display draws at
60 or 144 Hz. What the eye judges is the evenness of the frame-to-frame steps, so the measure is their
relative spread: standard deviation / mean of the steps over one second. Drawing the last update that
arrived ("naive") is measured too, as the baseline the Follower must beat.
"""
import math
import os
import random
import statistics
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from motion import Follower, Spring, rubber_band  # noqa: E402

SPEED = 1000.0          # px/s
LATENCY, JITTER = 0.003, 0.002


def simulate(update_hz, display_hz, seconds=1.5, stop_at=None, seed=1):
    """Frames of (time, true position, naive shown, follower shown) for a drag, optionally stopping."""
    rng = random.Random(seed)

    def position(t):
        return SPEED * min(t, stop_at) if stop_at is not None else SPEED * t

    updates = []
    for k in range(int(seconds * update_hz) + 1):
        stamp = k / update_hz
        moving = stop_at is None or stamp <= stop_at
        if moving:
            updates.append((stamp + LATENCY + rng.uniform(-JITTER, JITTER), stamp, position(stamp), SPEED))
    if stop_at is not None:     # gestured's update with velocity 0, velocity_window_seconds after the stop
        updates.append((stop_at + 0.08 + LATENCY, stop_at + 0.08, position(stop_at), 0.0))
    updates.sort()
    follower, naive, frames, i, previous = Follower(0.0), 0.0, [], 0, None
    phase = 0.0037
    for f in range(int(seconds * display_hz)):
        now = phase + f / display_hz
        while i < len(updates) and updates[i][0] <= now:
            arrived, stamp, value, velocity = updates[i]
            follower.set(value, velocity, arrived, stamp)
            naive = value
            i += 1
        shown = follower.step(now, 0.0 if previous is None else now - previous)
        previous = now
        frames.append((now, position(now), naive, shown))
    return frames


def judder(frames, column, start=0.2, end=1.2):
    steps = [b[column] - a[column] for a, b in zip(frames, frames[1:]) if start <= a[0] and b[0] <= end]
    return statistics.pstdev(steps) / statistics.mean(steps)


def lag_ms(frames, column, start=0.2, end=1.2):
    return 1000 * statistics.mean((f[1] - f[column]) / SPEED for f in frames if start <= f[0] <= end)


class PacingTests(unittest.TestCase):
    def test_steady_drag_is_even_at_every_update_rate(self):
        report = []
        for display_hz in (60, 144):
            for update_hz in (60, 90, 120, 240):
                frames = simulate(update_hz, display_hz)
                naive, smooth = judder(frames, 2), judder(frames, 3)
                report.append(f"{update_hz:>3} Hz updates, {display_hz:>3} Hz display: step spread naive {naive:.2f}, "
                              f"follower {smooth:.3f}; lag naive {lag_ms(frames, 2):.1f} ms, follower {lag_ms(frames, 3):.1f} ms")
                with self.subTest(update_hz=update_hz, display_hz=display_hz):
                    self.assertLess(smooth, 0.1, report[-1])
                    self.assertLess(smooth, naive / 2, report[-1])
                    # No more lag than drawing the last update: prediction pays for the smoothing.
                    self.assertLess(lag_ms(frames, 3), lag_ms(frames, 2), report[-1])
        if os.environ.get("PACING_REPORT"):
            print("\n" + "\n".join(report))

    def test_the_naive_baseline_does_stutter(self):
        # What the Follower is for: 60 Hz updates on a 60 Hz display with arrival jitter give frames that
        # repeat and frames that jump twice.
        self.assertGreater(judder(simulate(60, 60), 2), 0.3)

    def test_a_stop_does_not_run_on(self):
        # The finger stops dead at 0.5 s. The prediction may bridge one and a half update intervals, then
        # eases back: the content never gets two updates' distance past the finger, and it rests exactly
        # on it once gestured reports the stop (an update with velocity 0).
        for display_hz in (60, 144):
            for update_hz in (60, 90, 120, 240):
                frames = simulate(update_hz, display_hz, seconds=1.0, stop_at=0.5)
                with self.subTest(update_hz=update_hz, display_hz=display_hz):
                    self.assertLess(max(f[3] - f[1] for f in frames), 2 * SPEED / update_hz)
                    self.assertAlmostEqual(frames[-1][3], SPEED * 0.5, places=3)


class SpringTests(unittest.TestCase):
    def run_spring(self, spring, fps=60, seconds=2.0):
        values = [spring.value]
        for _ in range(int(seconds * fps)):
            values.append(spring.step(1 / fps))
            if spring.done:
                break
        return values

    def test_settles_at_the_target_without_overshoot_from_rest(self):
        spring = Spring(300.0, 0.0)
        values = self.run_spring(spring)
        self.assertTrue(spring.done)
        self.assertEqual(values[-1], 0.0)
        self.assertTrue(all(a >= b >= 0 for a, b in zip(values, values[1:])))
        self.assertLess(len(values) / 60, 0.7)   # settled within 0.7 s

    def test_starts_with_the_release_velocity(self):
        spring = Spring(100.0, 500.0, velocity=2000.0)
        spring.step(0.0)
        self.assertAlmostEqual(spring.speed, 2000.0)
        # A fling towards the target carries it past, then back.
        values = self.run_spring(Spring(100.0, 500.0, velocity=9000.0))
        self.assertGreater(max(values), 500.0)
        self.assertEqual(values[-1], 500.0)


class RubberBandTests(unittest.TestCase):
    def test_inside_unchanged_outside_resisted_and_bounded(self):
        self.assertEqual(rubber_band(50, 0, 100, 20), 50)
        self.assertAlmostEqual(rubber_band(110, 0, 100, 20), 100 + 20 * (1 - 1 / 1.5))
        self.assertLess(rubber_band(10_000, 0, 100, 20), 120)
        self.assertGreater(rubber_band(-10_000, 0, 100, 20), -20)
        self.assertTrue(math.isclose(rubber_band(-10, 0, 100, 20), -rubber_band(110, 0, 100, 20) + 100))


if __name__ == "__main__":
    unittest.main()
