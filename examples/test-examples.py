#!/usr/bin/python3
"""make test-examples: each GTK example under Xvfb, driven by gestured replaying its recording, checked by
the pixels of screenshots taken mid-gesture and after each gesture's end.

usage: examples/test-examples.py BIN_DIR [EXAMPLE...] [--keep DIR]

BIN_DIR holds gestured and gesturectl. --keep DIR keeps the screenshots (PNG) there; make
readme-screenshots uses it.

How it runs one example: a private Xvfb screen of 540 x 960 (the recordings' panel is 9:16, so the
window covering the screen maps the touchscreen exactly); the example starts and retries connecting;
gestured starts replaying the recording on a private socket; this script subscribes too and follows the
same gestures. When a gesture's events stop mid-gesture (the recordings rest the finger 1.5 s half way)
it waits QUIET seconds and takes a screenshot; after each `end` it waits SETTLE seconds, for the
example's release animation to finish, and takes another. Then it checks what the pixels show against
what the events say (progress, scale). Last, it restarts gestured and waits for the example to connect
again by itself.

First it checks that the recordings still make the gestures they were made for (gesturectl replay).
"""
import math
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import gestured  # installed: pip install ./clients/python, or Debian's python3-gestured
except ImportError:  # not installed: the module in this source tree
    sys.path.append(os.path.join(HERE, "..", "clients", "python", "src"))
    import gestured

WIDTH, HEIGHT = 540, 960
QUIET = 0.4         # seconds without events mid-gesture: the finger rests; the example has settled
SETTLE = 0.9        # seconds after `end`: the example's spring has come to rest (it settles in ~0.5 s)

# What `gesturectl replay --no-updates` must find in each recording: (kind, edge or direction, committed).
EXPECTED_GESTURES = {
    "control-centre": [("edge-swipe", "bottom", False), ("edge-swipe", "bottom", True), ("pan", "down", True)],
    "pager": [("edge-swipe", "left", False), ("edge-swipe", "left", True)],
    "pinch": [("pinch", None, True)],
}


class Failure(Exception):
    pass


# --- screenshots ----------------------------------------------------------------------------------------

class Shot:
    """A screenshot of the whole screen as RGB bytes, with the gesture event it illustrates."""

    def __init__(self, name, event, pixels, png):
        self.name, self.event, self.pixels, self.png = name, event, pixels, png

    def pixel(self, x, y):
        i = (int(y) * WIDTH + int(x)) * 3
        return tuple(self.pixels[i:i + 3])


def screenshot(display, name, event, directory):
    png = os.path.join(directory, f"{name}.png")
    subprocess.run(["import", "-display", display, "-window", "root", png], check=True, timeout=20)
    raw = subprocess.run(["convert", png, "-depth", "8", "rgb:-"], check=True, capture_output=True, timeout=20).stdout
    if len(raw) != WIDTH * HEIGHT * 3:
        raise Failure(f"{png}: expected a {WIDTH}x{HEIGHT} screen, got {len(raw)} bytes of RGB")
    return Shot(name, event, raw, png)


def near(pixel, color, tolerance=14):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, color))


# --- running one example --------------------------------------------------------------------------------

class Run:
    def __init__(self, bin_dir, example, recording, directory, display):
        self.bin_dir, self.example, self.recording = bin_dir, example, recording
        self.directory, self.display = directory, display
        self.processes = []

    def start(self, command, log, env=None):
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.processes.append(process)
        return process

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def wait_for_line(self, path, text, seconds, times=1):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with open(path, errors="replace") as f:
                if f.read().count(text) >= times:
                    return
            time.sleep(0.05)
        with open(path, errors="replace") as f:
            raise Failure(f"{self.example}: no '{text}' in its output within {seconds} s:\n{f.read()}")

    def shots(self):
        """Runs the example on the recording; returns the screenshots taken along its gestures."""
        socket_path = os.path.join(self.directory, "gestured.sock")
        config = os.path.join(self.directory, "gestured.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nsocket_group = ""\n')
        app_log = os.path.join(self.directory, f"{self.example}.log")
        env = dict(os.environ, DISPLAY=self.display, GDK_BACKEND="x11", NO_AT_BRIDGE="1", GSK_RENDERER="cairo")
        env.pop("WAYLAND_DISPLAY", None)
        script = os.path.join(HERE, self.example, f"{self.example}.py")
        self.start(["/usr/bin/python3", script, "--socket", socket_path], open(app_log, "w"), env)
        # The window is up once the example reports its first connection attempt.
        self.wait_for_line(app_log, "cannot connect", 30)
        daemon_log = open(os.path.join(self.directory, "gestured.log"), "w")
        daemon_command = [os.path.join(self.bin_dir, "gestured"), "--no-udev", "--config", config, "--socket", socket_path,
                          "--replay", self.recording]
        daemon = self.start(daemon_command, daemon_log)
        deadline = time.monotonic() + 20
        while not os.path.exists(socket_path):
            if time.monotonic() > deadline:
                raise Failure("gestured did not create its socket")
            time.sleep(0.02)
        watcher = gestured.Client(socket_path, reconnect=False, app_touches=True)
        watcher.connect()
        self.wait_for_line(app_log, "connected to gestured", 10)
        shots, in_flight, last, count = [], None, None, 0
        expected = len(EXPECTED_GESTURES[os.path.splitext(os.path.basename(self.recording))[0]])
        selector = selectors.DefaultSelector()
        selector.register(watcher, selectors.EVENT_READ)
        paused = False
        deadline = time.monotonic() + 60
        while count < expected:
            if time.monotonic() > deadline:
                raise Failure(f"{self.example}: only {count} of {expected} gestures arrived in 60 s")
            ready = selector.select(QUIET)
            if not ready:
                if in_flight is not None and last is not None and not paused:
                    shots.append(screenshot(self.display, f"{self.example}-{count + 1}-mid", last, self.directory))
                    paused = True
                continue
            for message in watcher.read():
                if isinstance(message, gestured.Disconnected):
                    raise Failure(f"gestured went away: {message.reason}")
                if not isinstance(message, gestured.GestureEvent):
                    continue
                if message.phase == "begin":
                    if count == 0 and "connected to gestured" not in open(app_log).read():
                        raise Failure(f"{self.example} connected after the first gesture began")
                    in_flight, paused = message.id, False
                last = message
                if message.finished:
                    time.sleep(SETTLE)
                    count += 1
                    shots.append(screenshot(self.display, f"{self.example}-{count}-after", message, self.directory))
                    in_flight, last = None, None
        watcher.close()
        # The daemon restarts: the example says it is waiting, then connects again by itself.
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(10)
        self.wait_for_line(app_log, "closed the connection", 10)
        self.start(daemon_command, daemon_log)
        self.wait_for_line(app_log, "connected to gestured", 15, times=2)
        print("  reconnected after the daemon restarted", flush=True)
        return shots


# --- what each example must show ------------------------------------------------------------------------

def check(condition, message):
    if not condition:
        raise Failure(message)


def control_centre(shots):
    panel = (232, 238, 245)
    column = WIDTH - 27         # the panel's plain right margin (no tiles, clear of the rounded corner)

    def visible(shot):
        """Height of the panel above the bottom edge, from its top edge in the column; 0 when hidden."""
        for y in range(HEIGHT):
            if near(shot.pixel(column, y), panel):
                return HEIGHT - y
        return 0

    by_name = {s.name.split("-", 2)[2]: s for s in shots}
    check(sorted(by_name) == ["1-after", "1-mid", "2-after", "2-mid", "3-after"], f"screenshots: {sorted(by_name)}")
    for n in ("1", "2"):
        mid = by_name[f"{n}-mid"]
        expected = mid.event.progress * HEIGHT
        got = visible(mid)
        check(abs(got - expected) <= 0.02 * HEIGHT,
              f"{mid.png}: mid-gesture at progress {mid.event.progress}, the panel should show {expected:.0f} px, shows {got}")
        print(f"  mid-swipe {n}: progress {mid.event.progress:.3f} -> {expected:.0f} px expected, {got} px shown")
    check(visible(by_name["1-after"]) == 0, f"{by_name['1-after'].png}: the abandoned swipe should leave the panel closed")
    opened = visible(by_name["2-after"])
    check(abs(opened - 0.55 * HEIGHT) <= 2,
          f"{by_name['2-after'].png}: after the committed swipe the panel should be fully open (528 px), shows {opened}")
    check(visible(by_name["3-after"]) == 0, f"{by_name['3-after'].png}: the swipe down should have closed the panel")
    print(f"  abandoned: closed; committed: open {opened} px; swipe down: closed")


def pager(shots):
    row = int(0.85 * HEIGHT)    # below the pages' content: plain page colour
    details, advanced = (64, 110, 170), (150, 90, 170)   # the top page and the one below (pager.py's PAGES)

    def top_page_left_edge(shot):
        for x in range(WIDTH):
            if near(shot.pixel(x, row), details):
                return x
        return None

    by_name = {s.name.split("-", 1)[1]: s for s in shots}
    check(sorted(by_name) == ["1-after", "1-mid", "2-after", "2-mid"], f"screenshots: {sorted(by_name)}")
    for n in ("1", "2"):
        mid = by_name[f"{n}-mid"]
        expected = mid.event.progress * WIDTH
        got = top_page_left_edge(mid)
        check(got is not None and abs(got - expected) <= 0.02 * WIDTH,
              f"{mid.png}: mid-swipe at progress {mid.event.progress}, the top page should be {expected:.0f} px to the right, is at {got}")
        check(not near(mid.pixel(max(got - 20, 0), row), details), f"{mid.png}: the page below should show left of the top page")
        print(f"  mid-swipe {n}: progress {mid.event.progress:.3f} -> {expected:.0f} px expected, top page at {got} px")
    after = by_name["1-after"]
    check(top_page_left_edge(after) == 0 and near(after.pixel(WIDTH - 1, row), details),
          f"{after.png}: after the abandoned swipe the top page should be back in place")
    after = by_name["2-after"]
    check(top_page_left_edge(after) is None and all(near(after.pixel(x, row), advanced) for x in (0, WIDTH // 2, WIDTH - 1)),
          f"{after.png}: after the committed swipe the top page should be gone and the one below shown in full")
    print("  abandoned: the page is back; committed: the page is off, the one below shown")


def pinch_view(shots):
    quadrants = [(230, 80, 70), (250, 190, 50), (60, 160, 220), (90, 190, 110)]   # pinch-view.py's picture
    side_at_1 = 0.4 * WIDTH

    def measure(shot):
        """The picture's area (as the side of a square) and its bounding box."""
        count, xs, ys = 0, [], []
        for y in range(0, HEIGHT):
            for x in range(0, WIDTH):
                i = (y * WIDTH + x) * 3
                p = shot.pixels[i:i + 3]
                if any(near(p, q, 10) for q in quadrants):
                    count += 1
                    xs.append(x)
                    ys.append(y)
        check(count > 0, f"{shot.png}: no picture on the screen")
        return count ** 0.5, (min(xs), min(ys), max(xs) + 1, max(ys) + 1)

    by_name = {s.name.split("-", 2)[2]: s for s in shots}
    check(sorted(by_name) == ["1-after", "1-mid"], f"screenshots: {sorted(by_name)}")
    mid = by_name["1-mid"]
    side, box = measure(mid)
    expected = side_at_1 * mid.event.scale
    check(abs(side - expected) <= 0.04 * expected,
          f"{mid.png}: mid-pinch at scale {mid.event.scale}, the picture's side should be {expected:.0f} px, is {side:.0f}")
    turn = math.radians(mid.event.rotation)
    expected_box = side * (abs(math.cos(turn)) + abs(math.sin(turn)))
    check(abs((box[2] - box[0]) - expected_box) <= 0.05 * expected_box,
          f"{mid.png}: turned by {mid.event.rotation}°, the picture should be {expected_box:.0f} px wide, is {box[2] - box[0]}")
    print(f"  mid-pinch: scale {mid.event.scale:.3f}, rotation {mid.event.rotation:.1f}° -> side {expected:.0f} px expected, "
          f"{side:.0f} shown; width {box[2] - box[0]} px (turned)")
    after = by_name["1-after"]
    side, box = measure(after)
    check(abs(side - 2 * side_at_1) <= 0.03 * 2 * side_at_1,
          f"{after.png}: after the committed spread the picture should snap to zoom 2 ({2 * side_at_1:.0f} px), is {side:.0f}")
    check(abs((box[2] - box[0]) - side) <= 0.03 * side and abs((box[3] - box[1]) - side) <= 0.03 * side,
          f"{after.png}: the picture should have snapped square to the screen, its box is {box}")
    print(f"  committed: zoom 2 -> side {2 * side_at_1:.0f} px expected, {side:.0f} shown, square to the screen")


EXAMPLES = {"control-centre": ("control-centre", control_centre), "pager": ("pager", pager),
            "pinch-view": ("pinch", pinch_view)}


def start_xvfb(directory):
    """Xvfb on the first free display from :90; returns the process and the display name."""
    for number in range(90, 190):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        log = open(os.path.join(directory, "xvfb.log"), "w")
        xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", f"{WIDTH}x{HEIGHT}x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 15
        while xvfb.poll() is None and time.monotonic() < deadline:
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                return xvfb, f":{number}"
            time.sleep(0.05)
        xvfb.kill()
        xvfb.wait()
    raise Failure("could not start Xvfb on any display from :90 to :189; see " + os.path.join(directory, "xvfb.log"))


def replay_summary(bin_dir, recording):
    output = subprocess.run([os.path.join(bin_dir, "gesturectl"), "replay", "--no-updates", recording],
                            check=True, capture_output=True, text=True).stdout
    summary = []
    for line in output.splitlines():
        event = gestured.decode(line)
        if event.finished:
            summary.append((event.kind, event.edge or event.direction, bool(event.committed)))
    return summary


def main():
    args = sys.argv[1:]
    keep = None
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i:i + 2]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir, names = args[0], args[1:] or list(EXAMPLES)
    for tool in ("Xvfb", "import", "convert"):
        if not shutil.which(tool):
            print(f"test-examples: {tool} is missing; `make test-examples` installs it (xvfb, imagemagick)", file=sys.stderr)
            return 1
    failures = 0
    xvfb_dir = tempfile.mkdtemp(prefix="gestured-examples-")
    xvfb, display = start_xvfb(xvfb_dir)
    try:
        for name in names:
            recording_name, checker = EXAMPLES[name]
            recording = os.path.join(HERE, "recordings", f"{recording_name}.evemu")
            started = time.monotonic()
            print(f"== {name} ({os.path.relpath(recording)})", flush=True)
            directory = tempfile.mkdtemp(prefix=f"gestured-{name}-")
            run = Run(bin_dir, name, recording, directory, display)
            try:
                summary = replay_summary(bin_dir, recording)
                check(summary == EXPECTED_GESTURES[recording_name],
                      f"{recording}: gesturectl replay finds {summary}, the example expects {EXPECTED_GESTURES[recording_name]}")
                checker(run.shots())
                print(f"  ok in {time.monotonic() - started:.1f} s", flush=True)
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    for f in os.listdir(directory):
                        if f.endswith(".png"):
                            shutil.copy(os.path.join(directory, f), keep)
                shutil.rmtree(directory)
            except Failure as failure:
                failures += 1
                print(f"  FAILED: {failure}\n  (screenshots and logs kept in {directory})", flush=True)
            finally:
                run.stop()
    finally:
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(xvfb_dir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
